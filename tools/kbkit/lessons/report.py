"""The lessons report: what the outcome cards say about tasks that saw lessons.

Every metric is a ratio of totals over tasks (tokens of all tasks of an arm divided by the
confirmed findings of all of them), so a task that spent 900k tokens and found nothing
counts against its arm instead of vanishing. Intervals use the delta method for a ratio of
totals (tasks are the independent units) and are clipped to the metric's bounds (a rate
stays in [0, 1], a count never goes below 0); they are deterministic, no resampling.

Arms, from the usage log:
- `randomised_inject` / `randomised_shadow`: tasks assigned by `bundle --assign hash` in
  inject mode. Their difference is the headline: the only causal comparison.
- `inject_shown`: configured inject mode and at least one lesson shown;
  `inject_none`: inject mode, nothing selected; `shadow`: configured shadow mode;
  `history`: closed tasks never considered. Comparisons among these are observational.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

Z95 = 1.959964
Z80_POWER = 0.841621
RELATIVE_EFFECT = 0.25  # the change the required-N line is computed for

METHODS = (
    "Ratios of totals over tasks (tasks without findings kept); 95% intervals by the delta "
    "method, clipped to each metric's bounds."
)
CAVEAT = (
    "Only the randomised comparison (kb lessons bundle --assign hash in inject mode) "
    "estimates an effect of lessons; the observational comparisons are differences between "
    "tasks that were not assigned at random, and support is not causal."
)
ARMS = (
    "randomised_inject",
    "randomised_shadow",
    "inject_shown",
    "inject_none",
    "shadow",
    "history",
)
OBSERVATIONAL = (("inject_shown", "shadow"), ("inject_shown", "history"))

Card = dict[str, Any]


class Metric(NamedTuple):
    """A ratio of per-task totals: sum(numerator) / sum(denominator)."""

    name: str
    numerator: Callable[[Card], float | None]
    denominator: Callable[[Card], float]
    upper: float | None  # 1.0 for rates, None for unbounded counts


METRICS = (
    Metric("confirmed_per_task", lambda c: c["confirmed"], lambda c: 1, None),
    Metric("tokens_per_confirmed", lambda c: c.get("tokens"), lambda c: c["confirmed"], None),
    Metric(
        "tool_calls_per_confirmed", lambda c: c.get("tool_calls"), lambda c: c["confirmed"], None
    ),
    Metric("false_positive_rate", lambda c: c["false_positives"], lambda c: c["reported"], 1.0),
    Metric("duplicate_rate", lambda c: c["duplicates"], lambda c: c["reported"], 1.0),
)


class Estimate(NamedTuple):
    value: float | None
    low: float | None
    high: float | None
    se: float | None
    n: int  # tasks that entered the ratio


def ratio(cards: Iterable[Card], metric: Metric) -> Estimate:
    """sum(y) / sum(x) with a delta-method 95% interval, clipped to [0, upper]."""
    pairs = []
    for card in cards:
        y = metric.numerator(card)
        if y is None:  # e.g. a task without recorded tokens: out of that metric only
            continue
        pairs.append((float(y), float(metric.denominator(card))))
    n = len(pairs)
    total_x = sum(x for _, x in pairs)
    if not n or total_x <= 0:
        return Estimate(None, None, None, None, n)
    value = sum(y for y, _ in pairs) / total_x
    if n < 2:
        return Estimate(value, None, None, None, n)
    residuals = sum((y - value * x) ** 2 for y, x in pairs)
    se = math.sqrt(residuals * n / (n - 1)) / total_x
    low = max(0.0, value - Z95 * se)
    high = value + Z95 * se
    if metric.upper is not None:
        high = min(metric.upper, high)
    return Estimate(value, low, high, se, n)


def compare(treated: list[Card], control: list[Card], metric: Metric) -> dict[str, Any]:
    """Both arms, their difference with a 95% interval, and what the arms' size can detect."""
    a, b = ratio(treated, metric), ratio(control, metric)
    out: dict[str, Any] = {"treated": a._asdict(), "control": b._asdict()}
    if a.value is None or b.value is None or a.se is None or b.se is None:
        out.update(difference=None, relative=None, mde=None, required_n_per_arm=None)
        return out
    diff = a.value - b.value
    se = math.hypot(a.se, b.se)
    bound = metric.upper if metric.upper is not None else math.inf
    low, high = max(-bound, diff - Z95 * se), min(bound, diff + Z95 * se)
    # minimum detectable effect at 5% two-sided and 80% power, for the arms as they are
    mde = (Z95 + Z80_POWER) * se
    target = RELATIVE_EFFECT * b.value
    per_task = a.se**2 * a.n + b.se**2 * b.n  # the two arms' per-task variances
    required = math.ceil((Z95 + Z80_POWER) ** 2 * per_task / target**2) if target > 0 else None
    out.update(
        difference={"value": diff, "low": low, "high": high, "se": se},
        relative=(a.value / b.value - 1) if b.value else None,
        mde=mde,
        required_n_per_arm=required,
    )
    return out


