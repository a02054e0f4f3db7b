"""Evidence events and the bounded batch the curator is asked to distill."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kbkit.curator.errors import InvalidRequestError
from kbkit.curator.review_notes import MAX_NOTES, ReviewNote

KINDS = ("merged_pr", "bugfix_run", "lesson")
MAX_EVENTS = 20
MAX_RULES = 20
DIFF_EVENT_BYTES = 8 * 1024
DIFF_BATCH_BYTES = 160 * 1024
TEXT_BYTES = {"source_id": 200, "repo": 200, "title": 500, "body": 16 * 1024, "url": 2000}
TIMESTAMP = re.compile(
    r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$"
)
# Control characters other than tab and newline never belong in an identifier or a title.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
EVENT_FIELDS = (
    "kind",
    "source_id",
    "repo",
    "title",
    "body",
    "diff_excerpt",
    "url",
    "created_at",
    "merged_at",
    "discussion",
    "discussion_omitted",
)


def _size(value: str) -> int:
    return len(value.encode("utf-8"))


def _text(name: str, value: Any, *, required: bool, one_line: bool) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise InvalidRequestError(f"expected a string, got {type(value).__name__}", field=name)
    base = name.rsplit(".", 1)[-1]
    if required and not value.strip():
        raise InvalidRequestError("must not be empty", field=name)
    limit = TEXT_BYTES.get(base)
    if limit is not None and _size(value) > limit:
        raise InvalidRequestError(f"{_size(value)} bytes, at most {limit} allowed", field=name)
    if one_line and ("\n" in value or _CONTROL.search(value)):
        raise InvalidRequestError("must be one line without control characters", field=name)
    return value


@dataclass(frozen=True)
class KnowledgeEvidenceEvent:
    """One source event: a merged PR, a verified bugfix run or a lesson."""

    kind: str
    source_id: str  # cited in rules as `^[<source_id>]`, e.g. "PR #12"
    repo: str
    title: str
    body: str = ""  # the PR body, the fix summary or the lesson text
    diff_excerpt: str | None = None
    url: str | None = None
    created_at: str | None = None
    merged_at: str | None = None
    # a merged PR's review discussion (kbkit.curator.review_notes), ranked; it shares
    # DIFF_EVENT_BYTES with diff_excerpt
    discussion: tuple[ReviewNote, ...] = ()
    discussion_omitted: int = 0  # notes left out for the budget

    def evidence_bytes(self) -> int:
        """What the event holds of the batch's byte bound: the excerpt and the notes."""
        return _size(self.diff_excerpt or "") + sum(note.size() for note in self.discussion)

    def citable_ids(self) -> tuple[str, ...]:
        """What a rule may cite of this event: its source ID and its notes' ids."""
        return (self.source_id, *(note.id for note in self.discussion))

    def check(self, where: str = "event") -> None:
        """Raise InvalidRequestError naming the first bad field."""
        if self.kind not in KINDS:
            raise InvalidRequestError(
                f"{self.kind!r} is not one of {', '.join(KINDS)}", field=f"{where}.kind"
            )
        _text(f"{where}.source_id", self.source_id, required=True, one_line=True)
        if any(c in self.source_id for c in "[]^;"):
            raise InvalidRequestError(
                "must not contain '[', ']', '^' or ';' (it is cited inside ^[...])",
                field=f"{where}.source_id",
            )
        _text(f"{where}.repo", self.repo, required=True, one_line=True)
        _text(f"{where}.title", self.title, required=True, one_line=True)
        _text(f"{where}.body", self.body, required=False, one_line=False)
        _text(f"{where}.url", self.url, required=False, one_line=True)
        if self.diff_excerpt is not None:
            _text(f"{where}.diff_excerpt", self.diff_excerpt, required=False, one_line=False)
            if _size(self.diff_excerpt) > DIFF_EVENT_BYTES:
                raise InvalidRequestError(
                    f"{_size(self.diff_excerpt)} bytes, at most {DIFF_EVENT_BYTES} per event",
                    field=f"{where}.diff_excerpt",
                )
        for name in ("created_at", "merged_at"):
            value = _text(f"{where}.{name}", getattr(self, name), required=False, one_line=True)
            if value is not None and not TIMESTAMP.match(value):
                raise InvalidRequestError(
                    f"{value!r} is not an ISO date or timestamp", field=f"{where}.{name}"
                )
        self._check_discussion(where)

    def _check_discussion(self, where: str) -> None:
        if not isinstance(self.discussion, tuple) or len(self.discussion) > MAX_NOTES:
            raise InvalidRequestError(
                f"expected a tuple of at most {MAX_NOTES} ReviewNotes", field=f"{where}.discussion"
            )
        for index, note in enumerate(self.discussion):
            if not isinstance(note, ReviewNote):
                raise InvalidRequestError(
                    "expected a ReviewNote", field=f"{where}.discussion[{index}]"
                )
            note.check(f"{where}.discussion[{index}]", self.source_id)
        if type(self.discussion_omitted) is not int or self.discussion_omitted < 0:
            raise InvalidRequestError("expected a count", field=f"{where}.discussion_omitted")
        if self.evidence_bytes() > DIFF_EVENT_BYTES:
            raise InvalidRequestError(
                f"{self.evidence_bytes()} bytes of diff excerpt and discussion, at most "
                f"{DIFF_EVENT_BYTES} per event",
                field=f"{where}.discussion",
            )

    def to_dict(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in EVENT_FIELDS}
        data["discussion"] = [note.to_dict() for note in self.discussion]
        return data

    @classmethod
    def from_dict(cls, data: Any, where: str = "event") -> KnowledgeEvidenceEvent:
        if not isinstance(data, dict):
            raise InvalidRequestError("expected a JSON object", field=where)
        unknown = sorted(set(data) - set(EVENT_FIELDS) - {"summary"})
        if unknown:
            raise InvalidRequestError(f"unknown field(s) {', '.join(unknown)}", field=where)
        for name in ("kind", "source_id", "repo", "title"):
            if name not in data:
                raise InvalidRequestError("is required", field=f"{where}.{name}")
        values = {name: data.get(name) for name in EVENT_FIELDS}
        if values["body"] is None:
            values["body"] = data.get("summary", "")
        notes = values["discussion"] or []
        if not isinstance(notes, list):
            raise InvalidRequestError("expected a list of notes", field=f"{where}.discussion")
        values["discussion"] = tuple(
            ReviewNote.from_dict(n, f"{where}.discussion[{i}]") for i, n in enumerate(notes)
        )
        values["discussion_omitted"] = values["discussion_omitted"] or 0
        event = cls(**values)  # type: ignore[arg-type]  # checked just below
        event.check(where)
        return event


