"""The intake ledgers: reading, folding and appending events and status transitions.

`events.jsonl` holds one row per source event, unique per (source_kind, source_id);
`status.jsonl` holds appended state transitions. Nothing is rewritten in place: the current
state is a fold of the logs, and the fold is independent of line order, so the duplicated
or interleaved lines a `merge=union` leaves behind are harmless.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.infra.clock import timestamp as timestamp
from kbkit.infra.errors import UsageError
from kbkit.infra.file_lock import locked
from kbkit.infra.jsonl import append_rows, append_together, gc_paused

# re-exported, so the whole ledger API is importable from this module
from kbkit.intake.ledger_reading import LedgerProblem as LedgerProblem
from kbkit.intake.ledger_reading import read_ledger as read_ledger

EVENTS_FILE = "events.jsonl"
STATUS_FILE = "status.jsonl"
RECORD_LOCK = "record"  # guards read-check-append of events.jsonl across processes
STATES = ("pending", "published", "shadowed", "failed", "rejected", "skipped")
# Between two transitions written from the same read (two hosts at once), the further state
# wins: the fold never moves backwards. `rejected` (a human closed the knowledge PR that
# listed the event without merging it) is a later word than `published` by that PR.
# `skipped` (triage: no rule expected, decided before any model call) yields to every word
# a model or a person gave on the same read.
_RANK = {"pending": 0, "failed": 1, "skipped": 2, "shadowed": 3, "published": 4, "rejected": 5}

Key = tuple[str, str]
Row = dict[str, Any]


class RecordResult(NamedTuple):
    """The keys appended by one recording, and the keys that were already recorded."""

    added: list[Key]
    already: list[Key]
    problems: list[LedgerProblem]  # unreadable lines met in events.jsonl (e.g. a torn tail)


class PendingEvent(NamedTuple):
    """An event waiting for distill, with the attempts made so far."""

    event: Row
    attempts: int
    since: str
    status: Row | None = None  # the transition it was read in (None: recorded, no status row)


def sequence(row: Mapping[str, Any] | None) -> int:
    """The causal position of a transition: its `seq`, written as one more than the `seq` of
    the transition its writer read. Rows written before `seq` existed count their attempts.
    """
    if row is None:
        return 0  # no status row reads as the pending row `record_events` writes
    seq = row.get("seq")
    if type(seq) is int:
        return seq
    attempts = row.get("attempts")
    return attempts if type(attempts) is int else 0


# Where a source id's repository ends: `owner/name#12` (a PR), `owner/name:RUN` (a bugfix run)
_REPO_END = {"merged_pr": "#", "bugfix_run": ":"}


def same_source(kind: str, source_id: str) -> Key:
    """The key every spelling of one source shares: the repository part of its id folded to
    lower case (GitHub's names compare so; rows written before kbkit normalized slugs may
    say `Acme/App#3` where newer ones say `acme/app#3`). For comparing only: rows keep the
    spelling they were written with, and the folds key them by it."""
    end = _REPO_END.get(kind)
    cut = source_id.find(end) if end else -1
    if cut <= 0:
        return kind, source_id
    return kind, source_id[:cut].lower() + source_id[cut:]


def legacy_run_key(row: Row) -> Key | None:
    """The key a bugfix run recorded before its id carried the repository (`source_id` the
    bare run id) has today (`owner/name:RUN`), so a re-drop of it is no new event."""
    if row.get("source_kind") != "bugfix_run":
        return None
    source_id, repo = row.get("source_id"), row.get("repo")
    if type(source_id) is not str or ":" in source_id or type(repo) is not str:
        return None
    return same_source("bugfix_run", f"{repo}:{source_id}")


def event_key(row: Row) -> Key | None:
    """(source_kind, source_id), or None when the row does not carry both as strings."""
    kind, source_id = row.get("source_kind"), row.get("source_id")
    if isinstance(kind, str) and isinstance(source_id, str):
        return kind, source_id
    return None


def _canonical(row: Row) -> str:
    return json.dumps(row, sort_keys=True, ensure_ascii=False)


def fold_events(rows: Iterable[Row]) -> dict[Key, Row]:
    """One row per key: its highest `revision` (a re-read on demand; none is 0), of those the
    earliest recorded, ties broken by content (order-independent)."""
    with gc_paused():  # 100k key tuples would trigger full collections over every row
        return _fold_events(rows)


def _fold_events(rows: Iterable[Row]) -> dict[Key, Row]:
    folded: dict[Key, Row] = {}
    respelled = False  # whether some row's key is not its own spelling
    for row in rows:
        kind, source_id = row.get("source_kind"), row.get("source_id")
        if type(kind) is not str or type(source_id) is not str:
            continue
        if source_id.islower() or kind not in _REPO_END:  # the common case, and the cheap one
            key = (kind, source_id)
        else:  # two spellings of one repository: one event
            key = same_source(kind, source_id)
            respelled = respelled or key[1] != source_id
        current = folded.get(key)
        if current is None:
            folded[key] = row
            continue
        if _precedes(row, current):
            folded[key] = row
    if not respelled:
        return folded
    # keyed by the winner's own spelling, which its status rows carry
    return {(key[0], row["source_id"]): row for key, row in folded.items()}


def revision(row: Row) -> int:
    """How many times the event was re-read (`kb intake record-prs --reread`)."""
    value = row.get("revision")
    return value if type(value) is int and value > 0 else 0


def _precedes(row: Row, current: Row) -> bool:
    """Whether `row` wins over `current` for their key (only two rows of a key meet here)."""
    mine, theirs = revision(row), revision(current)
    if mine != theirs:
        return mine > theirs
    at, other = str(row.get("recorded_at", "")), str(current.get("recorded_at", ""))
    return at < other or (at == other and _canonical(row) < _canonical(current))


def fold_status(rows: Iterable[Row]) -> dict[Key, Row]:
    """The current transition per key: highest `seq`, then the furthest state, then latest `at`.

    Order comes from what each writer read (`seq`), never from clocks: a host whose clock runs
    a year ahead cannot pin a key, and a union of two hosts' logs folds alike in any order.
    """
    with gc_paused():
        return _fold_status(rows)


def _fold_status(rows: Iterable[Row]) -> dict[Key, Row]:
    folded: dict[Key, Row] = {}
    order: dict[Key, tuple[int, int, str]] = {}
    rank = _RANK.get
    for row in rows:
        kind, source_id = row.get("source_kind"), row.get("source_id")
        if type(kind) is not str or type(source_id) is not str:
            continue
        key = (kind, source_id)
        mine = (
            sequence(row),
            rank(row.get("state"), -1),  # type: ignore[arg-type]
            str(row.get("at", "")),
        )
        theirs = order.get(key)
        if (
            theirs is None
            or mine > theirs
            or (mine == theirs and _canonical(row) > _canonical(folded[key]))
        ):
            folded[key] = row
            order[key] = mine
    return folded


def load_events(intake_dir: Path) -> dict[Key, Row]:
    """The folded events ledger."""
    return fold_events(read_ledger(intake_dir, EVENTS_FILE)[0])


def load_status(intake_dir: Path) -> dict[Key, Row]:
    """The folded status ledger: the current transition of every event that has one."""
    return fold_status(read_ledger(intake_dir, STATUS_FILE)[0])


def pending_status(key: Key, at: str) -> Row:
    return {
        "source_kind": key[0],
        "source_id": key[1],
        "state": "pending",
        "attempts": 0,
        "seq": 0,
        "batch_id": None,
        "at": at,
    }


def known_sources(events: Iterable[Row]) -> set[Key]:
    """What `same_source` makes of every recorded event (and of a bugfix run recorded under
    its bare run id, its key with the repository): a new row whose `same_source` is in
    here is already recorded."""
    known: set[Key] = set()
    for row in events:
        key = event_key(row)
        if key is not None:
            known.add(same_source(*key))
        legacy = legacy_run_key(row)
        if legacy is not None:
            known.add(legacy)
    return known


def record_events(intake_dir: Path, rows: Iterable[Row]) -> RecordResult:
    """Append the rows whose key is not recorded yet, each with a `pending` status row.

    The whole read-check-append runs under one lock, so concurrent recorders never add a
    key twice; a crash between the two appends leaves an event without status, which the
    fold reads as pending, so nothing is lost.
    """
    with locked(intake_dir / RECORD_LOCK), gc_paused():
        existing, problems = read_ledger(intake_dir, EVENTS_FILE)
        known = known_sources(fold_events(existing).values())
        fresh: list[Row] = []
        added: list[Key] = []
        already: list[Key] = []
        for row in rows:
            kind, source_id = row.get("source_kind"), row.get("source_id")
            if type(kind) is not str or type(source_id) is not str:
                raise ValueError(f"event row without source_kind/source_id: {row!r:.200}")
            key, same = (kind, source_id), same_source(kind, source_id)
            if same in known:
                already.append(key)
                continue
            known.add(same)
            fresh.append(row)
            added.append(key)
        now = timestamp()
        # both files or neither: a full disk leaves the ledgers exactly as they were
        append_together(
            [
                (intake_dir / EVENTS_FILE, fresh),
                (intake_dir / STATUS_FILE, [pending_status(key, now) for key in added]),
            ]
        )
    return RecordResult(added, already, problems)


def append_status(
    intake_dir: Path,
    source_kind: str,
    source_id: str,
    state: str,
    *,
    attempts: int,
    previous: Mapping[str, Any] | None,
    batch_id: str | None = None,
    reason: str | None = None,
    url: str | None = None,
    at: str | None = None,
) -> Row:
    """Append one transition to status.jsonl and return the row written.

    `previous` is the transition the caller read for this key (None: none was there); the new
    row's `seq` is one more than its, which is what orders it after `previous` in the fold.
    """
    if state not in STATES:
        raise UsageError(f"unknown intake state {state!r}; use one of {', '.join(STATES)}")
    if attempts < 0:
        raise UsageError(f"attempts must be >= 0, got {attempts}")
    row: Row = {
        "source_kind": source_kind,
        "source_id": source_id,
        "state": state,
        "attempts": attempts,
        "seq": sequence(previous) + 1,
        "batch_id": batch_id,
        "at": at or timestamp(),
    }
    if reason is not None:
        row["reason"] = reason
    if url is not None:
        row["url"] = url
    append_rows(intake_dir / STATUS_FILE, [row])
    return row


def pending_events(intake_dir: Path, *, max_attempts: int | None = None) -> list[PendingEvent]:
    """Events whose current state is pending (no status row counts as pending), oldest first.

    With `max_attempts`, events already tried that many times are left out.
    """
    status = load_status(intake_dir)
    pending: list[PendingEvent] = []
    for key, event in load_events(intake_dir).items():
        current = status.get(key)
        if current is not None and current.get("state") != "pending":
            continue
        raw = current.get("attempts", 0) if current else 0
        attempts = raw if type(raw) is int else 0  # as the fold reads a hand-edited row
        if max_attempts is not None and attempts >= max_attempts:
            continue
        since = str(current.get("at")) if current else str(event.get("recorded_at", ""))
        pending.append(PendingEvent(event, attempts, since, current))
    pending.sort(key=lambda p: (str(p.event.get("recorded_at", "")), event_key(p.event)))
    return pending
