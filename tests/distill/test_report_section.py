"""`kbkit.distill.report_section`: the day's report in the knowledge PR body says what came in
that day and what was decided, names files as the repository holds them, pings nobody, and
never fails the publication."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbkit.distill.report_section import report_section
from tests.report.test_report import TASK
from tests.report.world import build_world


def test_the_days_section_lists_decisions_and_arrivals_inertly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = build_world(tmp_path / "repo", monkeypatch, TASK)
    text = report_section(repo, repo / "intake", repo / "state", "2026-11-29")
    assert text.startswith("## kbkit report, 2026-11-29 to 2026-11-29\n")
    assert "1 event recorded in the window" not in text  # the 29th had two: #3 and the hostile row
    assert "2 events recorded in the window" in text
    assert "[Validators: fix edge case 3](https://github.com/kbkit-dev/kbkit/pull/3)" in text
    assert "@&#8203;kbkit-dev/core" in text and "@kbkit-dev/core" not in text
    assert str(tmp_path) not in text
    day = report_section(repo, repo / "intake", repo / "state", "2026-11-30")
    assert (
        "| VAL-2c | Normalize link targets | knowledge/general/guides/fresh.md | accepted | — |"
        in day
    )
    assert "[kbkit-dev/kbkit #&#8203;99](https://github.com/kbkit-dev/kbkit/pull/99)" in day


def test_a_report_that_cannot_be_built_is_one_line(tmp_path: Path) -> None:
    text = report_section(tmp_path / "missing", tmp_path, tmp_path, "not-a-day")
    assert text.startswith("## kbkit report\n\nThe report could not be built: `ValueError")
    assert len(text.strip().splitlines()) == 3
