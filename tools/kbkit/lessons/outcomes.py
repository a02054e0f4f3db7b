"""Per-task outcome cards: what one closed task found and what it cost.

The report that compares tasks with and without lessons is `kbkit.lessons.report`.
"""

from __future__ import annotations

import functools
from typing import Any

from kbkit.lessons.redaction import clean_scope, scope_key

# The status vocabulary, shared with extraction so cards and lessons agree on "confirmed".
CONFIRMED = frozenset({"confirmed", "resolved", "fixed"})
SILENT = frozenset({"pending", "in_progress"})
NEGATIVE = frozenset({"false_positive", "duplicate", "ignored", "risk_accepted"})
# Every finding status a record may carry; anything else is refused, not counted as reported.
FINDING_STATUSES = CONFIRMED | SILENT | NEGATIVE


def normalize_status(value: object) -> str:
    """`In-Progress` and `in progress` both mean `in_progress`."""
    if type(value) is str:
        return _normalize(value)
    return _normalize(str(value or ""))


@functools.lru_cache(maxsize=1024)
def _normalize(value: str) -> str:
    return value.strip().lower().replace("-", "_").replace(" ", "_")


def outcome_card(task: dict[str, Any]) -> dict[str, Any]:
    """Confirmed findings, cost per confirmed finding, false-positive and duplicate rates."""
    statuses = [normalize_status(f.get("status")) for f in task.get("findings") or []]
    reported = [s for s in statuses if s not in SILENT]
    confirmed = sum(s in CONFIRMED for s in reported)
    false_positives = reported.count("false_positive")
    duplicates = reported.count("duplicate")
    metrics = task.get("metrics") or {}
    tokens, tool_calls = metrics.get("tokens"), metrics.get("tool_calls")
    return {
        "task": str(task["id"]),
        "status": normalize_status(task.get("status")),
        "company": clean_scope(task.get("company")),
        "category": clean_scope(task.get("category")),
        "company_key": scope_key(task.get("company")),
        "category_key": scope_key(task.get("category")),
        "reported": len(reported),
        "confirmed": confirmed,
        "false_positives": false_positives,
        "duplicates": duplicates,
        "tokens": tokens,
        "tool_calls": tool_calls,
        "tokens_per_confirmed": _per(tokens, confirmed),
        "tool_calls_per_confirmed": _per(tool_calls, confirmed),
        "false_positive_rate": _per(false_positives, len(reported)),
        "duplicate_rate": _per(duplicates, len(reported)),
    }


def _per(value: int | None, count: int) -> float | None:
    return round(value / count, 4) if value is not None and count else None
