"""The policies written for public trees (tests/real-trees/<tree>/) stay valid and short.

The trees themselves are never committed; README ("Real trees") says how they were checked.
With `KBKIT_REAL_TREES=DIR` (DIR/<tree>/ an export of the tree's HEAD) each exported tree
must pass `kb check` under its policy and baseline; without it that test is skipped.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kbkit.__main__ import main
from kbkit.checks import baseline
from kbkit.policy.model import policy_from_file

TREES = Path(__file__).resolve().parents[1] / "real-trees"
POLICIES = sorted(TREES.glob("*/policy.yaml"))


def test_there_is_a_real_tree_policy() -> None:
    assert [p.parent.name for p in POLICIES] == ["govuk-developer-docs", "obsidian-help"]


@pytest.mark.parametrize("path", POLICIES, ids=lambda p: p.parent.name)
def test_each_policy_validates_and_fits_in_30_lines(path: Path) -> None:
    policy = policy_from_file(path)
    assert len(path.read_text().splitlines()) <= 30
    assert baseline.default_path(Path("/unused"), policy) == path.parent / "baseline.json"
    beside = path.parent / "baseline.json"
    if beside.exists():
        entries = baseline.read(beside)
        assert entries and all(e.path.startswith(policy.knowledge_root + "/") for e in entries)


@pytest.mark.parametrize("path", POLICIES, ids=lambda p: p.parent.name)
def test_an_exported_tree_is_green_under_its_policy(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exports = os.environ.get("KBKIT_REAL_TREES")
    tree = Path(exports) / path.parent.name if exports else None
    if tree is None or not tree.is_dir():
        pytest.skip("set KBKIT_REAL_TREES=DIR with DIR/<tree>/ an export of the tree")
    code = main(["check", "--repo", str(tree), "--policy", str(path), "--no-cache"])
    assert code == 0, capsys.readouterr().out[-2000:]
