"""The run's summary (`kb distill --summary FILE`): what changed, or why nothing did."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbkit.commands.distill import main
from kbkit.distill.session import Report
from kbkit.distill.summary import summary
from tests.distill.world import DAY, World, world_fixture

__all__ = ["world_fixture"]


def report(outcome: str, **fields: object) -> Report:
    return Report(DAY, "knowledge/intake-x", outcome, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("outcome", "why"),
    [
        ("nothing-pending", "nothing was pending"),
        ("no-rules", "the model proposed no rule"),
        ("refused", "every rule the model proposed was refused by the mechanical checks"),
        ("shadowed", "shadow mode (KBKIT_POST_MODE is not"),
        ("dry-run", "a dry run writes nothing"),
    ],
)
def test_a_day_without_a_pr_change_says_why(outcome: str, why: str) -> None:
    text = summary(report(outcome), "KBKIT_POST_MODE is not `review`")
    assert f"### kb distill {DAY}" in text and "- **No PR opened or updated**: " + why in text


def test_deferred_and_failed_days_quote_their_reason_inert() -> None:
    deferred = summary(report("deferred", notes=("today's PR #3 is merged; wait",)), "")
    assert "**No PR opened or updated**: today's PR #&#8203;3 is merged" in deferred
    failed = summary(report("failed", notes=("model call failed: ask @acme/ml",)), "")
    assert "a failed attempt: model call failed: ask @&#8203;acme/ml" in failed


def test_a_published_day_and_a_day_that_only_rebuilt() -> None:
    url = "https://github.com/acme/knowledge/pull/4"
    done = summary(report("published", url=url, batch_id="b1", events=("e",), waiting=7), "")
    assert f"**PR**: {url} now carries batch `b1`" in done and "**Waiting**: 7" in done
    rebuilt = summary(report("nothing-pending", updated=(2, 3)), "")
    assert "**No new batch**: nothing was pending" in rebuilt
    assert "**Brought up to date with main**: #&#8203;2, #&#8203;3" in rebuilt
    assert "No PR opened" not in rebuilt


@pytest.mark.slow
def test_the_command_appends_the_summary_also_when_the_run_stops(
    world: World, tmp_path: Path
) -> None:
    summary_file = tmp_path / "summary.md"
    (world.root / "project").mkdir(exist_ok=True)
    argv = ["--repo", str(world.root / "project"), "--knowledge-repo", str(world.upstream),
            "--today", DAY, "--quiet", "--summary", str(summary_file)]  # fmt: skip
    with pytest.raises(Exception, match="no such replay file"):
        main([*argv, "--model", "replay:missing.jsonl"])
    assert "**No PR opened or updated**: the run stopped: " in summary_file.read_text()
    replay = tmp_path / "empty.jsonl"
    replay.write_text("")
    assert main([*argv, "--model", f"replay:{replay}"]) == 0  # nothing recorded: nothing pending
    assert summary_file.read_text().count(f"### kb distill {DAY}") == 2
    assert "nothing was pending" in summary_file.read_text()


def test_a_run_of_several_batches_lists_each_in_the_summary_and_the_text() -> None:
    from kbkit.distill.budget import run_lines

    batches = (
        {"batch_id": "b1", "outcome": "opened", "events": 20, "accepted": 5, "rejected": 1},
        {"batch_id": "b2", "outcome": "refused", "events": 7, "accepted": 0, "rejected": 3},
    )
    done = report("opened", batches=batches)
    text = run_lines(done)
    assert "batch b1: opened, 20 event(s), 5 accepted, 1 rejected" in text
    assert "batch b2: refused, 7 event(s), 0 accepted, 3 rejected" in text
    assert "  - batch `b2`: refused, 7 event(s), 0 accepted, 3 rejected" in summary(
        done, "review mode"
    )
