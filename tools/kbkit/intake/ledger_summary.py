"""The state of the ledgers at a glance: counts by state and kind, oldest pending, attempts."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.infra.charset import INVISIBLE
from kbkit.intake.ledger import (
    EVENTS_FILE,
    STATES,
    STATUS_FILE,
    LedgerProblem,
    fold_events,
    fold_status,
    read_ledger,
)
from kbkit.intake.merged_prs import read_cursor, scan_since

# What must never reach a terminal raw: every invisible character plus tab and newline.
_UNSAFE = re.compile("[\t\n]|" + INVISIBLE.pattern)


def shown(text: str) -> str:
    """`text` with ESC, CR, bidi, zero-width, tab and newline as visible `<U+XXXX>` tokens."""
    return _UNSAFE.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)


def render_json(summary: Summary) -> str:
    """The summary as JSON; invisible characters inside strings as `\\uXXXX` escapes.

    json.dumps escapes controls already, not bidi or zero-width characters (with
    ensure_ascii=False); those only occur inside strings, where an escape is the same value.
    """
    text = json.dumps({"version": 1, **summary.to_dict()}, indent=2, ensure_ascii=False)
    return INVISIBLE.sub(lambda m: json.dumps(m.group())[1:-1], text) + "\n"


class Summary(NamedTuple):
    counts: dict[str, dict[str, int]]  # kind -> state -> count
    oldest_pending: dict[str, Any] | None
    attempts: dict[int, int]  # attempts -> pending events with that many
    cursor: dict[str, str]
    problems: list[LedgerProblem]

    def to_dict(self) -> dict[str, Any]:
        return {
            "counts": self.counts,
            "totals": {
                state: sum(c.get(state, 0) for c in self.counts.values()) for state in STATES
            },
            "oldest_pending": self.oldest_pending,
            "pending_attempts": {str(k): v for k, v in sorted(self.attempts.items())},
            "cursor": self.cursor,
            "next_scan_from": {repo: scan_since(at) for repo, at in self.cursor.items()},
            "problems": [f"{p.path}:{p.line}: {p.message}" for p in self.problems],
        }


def summarize(intake_dir: Path) -> Summary:
    """Fold both ledgers and count."""
    event_rows, event_problems = read_ledger(intake_dir, EVENTS_FILE)
    status_rows, status_problems = read_ledger(intake_dir, STATUS_FILE)
    status = fold_status(status_rows)
    counts: dict[str, Counter[str]] = {}
    attempts: Counter[int] = Counter()
    oldest: tuple[str, dict[str, Any]] | None = None
    for key, event in fold_events(event_rows).items():
        current = status.get(key)
        state = str(current.get("state")) if current else "pending"
        counts.setdefault(key[0], Counter())[state] += 1
        if state != "pending":
            continue
        tries = current.get("attempts", 0) if current else 0
        attempts[tries if isinstance(tries, int) else 0] += 1
        since = str(event.get("recorded_at", ""))
        if oldest is None or (since, key) < (oldest[0], tuple(oldest[1]["key"])):
            oldest = (
                since,
                {
                    "key": list(key),
                    "title": event.get("title"),
                    "recorded_at": since,
                    "attempts": tries,
                },
            )
    return Summary(
        {kind: dict(sorted(c.items())) for kind, c in sorted(counts.items())},
        oldest[1] if oldest else None,
        dict(attempts),
        read_cursor(intake_dir),
        event_problems + status_problems,
    )


def render_text(summary: Summary) -> str:
    """The summary as lines of text, every line free of raw control or bidi characters."""
    lines = []
    data = summary.to_dict()
    if not summary.counts:
        lines.append("no events recorded yet")
    for kind, states in summary.counts.items():
        parts = ", ".join(f"{n} {state}" for state, n in states.items())
        lines.append(f"{kind}: {parts}")
    lines.append("total: " + ", ".join(f"{n} {s}" for s, n in data["totals"].items()))
    if summary.oldest_pending:
        old = summary.oldest_pending
        lines.append(
            f"oldest pending: {old['key'][0]} {old['key'][1]} recorded "
            f"{old['recorded_at']} ({old['attempts']} attempt(s)): {old['title']}"
        )
    if summary.attempts:
        lines.append(
            "pending by attempts: "
            + ", ".join(f"{n} with {k}" for k, n in sorted(summary.attempts.items()))
        )
    for repo, moment in sorted(summary.cursor.items()):
        lines.append(f"cursor {repo}: {moment} (next scan from {scan_since(moment)})")
    for problem in data["problems"]:
        lines.append(f"warning: {problem}")
    # titles, keys and cursor names come from GitHub and drop files: never print them raw
    return "\n".join(shown(line) for line in lines) + "\n"
