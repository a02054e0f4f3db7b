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
    assert [p.parent.name for p in POLICIES] == [
        "PowerShell-Docs",
        "book",
        "govuk-developer-docs",
        "mkdocs-material",
        "obsidian-help",
    ]


SITE_TREES = ("PowerShell-Docs", "book", "mkdocs-material")  # issue #28: at most 15 lines


@pytest.mark.parametrize("name", SITE_TREES)
def test_a_site_generators_tree_takes_a_policy_of_at_most_15_lines(name: str) -> None:
    assert len((TREES / name / "policy.yaml").read_text().splitlines()) <= 15


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


# Where each real tree gets its five injected defects: (a page, a second page it links,
# a folder the navigation covers), all paths under the knowledge root.
INJECT = {
    "book": ("ch01-00-getting-started.md", "ch02-00-guessing-game-tutorial.md", ""),
    "mkdocs-material": ("getting-started.md", "philosophy.md", ""),
    "PowerShell-Docs": (
        "docs-conceptual/overview.md",
        "docs-conceptual/what-is-a-command-shell.md",
        "docs-conceptual",
    ),
}


@pytest.mark.parametrize("name", sorted(INJECT))
def test_five_injected_defects_are_caught(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A broken relative link, a missing anchor, a page missing from the navigation, a
    duplicated page and a leaked token, injected into a copy of the exported tree: each is
    reported (on top of the baseline, which holds the tree's own findings)."""
    import json
    import shutil

    exports = os.environ.get("KBKIT_REAL_TREES")
    source = Path(exports) / name if exports else None
    if source is None or not source.is_dir():
        pytest.skip("set KBKIT_REAL_TREES=DIR with DIR/<tree>/ an export of the tree")
    tree = tmp_path / name
    shutil.copytree(source, tree, symlinks=True)
    policy_file = TREES / name / "policy.yaml"
    root = tree / policy_from_file(policy_file).knowledge_root
    page, other, folder = INJECT[name]
    token = "ghp" + "_" + "R8c2mVq7XkTz4Lp9WbN3sHd6Jf1Ya0Ue5GiQ"
    target = root / page
    relative = os.path.relpath(root / other, target.parent)
    target.write_text(
        target.read_text()
        + f"\n\n[a typo](no-such-page.md) and [a heading]({relative}#no-such-heading)\n"
        + f"\nThe CI token is {token}.\n"
    )
    lonely = root / folder / "kbkit-injected-unlisted.md"
    lonely.write_text("# Not in the navigation\n\n[back](" + os.path.basename(page) + ")\n")
    copy = root / folder / "zz-kbkit-injected-copy.md"
    copy.write_text((root / other).read_text())
    code = main(
        [
            "check",
            "--repo",
            str(tree),
            "--policy",
            str(policy_file),
            "--no-cache",
            "--format",
            "json",
        ]
    )
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert code == 1
    got = {(f["path"].split("/", 1)[-1], f["rule"]) for f in findings}
    base = policy_from_file(policy_file).knowledge_root
    rel = lambda p: (base + "/" + p).split("/", 1)[1]  # noqa: E731 - paths as reported
    injected = {
        (rel(page), "tree/link-broken"),
        (rel(page), "tree/link-anchor"),
        (rel(page), "tree/secret-token"),
        (rel(os.path.join(folder, "kbkit-injected-unlisted.md")), "tree/page-unregistered"),
        (rel(os.path.join(folder, "zz-kbkit-injected-copy.md")), "tree/duplicate-page"),
    }
    assert injected <= got, sorted(injected - got)
