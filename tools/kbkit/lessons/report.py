"""The lessons report: what the outcome cards say about tasks that saw lessons.

Every metric is a ratio of totals over tasks (tokens of all tasks of an arm divided by the
confirmed findings of all of them), so a task that spent 900k tokens and found nothing
counts against its arm instead of vanishing. Comparisons are made within categories (the
task's domain: an easy and a hard category must not be pooled when the arms are spread
over them unevenly) and combined with Mantel-Haenszel weights; intervals are score
intervals that stay honest at small n (`kbkit.lessons.estimates`: Wilson and Newcombe for
rates, Poisson score for counts, Student's t for cost ratios). Below MIN_TASKS tasks in an
arm the report says "not enough tasks" instead of a number.

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

from kbkit.lessons import estimates
from kbkit.lessons.estimates import Z80_POWER, Z95, Interval

RELATIVE_EFFECT = 0.25  # the change the required-N line is computed for
MIN_TASKS = 10  # per arm: below it a comparison says "not enough tasks"

METHODS = (
    "Ratios of totals over tasks (tasks without findings kept), compared within categories "
    "and combined with Mantel-Haenszel weights; 95% intervals: Wilson/Newcombe (stratified, "
    "MOVER) for rates, Poisson score for counts, Student's t for cost ratios, on tasks as "
    f"the independent units; fewer than {MIN_TASKS} tasks in an arm: not enough tasks."
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
    kind: str  # "rate" (findings as trials), "count" (per task) or "ratio" (a cost)


METRICS = (
    Metric("confirmed_per_task", lambda c: c["confirmed"], lambda c: 1, "count"),
    Metric("tokens_per_confirmed", lambda c: c.get("tokens"), lambda c: c["confirmed"], "ratio"),
    Metric(
        "tool_calls_per_confirmed", lambda c: c.get("tool_calls"), lambda c: c["confirmed"], "ratio"
    ),
    Metric("false_positive_rate", lambda c: c["false_positives"], lambda c: c["reported"], "rate"),
    Metric("duplicate_rate", lambda c: c["duplicates"], lambda c: c["reported"], "rate"),
)


class Estimate(NamedTuple):
    value: float | None
    low: float | None
    high: float | None
    se: float | None
    n: int  # tasks that entered the ratio
    units: float = 0.0  # what a stratum weighs by: findings for a rate, tasks otherwise

    def interval(self) -> Interval | None:
        if self.value is None or self.low is None or self.high is None:
            return None
        return Interval(self.value, self.low, self.high)


def ratio(cards: Iterable[Card], metric: Metric) -> Estimate:
    """sum(y) / sum(x) with the metric kind's 95% interval (none below two tasks)."""
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
    units = total_x if metric.kind == "rate" else float(n)
    if n < 2:
        return Estimate(value, None, None, None, n, units)
    # the delta-method variance of a ratio of totals, tasks as the independent units
    variance = sum((y - value * x) ** 2 for y, x in pairs) * n / (n - 1) / total_x**2
    if metric.kind == "ratio":
        half = estimates.t_quantile(0.975, n - 1) * math.sqrt(variance)
        found: Interval | None = Interval(value, max(0.0, value - half), value + half)
    elif metric.kind == "rate":
        simple = value * (1 - value) / total_x  # findings as independent trials
        effective = total_x / max(1.0, variance / simple) if simple > 0 else total_x
        found = estimates.wilson(value * effective, effective)
    else:
        simple = value / n
        effective = n / max(1.0, variance / simple) if simple > 0 else float(n)
        found = estimates.poisson_score(value * effective, effective)
    assert found is not None
    se = (found.high - found.low) / (2 * Z95)
    return Estimate(value, found.low, found.high, se, n, units)


def _stratum_key(card: Card) -> str:
    key = card.get("category_key")
    if "category_key" not in card:  # a card an earlier version wrote: key its display
        from kbkit.lessons.redaction import scope_key

        key = scope_key(card.get("category"))
    return key if isinstance(key, str) else ""


def _strata(cards: list[Card]) -> dict[str, list[Card]]:
    strata: dict[str, list[Card]] = {}
    for card in cards:
        strata.setdefault(_stratum_key(card), []).append(card)
    return strata


def _interval_dict(found: Interval | None) -> dict[str, Any] | None:
    if found is None:
        return None
    se = (found.high - found.low) / (2 * Z95)
    return {"value": found.value, "low": found.low, "high": found.high, "se": se}


def _hidden(estimate: Estimate) -> dict[str, Any]:
    """An arm below the minimum: its size, never a number."""
    return dict(estimate._asdict(), value=None, low=None, high=None, se=None)


