"""The first screen's answers in words, shared by the page and the markdown summary: is the
tree healthy and getting better, and are lessons helping."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from kbkit.report import words
from kbkit.report.words import plural

# Every measure the lessons report compares, and which way is better: lessons help only
# when none of them is worse beyond its interval (a verdict from three of the five said
# "Helping" while duplicates rose 25 points and tool calls per finding tripled).
HELPING_METRICS = (
    ("confirmed_per_task", True),
    ("false_positive_rate", False),
    ("duplicate_rate", False),
    ("tokens_per_confirmed", False),
    ("tool_calls_per_confirmed", False),
)
RATES = frozenset({"false_positive_rate", "duplicate_rate"})


class Verdict(NamedTuple):
    level: str  # good, warn, bad, none (nothing to judge yet)
    text: str


def tree_verdict(tree: dict[str, Any]) -> Verdict:
    f = tree["findings"]
    pages = plural(tree["pages"], "page")
    if not tree["pages"] and not f["total"]:
        return Verdict("none", "No pages yet")
    if f["errors"]:
        return Verdict("bad", f"Not healthy: {plural(f['errors'], 'error')} on {pages}")
    if f["warnings"]:
        return Verdict("warn", f"Healthy, with {plural(f['warnings'], 'warning')} on {pages}")
    return Verdict("good", f"Healthy: no findings on {pages}")


class Change(NamedTuple):
    name: str
    first: int
    last: int


def trend_changes(trend: dict[str, Any]) -> tuple[str, list[Change]] | None:
    """The first sample day with figures and how each figure moved from it to now; None when
    there is no earlier day to compare with."""
    points = [p for p in trend["points"] if "error" not in p]
    if len(points) < 2:
        return None
    first, last = points[0], points[-1]
    return first["day"], [
        Change(name, int(first[name]), int(last[name])) for name in ("errors", "warnings", "pages")
    ]


def trend_verdict(trend: dict[str, Any]) -> Verdict:
    changes = trend_changes(trend)
    if changes is None:
        why = trend.get("note") or "no earlier sample day in the window has a commit"
        return Verdict("none", f"No earlier day to compare with ({why})")
    since, moves = changes
    findings = [m for m in moves if m.name != "pages"]
    before = sum(m.first for m in findings)
    after = sum(m.last for m in findings)
    if after < before:
        return Verdict("good", f"Getting better since {since}")
    if after > before:
        return Verdict("bad", f"Getting worse since {since}")
    return Verdict("none", f"No change in findings since {since}")


class Effect(NamedTuple):
    metric: str
    difference: dict[str, Any] | None  # value, low, high
    judged: str  # better, worse, unclear, not-enough


def lessons_effects(report: dict[str, Any]) -> list[Effect]:
    """Per weighed metric of the randomised comparison: better, worse (the 95% interval on
    one side of 0) or unclear; `not-enough` when an arm has too few tasks for an interval."""
    headline = report.get("headline")
    if not headline:
        return []
    out = []
    for name, more_is_better in HELPING_METRICS:
        metric = headline["metrics"].get(name)
        diff = metric.get("difference") if metric else None
        enough = bool(metric) and metric.get("enough", True)
        if not enough or not diff or diff.get("low") is None or diff.get("high") is None:
            out.append(Effect(name, None, "not-enough"))
            continue
        if diff["low"] > 0 or diff["high"] < 0:
            up = diff["low"] > 0
            out.append(Effect(name, diff, "better" if up == more_is_better else "worse"))
        else:
            out.append(Effect(name, diff, "unclear"))
    return out


def lessons_verdict(lessons: dict[str, Any]) -> Verdict:
    report = lessons["report"]
    if "error" in report:
        return Verdict("bad", "The outcome cards cannot be read")
    if not report["tasks"]:
        if lessons["lessons"]:
            return Verdict("none", "Not known yet: no closed task has an outcome card")
        return Verdict("none", "Not known yet: no lessons and no outcome cards")
    effects = lessons_effects(report)
    if not effects:
        return Verdict(
            "none",
            "Not known yet: no randomised comparison (no task was assigned to an arm at random)",
        )
    judged = {e.judged for e in effects}
    if judged == {"not-enough"}:
        treated, control = report["headline"]["tasks"]
        least = _minimum(report["headline"])
        return Verdict(
            "none",
            f"Not known yet: not enough tasks ({treated} and {control} in the randomised arms"
            + (f"; at least {least} per arm)" if least else ")"),
        )
    better = _named(e.metric for e in effects if e.judged == "better")
    worse = _named(e.metric for e in effects if e.judged == "worse")
    if better and not worse:
        return Verdict("good", f"Helping, in the randomised comparison: better on {better}")
    if worse and not better:
        return Verdict("bad", f"Hurting, in the randomised comparison: worse on {worse}")
    if better:
        return Verdict("warn", f"Mixed: better on {better}, worse on {worse}")
    return Verdict("none", "No clear effect yet in the randomised comparison")


def _named(metrics: Iterable[str]) -> str:
    """The measures in words, joined ("duplicate rate and tool calls per confirmed finding")."""
    names = [words.metric(m) for m in metrics]
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)


def _minimum(comparison: dict[str, Any]) -> int | None:
    """The lessons report's minimum of tasks per arm for a number, if it states one."""
    for metric in comparison["metrics"].values():
        least = metric.get("minimum_tasks_per_arm")
        if isinstance(least, int):
            return least
    return None
