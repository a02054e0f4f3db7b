"""`kbkit.report.answers`: the first screen's verdicts follow the figures they summarise."""

from __future__ import annotations

from typing import Any

import pytest

from kbkit.report import answers


def tree(errors: int, warnings: int, pages: int = 9) -> dict[str, Any]:
    return {
        "pages": pages,
        "findings": {"errors": errors, "warnings": warnings, "total": errors + warnings},
    }


def test_the_tree_verdict_names_the_worst_severity() -> None:
    assert answers.tree_verdict(tree(2, 5)) == ("bad", "Not healthy: 2 errors on 9 pages")
    assert answers.tree_verdict(tree(0, 1, 1)) == ("warn", "Healthy, with 1 warning on 1 page")
    assert answers.tree_verdict(tree(0, 0)).level == "good"
    assert answers.tree_verdict(tree(0, 0, 0)).level == "none"


def point(day: str, errors: int, warnings: int, pages: int = 9) -> dict[str, Any]:
    return {"day": day, "commit": "c", "pages": pages, "errors": errors, "warnings": warnings}


@pytest.mark.parametrize(
    ("first", "last", "level", "words"),
    [((3, 1), (0, 1), "good", "Getting better since 2026-11-02"),
     ((0, 1), (0, 4), "bad", "Getting worse since 2026-11-02"),
     ((2, 2), (1, 3), "none", "No change in findings since 2026-11-02")],
)  # fmt: skip
def test_the_trend_verdict_compares_the_first_sample_day_with_now(
    first: tuple[int, int], last: tuple[int, int], level: str, words: str
) -> None:
    trend = {"points": [point("2026-11-02", *first), {"day": "2026-11-09", "error": "x"},
                        point("2026-11-30", *last)]}  # fmt: skip
    assert answers.trend_verdict(trend) == (level, words)
    assert answers.trend_verdict(
        {"points": [point("2026-11-30", 0, 0)], "note": "no git"}
    ).text.endswith("(no git)")


def headline(diffs: dict[str, tuple[float, float, float] | None]) -> dict[str, Any]:
    metrics = {
        name: {
            "enough": d is not None,
            "minimum_tasks_per_arm": 10,
            "difference": None if d is None else {"value": d[0], "low": d[1], "high": d[2]},
        }
        for name, d in diffs.items()
    }
    return {"tasks": 40, "headline": {"tasks": [20, 20], "metrics": metrics}, "arms": {},
            "observational": []}  # fmt: skip


@pytest.mark.parametrize(
    ("diffs", "level"),
    [
        # more confirmed findings, fewer false positives: both on their better side of 0
        ({"confirmed_per_task": (0.4, 0.1, 0.7), "false_positive_rate": (-0.2, -0.3, -0.1),
          "tokens_per_confirmed": (10.0, -5.0, 25.0)}, "good"),
        ({"confirmed_per_task": (-0.4, -0.7, -0.1), "false_positive_rate": (0.0, -0.1, 0.1),
          "tokens_per_confirmed": None}, "bad"),
        ({"confirmed_per_task": (0.4, 0.1, 0.7), "false_positive_rate": (0.2, 0.1, 0.3),
          "tokens_per_confirmed": None}, "warn"),
        ({"confirmed_per_task": (0.1, -0.2, 0.4), "false_positive_rate": (0.0, -0.1, 0.1),
          "tokens_per_confirmed": (1.0, -2.0, 4.0)}, "none"),
    ],
)  # fmt: skip
def test_lessons_help_only_when_a_randomised_interval_says_so(
    diffs: dict[str, Any], level: str
) -> None:
    lessons = {"lessons": 5, "report": headline(diffs)}
    assert answers.lessons_verdict(lessons).level == level


def test_every_measure_weighs_and_the_deciding_one_is_named() -> None:
    """More confirmed findings, yet duplicates up 25 points and tool calls per confirmed
    finding up: not "Helping" but mixed, each side named; worse alone is hurting."""
    mixed = headline(
        {
            "confirmed_per_task": (0.3, 0.1, 0.5),
            "false_positive_rate": (0.0, -0.1, 0.1),
            "duplicate_rate": (0.25, 0.21, 0.28),
            "tokens_per_confirmed": (1.0, -2.0, 4.0),
            "tool_calls_per_confirmed": (19.5, 12.0, 27.0),
        }  # fmt: skip
    )
    verdict = answers.lessons_verdict({"lessons": 5, "report": mixed})
    assert verdict == (
        "warn",
        "Mixed: better on confirmed findings per task, worse on duplicate rate and tool calls "
        "per confirmed finding",
    )
    hurting = headline({"duplicate_rate": (0.25, 0.21, 0.28), "confirmed_per_task": None})
    assert answers.lessons_verdict({"lessons": 5, "report": hurting}) == (
        "bad",
        "Hurting, in the randomised comparison: worse on duplicate rate",
    )
    helping = headline({"tool_calls_per_confirmed": (-3.0, -5.0, -1.0)})
    assert answers.lessons_verdict({"lessons": 5, "report": helping}) == (
        "good",
        "Helping, in the randomised comparison: better on tool calls per confirmed finding",
    )


def test_lessons_without_a_randomised_comparison_or_tasks_are_not_known() -> None:
    observational: dict[str, Any] = {
        "tasks": 6,
        "headline": None,
        "arms": {"history": 6},
        "observational": [],
    }
    assert answers.lessons_verdict({"lessons": 8, "report": observational}).text.startswith(
        "Not known yet: no randomised comparison"
    )
    few = headline(
        {"confirmed_per_task": None, "false_positive_rate": None, "tokens_per_confirmed": None}
    )
    assert answers.lessons_verdict({"lessons": 1, "report": few}).text == (
        "Not known yet: not enough tasks (20 and 20 in the randomised arms; at least 10 per arm)"
    )
    empty: dict[str, Any] = {"tasks": 0, "headline": None, "arms": {}, "observational": []}
    assert answers.lessons_verdict({"lessons": 0, "report": empty}).level == "none"
    assert (
        answers.lessons_verdict({"lessons": 0, "report": {"tasks": 1, "error": "x"}}).level == "bad"
    )
