"""`kb check` and `kb report` count the same pages (issue #28), top-level pages included
when the knowledge root itself is the root."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from kbkit.checks.runner import run_validators
from kbkit.policy.model import load_policy
from kbkit.report.tree_health import collect

TODAY = date(2026, 11, 30)


@pytest.mark.parametrize(("policy", "pages"), [("", 2), ("extends: public-docs\n", 4)])
def test_check_and_report_count_the_same_pages(tmp_path: Path, policy: str, pages: int) -> None:
    for rel, text in {
        "knowledge/_index.md": "# Top\n\n[a](general/a.md) [b](repos/b.md) [t](top.md)\n",
        "knowledge/top.md": "# Top page\n",
        "knowledge/general/a.md": "# A\n",
        "knowledge/repos/b.md": "# B\n",
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    if policy:
        (tmp_path / "kbkit.yaml").write_text(policy)
    loaded = load_policy(tmp_path)
    _, checked = run_validators(tmp_path, loaded, ("tree", "lint"), TODAY, use_cache=False)
    assert checked == pages
    assert collect(tmp_path, loaded, TODAY, use_cache=False)["pages"] == pages