def task_arms(usage_rows: Iterable[dict[str, Any]]) -> dict[str, str]:
    """Each considered task's arm; a hash assignment outranks any configured consideration."""
    arms: dict[str, str] = {}
    for row in usage_rows:
        task, mode = str(row.get("task")), row.get("mode")
        if row.get("assign") == "hash" and mode in ("inject", "shadow"):
            arms[task] = f"randomised_{mode}"
        elif arms.get(task, "").startswith("randomised_"):
            continue
        elif mode == "inject":
            shown = bool(row.get("lessons")) or arms.get(task) == "inject_shown"
            arms[task] = "inject_shown" if shown else "inject_none"
        elif mode == "shadow" and task not in arms:
            arms[task] = "shadow"
    return arms


def _comparison(label: str, kind: str, treated: list[Card], control: list[Card]) -> dict[str, Any]:
    return {
        "comparison": label,
        "kind": kind,
        "tasks": [len(treated), len(control)],
        "metrics": {m.name: compare(treated, control, m) for m in METRICS},
    }


def _arm(cards: list[Card]) -> dict[str, Any]:
    return {"tasks": len(cards), **{m.name: ratio(cards, m)._asdict() for m in METRICS}}


def forgotten_tasks(tombstones: Iterable[tuple[str, str]]) -> set[str]:
    """Tasks whose outcome cards leave the report: a forgotten task, finding or retest."""
    return {
        source_id if kind == "task" else source_id.split("/", 1)[0]
        for kind, source_id in tombstones
    }


def build_report(cards: list[Card], usage_rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The randomised headline, labelled observational comparisons, and per-group arms."""
    assigned = task_arms(usage_rows)
    by_arm: dict[str, list[Card]] = {arm: [] for arm in ARMS}
    for card in cards:
        by_arm[assigned.get(str(card["task"]), "history")].append(card)
    headline = None
    if by_arm["randomised_inject"] and by_arm["randomised_shadow"]:
        headline = _comparison(
            "randomised: hash-assigned inject vs shadow",
            "randomised",
            by_arm["randomised_inject"],
            by_arm["randomised_shadow"],
        )
    observational = [
        _comparison(
            f"{a} vs {b} (observational, not causal)", "observational", by_arm[a], by_arm[b]
        )
        for a, b in OBSERVATIONAL
        if by_arm[a] and by_arm[b]
    ]
    groups: dict[tuple[str, str], list[Card]] = {}
    for card in cards:
        for dimension in ("company", "category"):
            value = (card.get(dimension) or "(none)").casefold()
            groups.setdefault((dimension, value), []).append(card)
    group_rows = []
    for (dimension, value), members in sorted(groups.items()):
        arms: dict[str, list[Card]] = {}
        for card in members:
            arms.setdefault(assigned.get(str(card["task"]), "history"), []).append(card)
        group_rows.append(
            {
                "group": dimension,
                "value": value,
                "arms": {arm: _arm(arms[arm]) for arm in ARMS if arm in arms},
            }
        )
    return {
        "version": 2,
        "methods": METHODS,
        "caveat": CAVEAT,
        "arms": {arm: len(by_arm[arm]) for arm in ARMS},
        "headline": headline,
        "observational": observational,
        "groups": group_rows,
    }
