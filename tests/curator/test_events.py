"""Evidence events and batches: bounds and field-naming errors."""

from __future__ import annotations

import pytest

from kbkit.curator import InvalidRequestError, KnowledgeEvidenceBatch, KnowledgeEvidenceEvent
from kbkit.curator.events import DIFF_BATCH_BYTES, DIFF_EVENT_BYTES, MAX_EVENTS
from tests.curator.conftest import event


def test_batch_round_trips_through_to_dict() -> None:
    batch = KnowledgeEvidenceBatch([event("PR #1", diff_excerpt="+x", url="https://e/1")], 3)
    again = KnowledgeEvidenceBatch.from_dict(batch.to_dict())
    assert again == batch
    assert again.to_dict() == batch.to_dict()
    assert again.source_ids == ("PR #1",)


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: KnowledgeEvidenceBatch([], 1), "events"),
        (
            lambda: KnowledgeEvidenceBatch([event(f"PR #{i}") for i in range(MAX_EVENTS + 1)]),
            "events",
        ),
        (lambda: KnowledgeEvidenceBatch([event("PR #1"), event("PR #1")]), "events[1].source_id"),
        (lambda: KnowledgeEvidenceBatch([event()], 0), "max_rules"),
        (lambda: KnowledgeEvidenceBatch([event(kind="tweet")]), "events[0].kind"),
        (lambda: KnowledgeEvidenceBatch([event(title="")]), "events[0].title"),
        (lambda: KnowledgeEvidenceBatch([event(title="a\nb")]), "events[0].title"),
        (lambda: KnowledgeEvidenceBatch([event(source_id="PR ]1")]), "events[0].source_id"),
        (lambda: KnowledgeEvidenceBatch([event(merged_at="yesterday")]), "events[0].merged_at"),
        (
            lambda: KnowledgeEvidenceBatch([event(diff_excerpt="x" * (DIFF_EVENT_BYTES + 1))]),
            "events[0].diff_excerpt",
        ),
    ],
)
def test_bad_requests_name_the_field(make, field: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidRequestError) as info:
        make()
    assert info.value.field == field
    assert str(info.value).startswith(field)


def test_batch_bound_is_exactly_160_kib(monkeypatch: pytest.MonkeyPatch) -> None:
    per = DIFF_BATCH_BYTES // 20
    assert per == DIFF_EVENT_BYTES  # 20 full excerpts fit: one model call
    KnowledgeEvidenceBatch([event(f"PR #{i}", diff_excerpt="x" * per) for i in range(20)])
    monkeypatch.setattr("kbkit.curator.events.DIFF_BATCH_BYTES", per * 3)
    with pytest.raises(InvalidRequestError) as info:
        KnowledgeEvidenceBatch([event(f"PR #{i}", diff_excerpt="é" * (per // 2)) for i in range(4)])
    assert info.value.field == "events[].diff_excerpt"


def test_from_dict_rejects_unknown_fields_and_accepts_summary() -> None:
    data = {"kind": "lesson", "source_id": "L-1", "repo": "r", "title": "t", "summary": "s"}
    assert KnowledgeEvidenceEvent.from_dict(data).body == "s"
    with pytest.raises(InvalidRequestError, match="unknown field"):
        KnowledgeEvidenceEvent.from_dict({**data, "path": "/etc/passwd"})
    with pytest.raises(InvalidRequestError, match="events.0..repo|is required"):
        KnowledgeEvidenceBatch.from_dict(
            {"events": [{"kind": "lesson", "source_id": "x", "title": "t"}]}
        )
