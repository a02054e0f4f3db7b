"""The month, as a test: the daily workflow on a fresh runner every day against the GitHub
stand-in (`month.py`); every invariant of issue #25 holds after every simulated day."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.distill.github_standin import missing_tools
from tests.distill.month import run_month

pytestmark = [
    pytest.mark.slow,  # make test-all: five simulated days of the daily loop
    pytest.mark.skipif(missing_tools() is not None, reason=str(missing_tools())),
]


def show(capsys: pytest.CaptureFixture[str], title: str, table: str) -> None:
    with capsys.disabled():
        print(f"\n{title}\n{table}\n")


def test_five_days_of_the_daily_loop(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    certs = tmp_path_factory.getbasetemp() / "standin-certs"
    # fewer team PRs a day than the month's 5-40, so that `make test` stays fast
    month = run_month(tmp_path, seed=5, days=5, certs=certs, team_prs=(5, 12), history=40,
                      failed_pulls={2}, fix_up_on={1})  # fmt: skip
    show(capsys, "five days, seed 5", month.table())
    assert "state pull failed" in month.rows[2].notes  # and the next days hold all the same
    assert "reviewer pushed to #1" in month.rows[1].notes
    assert sum(r.opened for r in month.rows) >= 2 and month.model.calls >= 3
    assert sum(r.team_prs for r in month.rows) >= 25


@pytest.mark.stress
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_month_of_the_daily_loop(
    seed: int,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    month = run_month(tmp_path, seed=seed, days=30, certs=tmp_path_factory.getbasetemp() / "standin-certs", failed_pulls={12}, fix_up_on={5, 15})  # fmt: skip
    show(capsys, f"30 days, seed {seed}", month.table())
    notes = " ".join(n for r in month.rows for n in r.notes)
    # the month did what a real one does, so the invariants were tested, not just true
    assert sum(r.opened for r in month.rows) >= 15 and sum(r.landed for r in month.rows) >= 15
    assert sum(r.merged for r in month.rows) >= 8 and sum(r.faults for r in month.rows) >= 5
    assert "hand edit" in notes and "state pushes refused" in notes and "state pull failed" in notes
    assert "reviewer pushed to" in notes