def compare(
    treated: list[Card], control: list[Card], metric: Metric, names: dict[str, str] | None = None
) -> dict[str, Any]:
    """Both arms and their difference within categories, combined with Mantel-Haenszel
    weights; what the arms' size can detect. Below MIN_TASKS tasks in an arm: no number."""
    names = names or {}
    a_all, b_all = ratio(treated, metric), ratio(control, metric)
    treated_by, control_by = _strata(treated), _strata(control)
    rows: list[dict[str, Any]] = []
    arms_a: list[tuple[float, Interval]] = []
    arms_b: list[tuple[float, Interval]] = []
    diffs: list[tuple[float, Interval]] = []
    for key in sorted(set(treated_by) | set(control_by)):
        a, b = ratio(treated_by.get(key, []), metric), ratio(control_by.get(key, []), metric)
        ia, ib = a.interval(), b.interval()
        weight = estimates.mantel_haenszel_weight(a.units, b.units) if ia and ib else 0.0
        diff = estimates.difference(ia, ib) if ia and ib else None
        if ia is not None and ib is not None and diff is not None and weight > 0:
            arms_a.append((weight, ia))
            arms_b.append((weight, ib))
            diffs.append((weight, diff))
        enough = a.n >= MIN_TASKS and b.n >= MIN_TASKS
        rows.append(
            {
                "stratum": names.get(key, key or "(none)"),
                "tasks": [a.n, b.n],
                "weight": weight,
                "enough": enough,
                "difference": _interval_dict(diff) if enough else None,
            }
        )
    enough = a_all.n >= MIN_TASKS and b_all.n >= MIN_TASKS and bool(diffs)
    out: dict[str, Any] = {
        "enough": enough,
        "minimum_tasks_per_arm": MIN_TASKS,
        "strata": rows,
        "treated": a_all._asdict() if enough else _hidden(a_all),
        "control": b_all._asdict() if enough else _hidden(b_all),
        "difference": None,
        "relative": None,
        "mde": None,
        "required_n_per_arm": None,
    }
    if not enough:
        return out
    std_a, std_b, diff = (
        estimates.combine(arms_a),
        estimates.combine(arms_b),
        estimates.combine(diffs),
    )
    assert std_a is not None and std_b is not None and diff is not None
    se_a = (std_a.high - std_a.low) / (2 * Z95)
    se_b = (std_b.high - std_b.low) / (2 * Z95)
    se = (diff.high - diff.low) / (2 * Z95)
    target = RELATIVE_EFFECT * std_b.value
    per_task = se_a**2 * a_all.n + se_b**2 * b_all.n  # the two arms' per-task variances
    required = (
        max(MIN_TASKS, math.ceil((Z95 + Z80_POWER) ** 2 * per_task / target**2))
        if target > 0
        else None
    )
    out.update(
        treated=dict(a_all._asdict(), value=std_a.value, low=std_a.low, high=std_a.high, se=se_a),
        control=dict(b_all._asdict(), value=std_b.value, low=std_b.low, high=std_b.high, se=se_b),
        difference=_interval_dict(diff),
        relative=(std_a.value / std_b.value - 1) if std_b.value else None,
        mde=(Z95 + Z80_POWER) * se,
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


def _comparison(
    label: str, kind: str, treated: list[Card], control: list[Card], names: dict[str, str]
) -> dict[str, Any]:
    return {
        "comparison": label,
        "kind": kind,
        "tasks": [len(treated), len(control)],
        "metrics": {m.name: compare(treated, control, m, names) for m in METRICS},
    }


def _arm(cards: list[Card]) -> dict[str, Any]:
    arm: dict[str, Any] = {"tasks": len(cards)}
    for m in METRICS:
        estimate = ratio(cards, m)
        arm[m.name] = estimate._asdict() if estimate.n >= MIN_TASKS else _hidden(estimate)
    return arm


def outcome_cards(store: Any, state: Any) -> list[Card]:
    """The outcome cards the report counts: every closed task's latest, forgotten ones out
    (a forgotten task, or a task one of whose findings or retests was forgotten)."""
    cards = store.outcome_cards()
    return [
        card
        for task, card in cards.items()
        if task in state.outcomes and task not in state.forgotten
    ]


def build_report(cards: list[Card], usage_rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The randomised headline, labelled observational comparisons, and per-group arms."""
    assigned = task_arms(usage_rows)
    names: dict[str, str] = {}  # category key -> the first display name seen
    for card in cards:
        names.setdefault(_stratum_key(card), str(card.get("category") or "(none)"))
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
            names,
        )
    observational = [
        _comparison(
            f"{a} vs {b} (observational, not causal)", "observational", by_arm[a], by_arm[b], names
        )
        for a, b in OBSERVATIONAL
        if by_arm[a] and by_arm[b]
    ]
    groups: dict[tuple[str, str], list[Card]] = {}
    shown: dict[tuple[str, str], str] = {}
    for card in cards:
        for dimension in ("company", "category"):
            key = card.get(f"{dimension}_key") if f"{dimension}_key" in card else None
            if f"{dimension}_key" not in card:
                from kbkit.lessons.redaction import scope_key

                key = scope_key(card.get(dimension))
            group = (dimension, key or "")
            groups.setdefault(group, []).append(card)
            shown.setdefault(group, str(card.get(dimension) or "(none)"))
    group_rows = []
    for (dimension, key), members in sorted(groups.items()):
        value = shown[(dimension, key)]
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
        "version": 3,
        "methods": METHODS,
        "caveat": CAVEAT,
        "arms": {arm: len(by_arm[arm]) for arm in ARMS},
        "headline": headline,
        "observational": observational,
        "groups": group_rows,
    }
