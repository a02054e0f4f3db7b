"""Two repositories' workflows distilling into one knowledge repository at the same moment
(issue #39 point 3): the run that loses the race for today's branch is charged nothing; it
reads the PRs again and lands its events on top, in the day's one PR."""

from __future__ import annotations

from typing import Any

import pytest

from kbkit.distill import job
from kbkit.intake.ledger import load_status, read_ledger, record_events
from tests.distill.world import DAY, ScriptedGateway, World, world_fixture

__all__ = ["world_fixture"]

pytestmark = pytest.mark.slow  # two distill runs against the GitHub stand-in


def pr_event(slug: str, n: int) -> dict[str, Any]:
    return {
        "source_kind": "merged_pr",
        "source_id": f"{slug}#{n}",
        "repo": slug,
        "number": n,
        "title": f"Change number {n} of {slug}",
        "summary": f"What {slug} PR {n} taught us.",
        "url": f"https://github.com/{slug}/pull/{n}",
        "merged_at": f"2026-11-29T10:{n:02d}:00Z",
        "recorded_at": f"2026-11-29T10:00:{n:02d}Z",
    }


class Competitor(ScriptedGateway):
    """The first run's model: while it thinks, the other repository's run distills and
    publishes today's PR (once)."""

    def __init__(self, rules: dict[str, str], other: job.Options):
        super().__init__(rules)
        self.other: job.Options | None = other
        self.other_report: job.Report | None = None

    def complete(self, prompt: str, schema: dict[str, Any]) -> str:
        if self.other is not None:
            other, self.other = self.other, None
            self.other_report = job.run(other)
        return super().complete(prompt, schema)


def test_a_run_that_loses_the_race_for_todays_branch_is_charged_nothing(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KBKIT_RACE_PAUSE", "0.05")
    world.review()
    record_events(world.intake, [pr_event("acme/app", n) for n in (1, 2)])
    other_intake = world.root / "lib" / "intake"
    other_intake.mkdir(parents=True)
    record_events(other_intake, [pr_event("acme/lib", 1)])  # the same number elsewhere
    rules = {"acme/app#1": "VAL-2c", "acme/app#2": "VAL-2d", "acme/lib#1": "VAL-2e"}
    other = world.options(ScriptedGateway(rules), intake_dir=other_intake, state_dir=world.root / "lib" / "state")  # fmt: skip
    model = Competitor(rules, other)
    report = world.run(model, max_model_calls=5)
    assert model.other_report is not None and model.other_report.outcome == "published"
    (pr,) = world.prs()  # one PR for the day: the other run's, with this run's batch on top
    assert report.outcome == "published" and report.url == model.other_report.url
    assert [b["outcome"] for b in report.batches] == ["raced", "published"]
    assert sorted(k[1] for k in pr["record"].sources()) == ["acme/app#1", "acme/app#2", "acme/lib#1"]  # fmt: skip
    assert pr["headRefName"] == f"knowledge/intake-{DAY}" and len(pr["record"].batches) == 2
    status = load_status(world.intake)
    assert [status[("merged_pr", f"acme/app#{n}")]["state"] for n in (1, 2)] == ["published"] * 2
    # losing was never an attempt: no row of this repository went back to pending charged
    rows = read_ledger(world.intake, "status.jsonl")[0]
    assert not [r for r in rows if "publication failed" in str(r.get("reason", ""))]
    assert max(r["attempts"] for r in rows) <= 1
    assert any("another run pushed" in note for note in report.notes)