@dataclass(frozen=True)
class KnowledgeEvidenceBatch:
    """At most MAX_EVENTS events (one model call) and how many rules may come back."""

    events: tuple[KnowledgeEvidenceEvent, ...]
    max_rules: int = 5
    source_ids: tuple[str, ...] = field(init=False, repr=False, compare=False)
    # what a rule may cite: the source IDs and the ids of the events' review notes
    citable_ids: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __init__(self, events: Any, max_rules: int = 5):
        object.__setattr__(self, "events", tuple(events))
        object.__setattr__(self, "max_rules", max_rules)
        object.__setattr__(self, "source_ids", tuple(e.source_id for e in self.events))
        self.check()
        citable = tuple(i for e in self.events for i in e.citable_ids())
        object.__setattr__(self, "citable_ids", citable)

    def check(self) -> None:
        if not self.events:
            raise InvalidRequestError("a batch needs at least one event", field="events")
        if len(self.events) > MAX_EVENTS:
            raise InvalidRequestError(
                f"{len(self.events)} events, at most {MAX_EVENTS} per batch", field="events"
            )
        if isinstance(self.max_rules, bool) or not isinstance(self.max_rules, int):
            raise InvalidRequestError("expected an integer", field="max_rules")
        if not 1 <= self.max_rules <= MAX_RULES:
            raise InvalidRequestError(f"must be between 1 and {MAX_RULES}", field="max_rules")
        seen: set[str] = set()
        cited: set[str] = set()
        total = 0
        for index, event in enumerate(self.events):
            if not isinstance(event, KnowledgeEvidenceEvent):
                raise InvalidRequestError(
                    "expected a KnowledgeEvidenceEvent", field=f"events[{index}]"
                )
            event.check(f"events[{index}]")
            if event.source_id in seen:
                raise InvalidRequestError(
                    f"duplicate source id {event.source_id!r}", field=f"events[{index}].source_id"
                )
            seen.add(event.source_id)
            for note_index, note in enumerate(event.discussion):
                if note.id in cited:
                    raise InvalidRequestError(
                        f"duplicate note id {note.id!r}",
                        field=f"events[{index}].discussion[{note_index}].id",
                    )
                cited.add(note.id)
            total += event.evidence_bytes()
        if total > DIFF_BATCH_BYTES:
            raise InvalidRequestError(
                f"{total} bytes of diff excerpts and discussions, at most {DIFF_BATCH_BYTES} "
                "per batch",
                field="events[].diff_excerpt",
            )

    def to_dict(self) -> dict[str, Any]:
        return {"events": [e.to_dict() for e in self.events], "max_rules": self.max_rules}

    @classmethod
    def from_dict(cls, data: Any) -> KnowledgeEvidenceBatch:
        if not isinstance(data, dict):
            raise InvalidRequestError("expected a JSON object with 'events'", field="batch")
        unknown = sorted(set(data) - {"events", "max_rules"})
        if unknown:
            raise InvalidRequestError(f"unknown field(s) {', '.join(unknown)}", field="batch")
        raw = data.get("events")
        if not isinstance(raw, list):
            raise InvalidRequestError("expected a list of events", field="events")
        events = [KnowledgeEvidenceEvent.from_dict(e, f"events[{i}]") for i, e in enumerate(raw)]
        return cls(events, data.get("max_rules", 5))
