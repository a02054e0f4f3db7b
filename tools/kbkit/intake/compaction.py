"""Compaction: rewrite a ledger atomically with duplicates folded and the same state.

Events keep one row per key (the row the fold picks); status keeps every distinct
transition once. Unreadable lines (torn writes) are dropped. Both rewrites happen under the
recording lock and the file's own append lock, then `os.replace`; under those locks the
temp files a killed compaction left are removed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from kbkit.infra.file_lock import locked
from kbkit.infra.jsonl import (
    atomic_write_bytes,
    encode_row,
    ignore_transient_files,
    remove_temp_files_of,
)
from kbkit.intake.ledger import (
    EVENTS_FILE,
    RECORD_LOCK,
    STATUS_FILE,
    LedgerProblem,
    Row,
    event_key,
    fold_events,
    fold_status,
    read_ledger,
)


class Compaction(NamedTuple):
    path: Path
    lines_before: int
    lines_after: int
    dropped: list[LedgerProblem]

    @property
    def changed(self) -> bool:
        return self.lines_before != self.lines_after or bool(self.dropped)


def _compact_events(rows: list[Row]) -> list[Row]:
    winners = fold_events(rows)
    kept: list[Row] = []
    for row in rows:
        key = event_key(row)
        if key is None:
            kept.append(row)  # not ours to judge: `kb intake check` reports it
        elif winners.get(key) is row:
            kept.append(row)
    return kept


def _compact_status(rows: list[Row]) -> list[Row]:
    seen: set[bytes] = set()
    kept: list[Row] = []
    for row in rows:
        line = encode_row(row)
        if line not in seen:
            seen.add(line)
            kept.append(row)
    return kept


def compact(intake_dir: Path, *, write: bool = True) -> list[Compaction]:
    """Compact both ledgers (or, with write=False, report what compaction would change)."""
    results = []
    if write and intake_dir.is_dir():
        ignore_transient_files(intake_dir)
    with locked(intake_dir / RECORD_LOCK):
        for name, shrink, fold in (
            (EVENTS_FILE, _compact_events, fold_events),
            (STATUS_FILE, _compact_status, fold_status),
        ):
            path = intake_dir / name
            if not path.exists():
                continue
            with locked(path):
                # Only compaction replaces a ledger, and only under this lock: any temp file
                # of the ledger now is what a killed compaction left (up to the ledger's size).
                if write:
                    remove_temp_files_of(path)
                rows, problems = read_ledger(intake_dir, name)
                kept = shrink(rows)
                if fold(kept) != fold(rows):  # a bug here must never cost a row
                    raise AssertionError(f"compaction of {path} would change its state")
                result = Compaction(path, len(rows) + len(problems), len(kept), problems)
                if write and result.changed:
                    atomic_write_bytes(path, b"".join(encode_row(row) for row in kept))
            results.append(result)
    return results


def rewrite_events(intake_dir: Path, change: Callable[[Row], Row | None]) -> int:
    """Replace event rows in place, atomically: `change(row)` returns the new row (same key)
    or None to keep it. For privacy rewrites (`kb lessons forget --purge`); under the same
    locks as compaction, which also drops unreadable lines. Returns how many rows changed."""
    path = intake_dir / EVENTS_FILE
    if not path.exists():
        return 0
    with locked(intake_dir / RECORD_LOCK), locked(path):
        remove_temp_files_of(path)
        rows, _problems = read_ledger(intake_dir, EVENTS_FILE)
        changed = 0
        kept: list[Row] = []
        for row in rows:
            new = change(row)
            if new is not None and new != row:
                if event_key(new) != event_key(row):
                    raise AssertionError("an event rewrite must keep the event's key")
                changed += 1
                row = new
            kept.append(row)
        if changed:
            atomic_write_bytes(path, b"".join(encode_row(row) for row in kept))
    return changed
