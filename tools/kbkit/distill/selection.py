"""Select the batch: pending rows -> at most `max_events` curator events within the curator's
byte bounds; rows past the attempt cap or unusable as evidence are marked failed on the way."""

from __future__ import annotations

from collections.abc import Collection
from typing import NamedTuple

from kbkit.curator import InvalidRequestError, KnowledgeEvidenceEvent
from kbkit.curator.events import DIFF_BATCH_BYTES
from kbkit.distill.evidence import to_event
from kbkit.distill.rows import mark
from kbkit.distill.session import Options
from kbkit.intake.ledger import Key, Row, pending_events


class Taken(NamedTuple):
    key: Key
    attempts: int
    status: Row | None  # the row's current status (None: never marked)


class Selection(NamedTuple):
    events: list[KnowledgeEvidenceEvent]  # sorted by (kind, source id)
    rows: dict[str, Taken]  # by source id

    def keys(self) -> list[Key]:
        """The batch's ledger keys, in event order."""
        return [self.rows[e.source_id].key for e in self.events]


def select_batch(o: Options, skip: Collection[Key]) -> Selection:
    """The next batch of pending rows, leaving out `skip` (rows of committed batches)."""
    events: list[KnowledgeEvidenceEvent] = []
    rows: dict[str, Taken] = {}
    diff_total = 0
    for item in pending_events(o.intake_dir):
        key: Key = (item.event["source_kind"], item.event["source_id"])
        if key in skip:
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
            break
        diff_total += size
        events.append(event)
        rows[event.source_id] = Taken(key, item.attempts, item.status)
    events.sort(key=lambda e: (e.kind, e.source_id))  # a stable prompt for a stable request hash
    return Selection(events, rows)
