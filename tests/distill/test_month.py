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


def test_six_days_of_the_daily_loop(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    certs = tmp_path_factory.getbasetemp() / "standin-certs"
    # fewer team PRs a day than the month's 5-40, so that `make test` stays fast
    month = run_month(tmp_path, seed=5, days=6, certs=certs, team_prs=(5, 12), history=40,
                      failed_pulls={2}, fix_up_on={1}, rename_on=1, force_push_on={1},
                      refuse_on={4}, edge_runs={4: "23:59:30"})  # fmt: skip
    show(capsys, "six days, seed 5", month.table())
    assert "state pull failed" in month.rows[2].notes  # and the next days hold all the same
    assert "reviewer pushed to #1" in month.rows[1].notes
    # issue #39: people rename and force-push the knowledge repository's main, and the loop
    # goes on on trunk; an all-refused batch keeps its events; the cron fires at 23:59 and
    # the next run is at 05:17 (the invariants of every day held, or run_month raised)
    assert "default branch renamed main -> trunk" in month.rows[1].notes
    assert "force-pushed trunk" in month.rows[1].notes
    later = [p for p in month.hub.pulls["acme/knowledge"] if p.created_at >= "2026-12-02"]
    assert later and all(p.base_ref == "trunk" for p in later), [(p.number, p.base_ref) for p in later]  # fmt: skip
    assert "the model's proposals all refused" in month.rows[4].notes
    kept = [n for n in month.rows[4].notes if n.endswith("event(s) kept after refusals")]
    assert kept and not kept[0].startswith("0 "), month.rows[4].notes
    assert "run at 23:59:30" in month.rows[4].notes
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
    # the named days make sure each thing happens at least once; the draws add more
    month = run_month(tmp_path, seed=seed, days=30, certs=tmp_path_factory.getbasetemp() / "standin-certs", failed_pulls={12}, fix_up_on={5, 15}, refuse_on={8}, force_push_on={20}, edge_runs={24: "00:00:40"})  # fmt: skip
    show(capsys, f"30 days, seed {seed}", month.table())
    notes = " ".join(n for r in month.rows for n in r.notes)
    # the month did what a real one does, so the invariants were tested, not just true
    assert sum(r.opened for r in month.rows) >= 15 and sum(r.landed for r in month.rows) >= 15
    assert sum(r.merged for r in month.rows) >= 8 and sum(r.faults for r in month.rows) >= 5
    assert "hand edit" in notes and "state pushes refused" in notes and "state pull failed" in notes
    assert "reviewer pushed to" in notes
    # what people and GitHub do (#39 point 7), drawn at random over the month
    assert "default branch renamed main -> trunk" in notes and "force-pushed" in notes
    assert "run at 23:59:30" in notes or "run at 00:00:40" in notes
    assert "the model's proposals all refused" in notes


def backlog(month: object) -> list[int]:
    return [r.states.get("pending", 0) for r in month.rows]  # type: ignore[attr-defined]


def test_two_repositories_on_one_cron_share_one_state_branch(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue #39 point 3, short: two repositories' workflows at the same moment, racing
    their pushes of one state branch; the first distills everyone's events, batch after
    batch into one PR a day. Every invariant holds after every day, and no event is lost."""
    certs = tmp_path_factory.getbasetemp() / "standin-certs"
    month = run_month(tmp_path, seed=7, days=3, certs=certs, team_prs=(30, 40), history=20, repos=2)  # fmt: skip
    show(capsys, "three days, two repositories, seed 7", month.table())
    log = (tmp_path / "month.log").read_text()
    days = [part.split("----- acme/app -----")[0] for part in log.split("----- acme/svc1 -----")[1:]]  # fmt: skip
    assert len(days) == 3 and not any(
        "--- Distill and publish" in d for d in days
    )  # it records only
    assert all(r.opened <= 1 for r in month.rows)
    recorded = {key[1].split("#")[0] for r in month.rows for key in month.merged_at}
    assert recorded >= {"acme/app", "acme/svc1"}
    assert month.covered.keys() == {"acme/app", "acme/svc1"}  # both were recorded and saved
    assert sum(r.decided for r in month.rows) >= 40 and max(r.model_calls for r in month.rows) >= 2  # fmt: skip
    assert sum(r.states.get("skipped", 0) for r in month.rows[-1:]) >= 1  # triage: the bumps


@pytest.mark.stress
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("repos", [2, 20])
def test_a_month_of_an_organization(
    seed: int,
    repos: int,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue #39 points 3 and 6: 2 and 20 repositories on one cron merging about 60 PRs a
    day between them for 30 days, sharing one state branch; the backlog does not grow."""
    certs = tmp_path_factory.getbasetemp() / "standin-certs"
    month = run_month(tmp_path, seed=seed, days=30, certs=certs, team_prs=(55, 65), history=60, repos=repos, failed_pulls={11, 12}, fix_up_on={5, 15}, refuse_on={8}, force_push_on={20}, edge_runs={24: "00:00:40"})  # fmt: skip
    show(capsys, f"30 days, {repos} repositories, seed {seed}", month.table())
    pending = backlog(month)
    assert max(pending) > 100, pending  # two days without distill (failed pulls): a backlog
    # The backlog does not grow. A day whose state pull failed distills nothing (by design),
    # and a day whose batches the model got all refused, or whose distill GitHub stopped,
    # keeps its events (by design too), so it is judged on the days that distilled: each
    # ends with at most about two days of the organization's merged PRs waiting (what
    # repositories recorded after the distilling run pulled, and what the budget left), and
    # the last ten hold at most 30 a day more than the first ten.
    held = ("state pull failed", "the model's proposals all refused", "Distill and publish")
    ran = [r.states.get("pending", 0) for r in month.rows if not any(h in " ".join(r.notes) for h in held)]  # fmt: skip
    assert max(ran) <= 130, (ran, pending)
    assert sum(ran[-10:]) <= sum(ran[:10]) + 300, (ran, pending)
    assert sum(r.recorded for r in month.rows) >= 30 * 40
    assert sum(r.opened for r in month.rows) >= 15 and all(r.opened <= 1 for r in month.rows)
    notes = " ".join(n for r in month.rows for n in r.notes)
    assert "state pushes refused" in notes and "default branch renamed main -> trunk" in notes
    assert "force-pushed" in notes and "the model's proposals all refused" in notes
