"""An organization's pace (issue #39, point 6): one run distills batch after batch into the
day's one PR within its budget, triage skips what carries no rule before any model call, and
every run says what it cost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kbkit.commands.distill import main as distill_main
from kbkit.commands.intake_requeue import main as requeue
from kbkit.distill.models import RecordingGateway
from kbkit.infra.errors import UsageError
from kbkit.intake.ledger import load_status, record_events
from kbkit.intake.triage import OFF, Triage, load_triage
from tests.distill.world import DAY, FORK, ScriptedGateway, World, world_fixture

__all__ = ["world_fixture"]

RULES = {f"acme/app#{n}": f"VAL-2{chr(ord('b') + n)}" for n in range(1, 8)}  # VAL-2c ...


def event(n: int, **fields: Any) -> dict[str, Any]:
    return {
        "source_kind": "merged_pr",
        "source_id": f"acme/app#{n}",
        "repo": "acme/app",
        "number": n,
        "title": f"Change number {n}",
        "summary": f"What PR {n} taught us.",
        "url": f"https://github.com/acme/app/pull/{n}",
        "author": "dev1",
        "labels": [],
        "merged_at": f"2026-11-29T10:{n % 60:02d}:00Z",
        "recorded_at": f"2026-11-29T10:00:{n % 60:02d}Z",
        "diff_excerpt": f"diff --git a/src/m{n}.py b/src/m{n}.py\n--- a/src/m{n}.py\n+++ b/src/m{n}.py\n@@ -1 +1 @@\n-a\n+b\n",
        **fields,
    }


# --- triage: a table for the pure rule --------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"author": "dependabot[bot]"}, "a bot's change"),
        ({"author": "Renovate[bot]", "title": "Fix the parser"}, "a bot's change"),
        ({"title": "Bump requests from 2.31.0 to 2.32.0"}, "dependency bump"),
        ({"title": "chore(deps): update actions/checkout action to v4"}, "dependency bump"),
        ({"title": "build(deps-dev): bump pytest"}, "dependency bump"),
        ({"title": "Update dependency eslint to v9"}, "dependency bump"),
        ({"labels": ["Dependencies"]}, "labelled Dependencies"),
        ({"labels": ["skip-kb"]}, "labelled skip-kb"),
        (
            {
                "diff_excerpt": "diff --git a/docs/x.md b/docs/x.md\n+a\ndiff --git a/README.md b/README.md\n+b\n"
            },
            "documentation only",
        ),  # fmt: skip
    ],
)
def test_triage_names_why_a_change_carries_no_rule(fields: dict[str, Any], why: str) -> None:
    assert why in (Triage().reason(event(1, **fields)) or "")
    assert OFF.reason(event(1, **fields)) is None


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {
            "title": "Bump the retry limit: the parser timed out"
        },  # a bump of a setting, not a dependency
        {"author": "robot-person"},
        {"labels": ["bug"]},
        {
            "diff_excerpt": "diff --git a/docs/x.md b/docs/x.md\n+a\ndiff --git a/src/x.py b/src/x.py\n+b\n"
        },
        {"diff_excerpt": ""},  # no diff read: nothing says it is documentation
    ],
)
def test_triage_lets_every_other_change_through(fields: dict[str, Any]) -> None:
    assert Triage().reason(event(1, **fields)) is None
    bugfix = {"source_kind": "bugfix_run", "source_id": "acme/app:1", "author": "ci[bot]"}
    assert Triage().reason(bugfix) is None  # a bugfix run is always evidence


def test_triage_is_configured_in_the_intake_config(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    assert load_triage(tmp_path) == Triage()  # no file: the defaults
    config.write_text("triage: false\n")
    assert load_triage(tmp_path).reason(event(1, author="dependabot[bot]")) is None
    config.write_text(
        "triage:\n  bots: false\n  authors: [Release-Robot]\n  labels: [chore]\n"
        "  docs_only: false\n  titles: ['^\\[skip kb\\]']\n"
    )
    triage = load_triage(tmp_path)
    assert triage.reason(event(1, author="dependabot[bot]")) is None
    assert "release-robot" in (triage.reason(event(1, author="release-robot")) or "").lower()
    assert triage.reason(event(1, labels=["dependencies"])) is None
    assert "labelled chore" in (triage.reason(event(1, labels=["chore"])) or "")
    assert "title matches" in (triage.reason(event(1, title="[skip kb] typo")) or "")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("triage: 3\n", "must be true, false or a mapping"),
        ("triage:\n  robots: true\n", "unknown key 'robots'"),
        ("triage:\n  bots: maybe\n", "bots must be true or false"),
        ("triage:\n  labels: dependencies\n", "labels must be a list of strings"),
        ("triage:\n  titles: ['(']\n", "is not a regular expression"),
    ],
)
def test_a_bad_triage_configuration_names_the_file(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "config.yaml").write_text(text)
    with pytest.raises(UsageError, match=message) as caught:
        load_triage(tmp_path)
    assert str(tmp_path / "config.yaml") in str(caught.value)


# --- the run ----------------------------------------------------------------------------


@pytest.mark.slow
def test_one_run_distills_batch_after_batch_into_the_days_one_pr(world: World) -> None:
    world.review()
    keys = [k for n in range(1, 8) for k in [("merged_pr", f"acme/app#{n}")]]
    record_events(world.intake, [event(n) for n in range(1, 8)])
    model = ScriptedGateway(RULES)
    report = world.run(model, max_events=3, max_model_calls=10)
    assert model.calls == 3 and len(report.batches) == 3  # 3 + 3 + 1 events
    assert [b["events"] for b in report.batches] == [3, 3, 1]
    assert all(b["outcome"] == "published" for b in report.batches)
    assert report.outcome == "published" and len(report.events) == 7
    assert world.states(keys) == ["published"] * 7
    (pr,) = world.prs()  # one PR for the day, its body grouped by batch
    assert pr["body"].count("\n## Batch ") == 3
    assert sorted(pr["record"].rule_ids()) == sorted(RULES.values())
    assert report.cost["model_calls"] == 3 and report.cost["github_calls"] > 0
    assert pr["headRefName"] == f"knowledge/intake-{DAY}" and FORK


@pytest.mark.slow
def test_the_budget_ends_the_run_and_the_rest_waits(world: World) -> None:
    keys = [("merged_pr", f"acme/app#{n}") for n in range(1, 8)]
    record_events(world.intake, [event(n) for n in range(1, 8)])
    report = world.run(ScriptedGateway(RULES), max_events=3, max_model_calls=2)
    assert len(report.batches) == 2 and report.cost["model_calls"] == 2
    assert any("budget of 2 model call(s) is spent: 1 pending" in n for n in report.notes)
    assert sorted(world.states(keys)) == ["pending"] + ["shadowed"] * 6
    timed = world.run(ScriptedGateway(RULES), max_events=3, max_model_calls=10, max_seconds=0)
    assert len(timed.batches) == 1  # a run always does one batch; then the time is spent
    assert world.states(keys) == ["shadowed"] * 7


@pytest.mark.slow
def test_triage_skips_before_any_model_call_and_requeue_lets_it_through(world: World) -> None:
    record_events(world.intake, [
        event(1),
        event(2, author="dependabot[bot]"),
        event(3, title="Bump lodash from 4.17.20 to 4.17.21"),
        event(4, labels=["dependencies"]),
        event(5, diff_excerpt="diff --git a/docs/a.md b/docs/a.md\n+x\n"),
    ])  # fmt: skip
    model = ScriptedGateway(RULES)
    report = world.run(model, triage=Triage())
    assert model.calls == 1 and report.skipped == 4 and len(report.events) == 1
    assert '"acme/app#1"' in model.prompts[0]
    assert not any(f'"acme/app#{n}"' in model.prompts[0] for n in (2, 3, 4, 5))
    status = load_status(world.intake)
    reasons = [status[("merged_pr", f"acme/app#{n}")] for n in (2, 3, 4, 5)]
    assert [r["state"] for r in reasons] == ["skipped"] * 4
    assert [r["attempts"] for r in reasons] == [0] * 4  # no attempt charged
    assert "a bot's change" in reasons[0]["reason"] and "dependency bump" in reasons[1]["reason"]
    # a person disagrees: requeued, it is distilled past triage
    root = str(world.root / "project")
    assert requeue(["acme/app#2", "--reason", "it did teach us something", "--repo", root]) == 0
    again = world.run(model, triage=Triage())
    assert again.events == ("merged_pr acme/app#2",) and again.skipped == 0
    assert world.states([("merged_pr", "acme/app#2")]) == ["shadowed"]


@pytest.mark.slow
def test_the_command_prints_its_cost_and_reads_its_budget(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    record_events(world.intake, [event(n) for n in range(1, 8)])
    replies = world.root / "replies.jsonl"  # the first batch's reply, recorded by a dry run
    world.run(RecordingGateway(ScriptedGateway(RULES), replies), max_events=3, dry_run=True)
    config = world.intake / "config.yaml"
    config.write_text("distill:\n  max_model_calls: 0\n")
    argv = ["--repo", str(world.root / "project"), "--knowledge-repo", str(world.upstream),
            "--today", DAY, "--quiet", "--model", f"replay:{replies}", "--max-events", "3"]  # fmt: skip
    with pytest.raises(UsageError, match="model-call budget must be a whole number") as caught:
        distill_main(argv)
    assert str(config) in str(caught.value)
    config.write_text("distill:\n  max_model_calls: 1\n")
    assert distill_main(argv) == 0
    text = capsys.readouterr().out
    assert "cost: 1 model call(s), 0 GitHub call(s)" in text  # shadow mode asks GitHub nothing
    assert "budget of 1 model call(s) is spent: 4 pending event(s) wait" in text
