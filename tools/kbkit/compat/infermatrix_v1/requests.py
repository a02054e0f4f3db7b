"""Check an SDK evidence batch and translate it into kbkit's batch (the SDK's request bounds)."""

from __future__ import annotations

import json
from pathlib import PurePosixPath
from typing import Any

from kbkit import curator as kb
from kbkit.compat.infermatrix_v1.models import (
    InvalidRequestError,
    KnowledgeEvidenceBatch,
    KnowledgeEvidenceEvent,
    RepositoryRef,
)

MAX_SOURCE_CHARS = 60
MAX_SUMMARY_CHARS = 3000
MAX_ATTRIBUTE_CHARS = 3000
MAX_CHANGED_PATHS = 50
# kbkit's event kinds; any other SDK source_kind travels as a lesson (the kind stays in the body).
_KINDS = {"merged_pr": "merged_pr", "bugfix_run": "bugfix_run", "lesson": "lesson"}


def _text(value: Any, name: str, limit: int) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        raise InvalidRequestError(f"{name} must be a string of 1..{limit} characters")
    return value.strip()


def repo_slug(repository: Any) -> str:
    """The folder under knowledge/repos/ that `repository` names (one path segment)."""
    alias = repository.alias if isinstance(repository, RepositoryRef) else None
    slug = alias.strip().replace("_", "-") if isinstance(alias, str) else ""
    path = PurePosixPath(slug)
    if not slug or path.is_absolute() or len(path.parts) != 1 or slug in {".", ".."}:
        raise InvalidRequestError("repository alias must be one knowledge repository slug")
    return slug


def _check_event(event: Any, seen_ids: set[str], seen_sources: set[str]) -> None:
    if not isinstance(event, KnowledgeEvidenceEvent):
        raise InvalidRequestError("every event must be a KnowledgeEvidenceEvent")
    event_id = _text(event.event_id, "event_id", 128)
    if event_id in seen_ids:
        raise InvalidRequestError(f"event_id {event_id!r} is not unique in the batch")
    _text(event.source_kind, "source_kind", 64)
    source = _text(event.source_reference, "source_reference", MAX_SOURCE_CHARS)
    if source in seen_sources:
        raise InvalidRequestError(f"source_reference {source!r} is not unique in the batch")
    _text(event.title, "event title", 500)
    if not isinstance(event.summary, str):
        raise InvalidRequestError(f"event {event_id!r}: summary must be a string")
    try:
        json.dumps(event.attributes, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise InvalidRequestError(
            f"event {event_id!r}: attributes must be JSON-serializable"
        ) from exc
    if isinstance(event.changed_paths, str) or not isinstance(event.changed_paths, tuple | list):
        raise InvalidRequestError(f"event {event_id!r}: changed_paths must be a sequence")
    for changed in event.changed_paths[:MAX_CHANGED_PATHS]:
        value = str(changed).strip().replace("\\", "/")
        path = PurePosixPath(value)
        if not value or path.is_absolute() or ".." in path.parts:
            raise InvalidRequestError(f"event {event_id!r} names a non-relative changed path")
    seen_ids.add(event_id)
    seen_sources.add(source)


def check_batch(batch: Any, *, max_events: int, max_rules: int) -> str:
    """Raise InvalidRequestError for a malformed batch; return its repository slug."""
    if not isinstance(batch, KnowledgeEvidenceBatch):
        raise InvalidRequestError("expected a KnowledgeEvidenceBatch")
    _text(batch.batch_id, "batch_id", 128)
    slug = repo_slug(batch.repository)
    if not batch.events:
        raise InvalidRequestError("the knowledge evidence batch must not be empty")
    if len(batch.events) > max_events:
        raise InvalidRequestError(
            f"the knowledge evidence batch holds {len(batch.events)} events, at most {max_events}"
        )
    if isinstance(batch.max_rules, bool) or not isinstance(batch.max_rules, int):
        raise InvalidRequestError("batch max_rules must be an integer")
    if not 1 <= batch.max_rules <= max_rules:
        raise InvalidRequestError(f"batch max_rules must be within 1..{max_rules}")
    seen_ids: set[str] = set()
    seen_sources: set[str] = set()
    for event in batch.events:
        _check_event(event, seen_ids, seen_sources)
    return slug


def fenced_json(value: object, indent: int | None = 2) -> str:
    """JSON whose `<` and `>` are escaped, so evidence can never close the data fence."""
    encoded = json.dumps(value, ensure_ascii=False, sort_keys=True, indent=indent)
    return encoded.replace("<", "\\u003c").replace(">", "\\u003e")


def _body(event: KnowledgeEvidenceEvent) -> str:
    attributes = json.dumps(event.attributes, ensure_ascii=False, sort_keys=True)
    return fenced_json(
        {
            "event_id": event.event_id,
            "source_kind": event.source_kind,
            "source_reference": event.source_reference,
            "title": event.title,
            "summary": event.summary[:MAX_SUMMARY_CHARS],
            "changed_paths": [str(p) for p in event.changed_paths[:MAX_CHANGED_PATHS]],
            "attributes_json": attributes[:MAX_ATTRIBUTE_CHARS],
        }
    )


def kbkit_batch(batch: KnowledgeEvidenceBatch, max_rules: int) -> kb.KnowledgeEvidenceBatch:
    """kbkit's batch for a checked SDK batch: the SDK event travels whole as the body."""
    repo = batch.repository.full_name or batch.repository.alias
    events = [
        kb.KnowledgeEvidenceEvent(
            kind=_KINDS.get(event.source_kind.strip(), "lesson"),
            source_id=event.source_reference.strip(),
            repo=repo.strip(),
            title=" ".join(event.title.split()),
            body=_body(event),
        )
        for event in batch.events
    ]
    return kb.KnowledgeEvidenceBatch(events, max_rules)
