"""The index model: a YAML table of contents changed between runs is seen by warm runs."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

from kbkit.checks.runner import run_validators
from kbkit.policy.model import load_policy

TODAY = date(2026, 11, 30)
CASE = Path(__file__).resolve().parents[1] / "cases/knowledge-tree/ok/index-model-mkdocs/repo"


def unregistered(repo: Path) -> list[str]:
    findings, _ = run_validators(repo, load_policy(repo), ("tree",), TODAY)
    return [f.path for f in findings if f.rule_id == "tree/page-unregistered"]


def test_a_warm_run_sees_an_edited_mkdocs_nav(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(CASE, repo)
    assert unregistered(repo) == []
    assert unregistered(repo) == []  # warm
    nav = repo / "mkdocs.yml"
    nav.write_text(nav.read_text().replace("  - C: repos/c.md\n", ""))
    assert unregistered(repo) == ["knowledge/repos/c.md"]
