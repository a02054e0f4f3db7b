"""ReviewNote and the events that carry them: ids bound to their event, one byte budget for
the diff excerpt and the discussion, a lossless dict form."""

from __future__ import annotations

from typing import Any

import pytest

from kbkit.curator import InvalidRequestError, KnowledgeEvidenceBatch, ReviewNote
from kbkit.curator.events import DIFF_EVENT_BYTES, KnowledgeEvidenceEvent
from kbkit.curator.review_notes import MAX_NOTES
from tests.curator.conftest import event

PR = "acme/app#12"


def note(anchor: str = "discussion_r1", text: str = "Refuse it.", **extra: Any) -> ReviewNote:
    return ReviewNote(f"{PR}:{anchor}", "inline", "carol", "reviewer", text, **extra)


def test_a_note_costs_its_text_hunk_and_path() -> None:
    assert note(text="é" * 10, hunk="+x", path="a/b.py").size() == 20 + 2 + 6


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        (note("discussion_rX"), "discussion[0].id"),
        (
            ReviewNote("acme/app#13:discussion_r1", "inline", "c", "reviewer", "t"),
            "discussion[0].id",
        ),
        (ReviewNote(f"{PR}:discussion_r1", "thread", "c", "reviewer", "t"), "discussion[0].kind"),
        (note(state="merged"), "discussion[0].state"),
        (note(accepted="maybe"), "discussion[0].accepted"),
        (note(path="a\nb"), "discussion[0].path"),
        (note(line=0), "discussion[0].line"),
        (note(text="x" * 5000), "discussion[0].text"),
    ],
)
def test_bad_notes_name_their_field(bad: ReviewNote, field: str) -> None:
    with pytest.raises(InvalidRequestError) as info:
        event(PR, discussion=(bad,)).check()
    assert info.value.field == f"event.{field}"


def test_the_excerpt_and_the_discussion_share_one_event_budget() -> None:
    half = DIFF_EVENT_BYTES // 2
    fits = event(PR, diff_excerpt="x" * half, discussion=(note(text="y" * (half - 20), path="p"),))
    fits.check()
    assert fits.evidence_bytes() <= DIFF_EVENT_BYTES
    with pytest.raises(InvalidRequestError) as info:
        event(PR, diff_excerpt="x" * (half + 1), discussion=(note(text="y" * half),)).check()
    assert info.value.field == "event.discussion" and "per event" in str(info.value)


def test_at_most_max_notes_per_event() -> None:
    many = tuple(note(f"discussion_r{n}") for n in range(1, MAX_NOTES + 2))
    with pytest.raises(InvalidRequestError):
        event(PR, discussion=many).check()


def test_the_batch_counts_discussions_and_refuses_a_note_id_twice() -> None:
    first = event(PR, discussion=(note(),))
    batch = KnowledgeEvidenceBatch([first, event("acme/app#13")], 3)
    assert batch.citable_ids == (PR, f"{PR}:discussion_r1", "acme/app#13")
    assert batch.source_ids == (PR, "acme/app#13")
    twice = KnowledgeEvidenceEvent(**{**first.__dict__, "discussion": (note(), note())})
    with pytest.raises(InvalidRequestError) as info:
        KnowledgeEvidenceBatch([twice], 3)
    assert info.value.field == "events[0].discussion[1].id"


def test_a_batch_round_trips_through_its_dict_form() -> None:
    full = note(association="MEMBER", state="changes_requested", accepted="suggestion",
                path="a.py", line=3, start_line=1, outdated=True, resolved=False,
                in_reply_to=f"{PR}:discussion_r9", at="2026-11-25T10:00:00Z", hunk="@@ x")  # fmt: skip
    batch = KnowledgeEvidenceBatch([event(PR, discussion=(full,), discussion_omitted=4)], 3)
    again = KnowledgeEvidenceBatch.from_dict(batch.to_dict())
    assert again == batch and again.events[0].discussion == (full,)
    assert again.events[0].discussion_omitted == 4


def test_from_dict_refuses_unknown_note_fields() -> None:
    data = KnowledgeEvidenceBatch([event(PR, discussion=(note(),))], 3).to_dict()
    data["events"][0]["discussion"][0]["score"] = 9
    with pytest.raises(InvalidRequestError) as info:
        KnowledgeEvidenceBatch.from_dict(data)
    assert info.value.field == "events[0].discussion[0]"
