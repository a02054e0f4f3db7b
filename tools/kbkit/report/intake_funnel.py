"""Intake funnel: events per day by kind, current states and their age, attempts, cursor."""

from __future__ import annotations

import functools
import re
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

from kbkit.intake.ledger import (
    EVENTS_FILE,
    STATES,
    STATUS_FILE,
    Key,
    Row,
    fold_events,
    fold_status,
    read_ledger,
)
from kbkit.intake.merged_prs import read_cursor, scan_since
from kbkit.report.window import Window

AGE_BUCKETS = ((0, 1), (1, 7), (7, 30), (30, None))
MAX_ARRIVED = 50  # events listed one by one (newest first); the counts cover the window
_URL = re.compile(r"https://[A-Za-z0-9.-]+(?::[0-9]+)?/[^\s<>\"'`\\]*")


class Ledgers:
    """Both ledgers folded once; the curator section reads the status rows too."""

    def __init__(self, intake_dir: Path, shown: str | None = None):
        """`shown`: how problems name the ledger folder (default: its path)."""
        self.dir = intake_dir
        event_rows, event_problems = read_ledger(intake_dir, EVENTS_FILE)
        self.status_rows, status_problems = read_ledger(intake_dir, STATUS_FILE)
        self.events: dict[Key, Row] = fold_events(event_rows)
        self.status: dict[Key, Row] = fold_status(self.status_rows)
        self.problems = [
            f"{f'{shown}/{p.path.name}' if shown else p.path}:{p.line}: {p.message}"
            for p in event_problems + status_problems
        ]


def _age_label(low: int, high: int | None) -> str:
    return f"{low}-{high} d" if high is not None else f">= {low} d"


@functools.lru_cache(maxsize=65536)  # transitions of one batch share their timestamp
def _days(since: str, now: datetime) -> float | None:
    try:
        moment = datetime.fromisoformat(since.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (now - moment).total_seconds() / 86400


def collect(
    ledgers: Ledgers, window: Window, now: datetime, source: str, limit: int | None = MAX_ARRIVED
) -> dict[str, Any]:
    """Aggregate the folded ledgers; per-day figures and the event list are limited to the
    window. The state figures are `kb intake status`'s (`kbkit.intake.ledger_summary`)."""
    per_day: dict[str, Counter[str]] = {day: Counter() for day in window.days()}
    kinds: set[str] = set()
    by_kind: dict[str, Counter[str]] = {}
    ages = {state: [0] * len(AGE_BUCKETS) for state in STATES}
    attempts: Counter[int] = Counter()
    gave_up = 0  # failed events distill tried and stopped at its attempt cap
    last_success = ""  # the newest published or shadowed transition: distill's last success
    oldest: tuple[str, Key, Row, Any] | None = None
    arrived: list[tuple[str, Key, Row, str]] = []
    by_source: Counter[tuple[str, str, str]] = Counter()
    first, last = window.since.isoformat(), window.until.isoformat()  # `window.contains`, inlined
    for key, event in ledgers.events.items():
        recorded = str(event.get("recorded_at") or "")
        kinds.add(key[0])
        current = ledgers.status.get(key)
        state = str(current.get("state")) if current else "pending"
        counts = by_kind.get(key[0])
        if counts is None:
            counts = by_kind[key[0]] = Counter()
        counts[state] += 1
        if first <= recorded[:10] <= last:
            day = per_day.get(recorded[:10])
            if day is None:
                day = per_day[recorded[:10]] = Counter()
            day[key[0]] += 1
            arrived.append((recorded, key, event, state))
            by_source[(key[0], _text(event.get("repo")), _text(event.get("via")))] += 1
        since = str(current.get("at") or recorded) if current else recorded
        age = _days(since, now)
        if age is not None and state in ages:
            for n, (low, high) in enumerate(AGE_BUCKETS):
                if age >= low and (high is None or age < high):
                    ages[state][n] += 1
                    break
            else:
                ages[state][0] += 1  # stamped in the future: counted as new
        if state in ("published", "shadowed") and current:
            at = str(current.get("at") or "")
            if at > last_success:
                last_success = at
        if state == "failed" and current and isinstance(current.get("attempts"), int):
            gave_up += current["attempts"] > 0
        if state != "pending":
            continue
        tries = current.get("attempts", 0) if current else 0
        attempts[tries if isinstance(tries, int) else 0] += 1
        if oldest is None or (recorded, key) < (oldest[0], oldest[1]):
            oldest = (recorded, key, event, tries)
    cursor = read_cursor(ledgers.dir)
    arrived.sort(key=lambda item: (item[0], item[1]), reverse=True)
    return {
        "source": source,
        "events": len(ledgers.events),
        "kinds": sorted(kinds),
        "by_kind": {kind: dict(sorted(c.items())) for kind, c in sorted(by_kind.items())},
        "states": {state: sum(c.get(state, 0) for c in by_kind.values()) for state in STATES},
        "per_day": [
            {"day": day, **{kind: per_day[day].get(kind, 0) for kind in sorted(kinds)}}
            for day in sorted(per_day)
        ],
        "recorded_in_window": len(arrived),
        "by_source": [
            {"kind": kind, "repo": repo or None, "via": via or None, "events": n}
            for (kind, repo, via), n in sorted(by_source.items(), key=lambda i: (-i[1], i[0]))
        ],
        "arrived": [
            {
                "kind": key[0],
                "source_id": key[1],
                "title": _text(event.get("title")),
                "url": _link(event.get("url")),
                "recorded_at": recorded,
                "state": state,
            }
            for recorded, key, event, state in arrived[:limit]
        ],
        "state_age": {
            "buckets": [_age_label(low, high) for low, high in AGE_BUCKETS],
            "by_state": ages,
        },
        "pending_attempts": {str(k): v for k, v in sorted(attempts.items())},
        "failed_at_cap": gave_up,
        "last_success": last_success or None,
        "oldest_pending": None
        if oldest is None
        else {
            "key": list(oldest[1]),
            "title": oldest[2].get("title"),
            "recorded_at": oldest[0],
            "attempts": oldest[3],
        },
        "cursor": [
            {"repo": repo, "at": at, "next_scan_from": scan_since(at)}
            for repo, at in sorted(cursor.items())
        ],
        "problems": ledgers.problems[:20],
    }


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _link(value: object) -> str | None:
    """An event's web address, only when it is a plain https URL (never `javascript:`)."""
    if isinstance(value, str) and _URL.fullmatch(value):
        return value
    return None
