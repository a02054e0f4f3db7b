"""Select the batch: pending rows -> at most `max_events` curator events within the curator's
byte bounds; rows past the attempt cap or unusable as evidence are marked failed on the way.

When more is pending than one batch holds, the newest events go first (by when they happened:
a PR's merge, a run's creation): a lesson is worth most while its authors remember the
change and its reviewers still look at that code, and a first run or a backfill brings in
history that would otherwise push this week's work back by weeks. What waits is said (how
many, and the oldest), so a team can drain a backlog with extra runs by hand.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import NamedTuple

from kbkit.curator import InvalidRequestError, KnowledgeEvidenceEvent
from kbkit.curator.events import DIFF_BATCH_BYTES
from kbkit.distill.evidence import to_event
from kbkit.distill.rows import mark
from kbkit.distill.session import Options
from kbkit.intake.ledger import Key, PendingEvent, Row, pending_events


class Taken(NamedTuple):
    key: Key
    attempts: int
    status: Row | None  # the row's current status (None: never marked)


class Selection(NamedTuple):
    events: list[KnowledgeEvidenceEvent]  # sorted by (kind, source id)
    rows: dict[str, Taken]  # by source id
    waiting: tuple[Row, ...] = ()  # pending events left for later batches, newest first
    skipped: tuple[tuple[Key, str], ...] = ()  # marked skipped by triage on the way: why

    def keys(self) -> list[Key]:
        """The batch's ledger keys, in event order."""
        return [self.rows[e.source_id].key for e in self.events]


def select_batch(o: Options, skip: Collection[Key]) -> Selection:
    """The next batch of pending rows, leaving out `skip` (rows of committed batches)."""
    events: list[KnowledgeEvidenceEvent] = []
    rows: dict[str, Taken] = {}
    diff_total = 0
    waiting: list[Row] = []
    skipped: list[tuple[Key, str]] = []
    for item in sorted(pending_events(o.intake_dir), key=_when, reverse=True):  # newest first
        key: Key = (item.event["source_kind"], item.event["source_id"])
        if key in skip:
            continue
        why = None if item.attempts or _requeued(item.status) else o.triage.reason(item.event)
        if why is not None:  # no rule expected: no model call, no attempt
            if not o.dry_run:
                mark(o.intake_dir, key, "skipped", attempts=item.attempts, previous=item.status, reason=why)  # fmt: skip
            skipped.append((key, why))
            continue
        if item.attempts >= o.max_attempts:
            if not o.dry_run:
                reason = f"attempt cap {o.max_attempts} reached"
                mark(
                    o.intake_dir,
                    key,
                    "failed",
                    attempts=item.attempts,
                    previous=item.status,
                    reason=reason,
                )
            continue
        try:
            event = to_event(item.event)
        except InvalidRequestError as exc:
            if not o.dry_run:
                reason = f"unusable event: {exc}"
                mark(
                    o.intake_dir,
                    key,
                    "failed",
                    attempts=item.attempts + 1,
                    previous=item.status,
                    reason=reason,
                )
            continue
        if event.source_id in rows:
            continue  # two kinds share a source id: one batch can cite it once; next batch
        size = event.evidence_bytes()  # the diff excerpt and the review discussion
        if len(events) >= o.max_events or diff_total + size > DIFF_BATCH_BYTES:
            waiting.append(item.event)
            continue
        diff_total += size
        events.append(event)
        rows[event.source_id] = Taken(key, item.attempts, item.status)
    events.sort(key=lambda e: (e.kind, e.source_id))  # a stable prompt for a stable request hash
    return Selection(events, rows, tuple(waiting), tuple(skipped))


def _requeued(status: Row | None) -> bool:
    """A row a person returned to pending (`kb intake requeue`): triage lets it through."""
    return bool(status) and str((status or {}).get("reason", "")).startswith("requeued")


def happened(event: Row) -> str:
    """When the event happened: a PR's merge, a run's creation, else when it was recorded."""
    record = event.get("record")
    created = record.get("created_at") if isinstance(record, dict) else None
    return str(event.get("merged_at") or created or event.get("recorded_at") or "")


def _when(item: PendingEvent) -> tuple[str, str, str]:
    """Sort key: when it happened, then kind and source id (a later PR number ties later)."""
    event = item.event
    return happened(event), str(event.get("source_kind")), str(event.get("source_id"))
