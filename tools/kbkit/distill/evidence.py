"""Ledger rows as curator evidence: one typed, bounded `KnowledgeEvidenceEvent` per row."""

from __future__ import annotations

from typing import Any

from kbkit.curator import InvalidRequestError, KnowledgeEvidenceEvent, ReviewNote
from kbkit.curator.events import DIFF_EVENT_BYTES, TEXT_BYTES
from kbkit.curator.review_notes import MAX_NOTES
from kbkit.infra.charset import visible


def to_event(row: dict[str, Any]) -> KnowledgeEvidenceEvent:
    """The curator event of a ledger row; long text is cut to the curator's bounds, never
    refused. Raises InvalidRequestError for a row no cut can save (e.g. a bad source id)."""
    kind = str(row.get("source_kind"))
    raw = row.get("record")
    record: dict[str, Any] = raw if isinstance(raw, dict) else {}
    created = merged = None
    if kind == "bugfix_run":
        parts = [f"Pull request: #{record['pr']}"] if record.get("pr") else []
        for group in record.get("groups") or []:
            parts += [
                f"Signature: {group.get('signature', '')}",
                f"Root cause: {group.get('root_cause', '')}",
                f"Fix: {group.get('fix_summary', '')}",
                f"Verification: {group.get('verification', '')}",
                f"Files: {', '.join(map(str, group.get('files') or []))}",
                "",
            ]
        body = "\n".join(parts).strip()
        created = record.get("created_at")
    else:
        body = str(row.get("summary") or row.get("body") or row.get("text") or "")
        merged, created = row.get("merged_at"), row.get("created_at")
    diff = str(row.get("diff_excerpt") or "") or None
    diff = cut(diff, "diff_excerpt") if diff else None
    notes, omitted = review_notes(row, len((diff or "").encode()))
    event = KnowledgeEvidenceEvent(
        kind=kind,
        source_id=str(row.get("source_id")),
        # promoted lessons carry `repo: null`: they come from the lessons store, not a repo
        repo=str(
            row.get("repo") or record.get("repo") or ("lessons" if kind == "lesson" else "unknown")
        ),
        # invisible and control characters become visible tokens: a title carrying them is
        # neutralised evidence, not an unusable row
        title=cut(
            visible(" ".join(str(row.get("title") or row.get("source_id")).split())), "title"
        ),
        body=cut(body, "body"),
        diff_excerpt=diff,
        url=str(row["url"]) if row.get("url") else None,
        created_at=str(created) if created else None,
        merged_at=str(merged) if merged else None,
        discussion=notes,
        discussion_omitted=omitted,
    )
    event.check()
    return event


def review_notes(row: dict[str, Any], used: int) -> tuple[tuple[ReviewNote, ...], int]:
    """The row's review notes (as intake ranked them) that fit the event's budget beside
    `used` bytes of excerpt, and how many were left out; a malformed note is left out too."""
    raw = row.get("discussion")
    if not isinstance(raw, dict) or not isinstance(raw.get("notes"), list):
        return (), 0
    found = raw["notes"]
    notes: list[ReviewNote] = []
    for index, item in enumerate(found[:MAX_NOTES]):
        try:
            note = ReviewNote.from_dict(item, f"discussion[{index}]")
            note.check(f"discussion[{index}]", str(row.get("source_id")))
        except (InvalidRequestError, TypeError):
            continue
        if used + note.size() <= DIFF_EVENT_BYTES:
            notes.append(note)
            used += note.size()
    left = raw.get("omitted")
    left = left if type(left) is int and left > 0 else 0  # intake's count, then ours
    return tuple(notes), left + len(found) - len(notes)


def cut(text: str, field: str) -> str:
    """`text` within the curator's byte limit for `field`, cut on a character boundary."""
    limit = DIFF_EVENT_BYTES if field == "diff_excerpt" else TEXT_BYTES[field]
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[: limit - 4].decode("utf-8", "ignore") + " …"
