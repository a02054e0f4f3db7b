"""Per-task outcome cards and the with/without-lessons report with 95% intervals.

Rates (false positives, duplicates) use the Wilson score interval on pooled counts; means
(confirmed findings per task, tokens and tool calls per confirmed finding) use a Student-t
interval over tasks. Tasks are grouped by exposure: a task "saw lessons" when a usage row in
`inject` mode showed it at least one lesson. The comparison is observational unless the
assignment was randomised (`kb lessons bundle --assign hash`): support is not causal.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, NamedTuple

from kbkit.lessons.redaction import clean_scope

# The status vocabulary, shared with extraction so cards and lessons agree on "confirmed".
CONFIRMED = frozenset({"confirmed", "resolved", "fixed"})
SILENT = frozenset({"pending", "in_progress"})
NEGATIVE = frozenset({"false_positive", "duplicate", "ignored", "risk_accepted"})
# Every finding status a record may carry; anything else is refused, not counted as reported.
FINDING_STATUSES = CONFIRMED | SILENT | NEGATIVE
CAVEAT = (
    "Support is not causal: these are observed differences between tasks, not effects of "
    "lessons, unless shadow/inject was assigned at random (kb lessons bundle --assign hash)."
)
METHODS = "95% CI: Wilson score for rates; Student-t over tasks for means."
_T975 = (
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
    2.131,
    2.120,
    2.110,
    2.101,
    2.093,
    2.086,
    2.080,
    2.074,
    2.069,
    2.064,
    2.060,
    2.056,
    2.052,
    2.048,
    2.045,
    2.042,
)


def normalize_status(value: object) -> str:
    """`In-Progress` and `in progress` both mean `in_progress`."""
    return str(value or "").strip().lower().replace("-", "_").replace(" ", "_")


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


class Interval(NamedTuple):
    value: float | None
    low: float | None
    high: float | None
    n: int


def wilson(successes: int, trials: int, z: float = 1.96) -> Interval:
    """Wilson score interval for a proportion (well-behaved at 0, 1 and small n)."""
    if trials <= 0:
        return Interval(None, None, None, 0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half), trials)


def mean_interval(values: Iterable[float]) -> Interval:
    """Mean with a Student-t 95% interval; no interval below two values."""
    data = list(values)
    n = len(data)
    if n == 0:
        return Interval(None, None, None, 0)
    mean = sum(data) / n
    if n < 2:
        return Interval(mean, None, None, 1)
    sd = math.sqrt(sum((x - mean) ** 2 for x in data) / (n - 1))
    df = n - 1
    t = _T975[df - 1] if df <= len(_T975) else 1.96 + 2.4 / df
    half = t * sd / math.sqrt(n)
    return Interval(mean, mean - half, mean + half, n)


def group_metrics(cards: list[dict[str, Any]]) -> dict[str, Interval]:
    """The report's metrics for one group of outcome cards."""
    reported = sum(c["reported"] for c in cards)
    with_confirmed = [c for c in cards if c["confirmed"]]
    return {
        "confirmed_per_task": mean_interval(c["confirmed"] for c in cards),
        "tokens_per_confirmed": mean_interval(
            c["tokens_per_confirmed"]
            for c in with_confirmed
            if c["tokens_per_confirmed"] is not None
        ),
        "tool_calls_per_confirmed": mean_interval(
            c["tool_calls_per_confirmed"]
            for c in with_confirmed
            if c["tool_calls_per_confirmed"] is not None
        ),
        "false_positive_rate": wilson(sum(c["false_positives"] for c in cards), reported),
        "duplicate_rate": wilson(sum(c["duplicates"] for c in cards), reported),
    }


def exposed_tasks(usage_rows: Iterable[dict[str, Any]]) -> set[str]:
    """Tasks that were actually shown at least one lesson (inject mode)."""
    return {
        str(row.get("task"))
        for row in usage_rows
        if row.get("mode") == "inject" and row.get("lessons")
    }


def build_report(cards: list[dict[str, Any]], usage_rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Side-by-side metrics, overall and per company and per category."""
    exposed = exposed_tasks(usage_rows)
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {("all", "all"): list(cards)}
    for card in cards:
        for dimension in ("company", "category"):
            value = card.get(dimension) or "(none)"
            groups.setdefault((dimension, value), []).append(card)
    rows = []
    ordered = sorted(groups.items(), key=lambda item: (item[0][0] != "all", item[0]))
    for (dimension, value), members in ordered:
        saw = [c for c in members if c["task"] in exposed]
        not_saw = [c for c in members if c["task"] not in exposed]
        rows.append(
            {
                "group": dimension,
                "value": value,
                "with_lessons": {"tasks": len(saw), **_as_dicts(group_metrics(saw))},
                "without_lessons": {"tasks": len(not_saw), **_as_dicts(group_metrics(not_saw))},
            }
        )
    return {
        "version": 1,
        "methods": METHODS,
        "caveat": CAVEAT,
        "assignment": assignment(usage_rows, {c["task"] for c in cards}),
        "groups": rows,
    }


def assignment(usage_rows: list[dict[str, Any]], closed: set[str]) -> dict[str, int]:
    """How the closed tasks were assigned: by hash (randomised) or by the configured mode."""
    arms: dict[str, tuple[str, str]] = {}
    for row in usage_rows:
        task = str(row.get("task"))
        if task in closed:
            arms[task] = (str(row.get("assign") or "none"), str(row.get("mode")))
    counts = {
        "hash_inject": 0,
        "hash_shadow": 0,
        "configured_inject": 0,
        "configured_shadow": 0,
        "never_considered": len(closed - set(arms)),
    }
    for assign, mode in arms.values():
        key = f"{'hash' if assign == 'hash' else 'configured'}_{mode}"
        if key in counts:
            counts[key] += 1
    return counts


def _as_dicts(metrics: dict[str, Interval]) -> dict[str, dict[str, Any]]:
    return {name: interval._asdict() for name, interval in metrics.items()}
