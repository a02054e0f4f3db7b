"""Ledger rows become bounded curator events; a row no cut can save fails on its own."""

from __future__ import annotations

import pytest

from kbkit.curator import InvalidRequestError
from kbkit.curator.events import DIFF_EVENT_BYTES, TEXT_BYTES
from kbkit.distill.evidence import to_event
from kbkit.intake.ledger import load_status, record_events
from tests.distill.world import ScriptedGateway, World


def test_merged_pr_row_is_cut_to_the_curator_bounds() -> None:
    row = {
        "source_kind": "merged_pr",
        "source_id": "acme/app#7",
        "repo": "acme/app",
        "title": "A  title\twith   blanks",
        "summary": "é" * 20000,
        "diff_excerpt": "+" * (DIFF_EVENT_BYTES + 100),
        "url": "https://github.com/acme/app/pull/7",
        "merged_at": "2026-11-29T10:00:00Z",
    }
    event = to_event(row)
    assert event.title == "A title with blanks"
    assert len(event.body.encode()) <= TEXT_BYTES["body"] and event.body.endswith(" …")
    assert event.diff_excerpt is not None and len(event.diff_excerpt.encode()) <= DIFF_EVENT_BYTES
    assert event.merged_at == "2026-11-29T10:00:00Z" and event.created_at is None


def test_bugfix_row_renders_every_verified_group() -> None:
    record = {
        "run_id": "run-1", "repo": "acme/app", "pr": 9, "kind": "bugfix_run", "title": "T",
        "groups": [{"signature": "sig", "jobs": ["ci"], "root_cause": "rc", "fix_summary": "fx",
                    "verification": "green", "files": ["a.py", "b.py"]}],
        "created_at": "2026-11-28T17:10:00Z",
    }  # fmt: skip
    row = {"source_kind": "bugfix_run", "source_id": "run-1", "repo": "acme/app",
           "title": "T", "record": record}  # fmt: skip
    event = to_event(row)
    assert event.kind == "bugfix_run" and event.created_at == "2026-11-28T17:10:00Z"
    assert event.body.splitlines() == [
        "Pull request: #9", "Signature: sig", "Root cause: rc", "Fix: fx",
        "Verification: green", "Files: a.py, b.py",
    ]  # fmt: skip


@pytest.mark.slow
def test_a_row_no_cut_can_save_is_failed_alone(world: World) -> None:
    with pytest.raises(InvalidRequestError, match="source_id"):
        to_event({"source_kind": "merged_pr", "source_id": "bad]id", "repo": "a/b", "title": "t"})
    good = world.record(1)
    record_events(world.intake, [{"source_kind": "merged_pr", "source_id": "acme/app#[2]",
                                  "repo": "acme/app", "title": "t", "recorded_at": "x"}])  # fmt: skip
    report = world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    assert report.outcome == "shadowed" and world.states(good) == ["shadowed"]
    bad = load_status(world.intake)[("merged_pr", "acme/app#[2]")]
    assert bad["state"] == "failed" and "unusable event" in bad["reason"]


def test_promoted_lesson_row_becomes_a_lesson_event() -> None:
    row = {"source_kind": "lesson", "source_id": "L-3f2a", "repo": None,
           "title": "Confirmed ssrf: metadata endpoint", "summary": "Seen in 3 tasks.",
           "recorded_at": "2026-11-30T01:00:00Z"}  # fmt: skip
    event = to_event(row)
    assert (event.kind, event.repo, event.body) == ("lesson", "lessons", "Seen in 3 tasks.")


def _note(n: int, text: str, **extra: object) -> dict[str, object]:
    return {"id": f"acme/app#7:discussion_r{n}", "kind": "inline", "author": "carol",
            "association": "MEMBER", "role": "reviewer", "text": text, **extra}  # fmt: skip


def test_a_merged_pr_rows_discussion_becomes_its_review_notes_in_order() -> None:
    row = {"source_kind": "merged_pr", "source_id": "acme/app#7", "repo": "acme/app",
           "title": "t", "diff_excerpt": "+x\n",
           "discussion": {"notes": [_note(1, "Refuse it.", accepted="suggestion", path="a.py",
                                          line=3, start_line=1, resolved=True),
                                    _note(2, "Done.", role="author",
                                          in_reply_to="acme/app#7:discussion_r1")],
                          "read": 5, "omitted": 3, "bots": 1, "complete": True}}  # fmt: skip
    event = to_event(row)
    assert [n.id for n in event.discussion] == [
        "acme/app#7:discussion_r1",
        "acme/app#7:discussion_r2",
    ]
    assert event.discussion[0].accepted == "suggestion" and event.discussion[0].resolved is True
    assert event.discussion_omitted == 3
    assert event.citable_ids() == (
        "acme/app#7",
        "acme/app#7:discussion_r1",
        "acme/app#7:discussion_r2",
    )


def test_a_hand_edited_discussion_is_cut_to_the_budget_and_a_bad_note_left_out() -> None:
    notes = [_note(n, "y" * 3000) for n in range(1, 5)] + [{"id": "elsewhere", "kind": "x"}]
    row = {"source_kind": "merged_pr", "source_id": "acme/app#7", "repo": "acme/app",
           "title": "t", "diff_excerpt": "+" * 3000,
           "discussion": {"notes": notes, "read": 5, "omitted": 0, "bots": 0, "complete": True}}  # fmt: skip
    event = to_event(row)  # never refused: cut
    assert event.evidence_bytes() <= DIFF_EVENT_BYTES and len(event.discussion) == 1
    assert event.discussion_omitted == 4
