"""Outcome cards, Wilson and Student-t intervals, and the with/without report."""

from __future__ import annotations

import pytest

from kbkit.lessons.outcomes import (
    CAVEAT,
    build_report,
    exposed_tasks,
    mean_interval,
    outcome_card,
    wilson,
)


def test_outcome_card(make_task) -> None:
    card = outcome_card(
        make_task(
            findings=[
                ("F1", "confirmed", "a", "x"),
                ("F2", "fixed", "a", "y"),
                ("F3", "false_positive", "a", "z"),
                ("F4", "duplicate", "a", "w"),
                ("F5", "pending", "a", "v"),
                ("F6", "in-progress", "a", "u"),
            ],
            tokens=3000,
            tool_calls=30,
        )
    )
    assert card["reported"] == 4 and card["confirmed"] == 2
    assert (card["false_positives"], card["duplicates"]) == (1, 1)
    assert card["tokens_per_confirmed"] == 1500 and card["tool_calls_per_confirmed"] == 15
    assert card["false_positive_rate"] == 0.25 and card["duplicate_rate"] == 0.25


def test_outcome_card_without_confirmed_findings_or_metrics(make_task) -> None:
    task = make_task(findings=[("F1", "false_positive", "a", "x")])
    del task["metrics"]
    card = outcome_card(task)
    assert card["tokens_per_confirmed"] is None and card["tool_calls_per_confirmed"] is None
    assert card["false_positive_rate"] == 1.0


@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    [
        (0, 10, 0.0, 0.2775),  # textbook values (Wilson 1927; Newcombe 1998)
        (10, 10, 0.7225, 1.0),
        (5, 10, 0.2366, 0.7634),
        (1, 2, 0.0945, 0.9055),
        (81, 263, 0.2553, 0.3662),
    ],
)
def test_wilson_interval(successes: int, trials: int, low: float, high: float) -> None:
    interval = wilson(successes, trials)
    assert interval.value == pytest.approx(successes / trials)
    assert interval.low == pytest.approx(low, abs=5e-4)
    assert interval.high == pytest.approx(high, abs=5e-4)


def test_wilson_with_no_trials_is_empty() -> None:
    assert wilson(0, 0).value is None


def test_mean_interval_uses_student_t() -> None:
    interval = mean_interval([1.0, 2.0, 3.0, 4.0, 5.0])
    # mean 3, sd 1.5811, t(4) = 2.776 -> half width 1.963
    assert interval.value == 3.0
    assert interval.low == pytest.approx(3 - 1.963, abs=1e-3)
    assert interval.high == pytest.approx(3 + 1.963, abs=1e-3)
    assert mean_interval([7.0]).low is None and mean_interval([]).value is None


def test_only_injected_non_empty_selections_count_as_exposure() -> None:
    usage = [
        {"task": "A", "mode": "inject", "lessons": ["L1"]},
        {"task": "B", "mode": "shadow", "lessons": ["L1"]},
        {"task": "C", "mode": "inject", "lessons": []},
    ]
    assert exposed_tasks(usage) == {"A"}


def test_report_groups_side_by_side(make_task) -> None:
    cards = [
        outcome_card(
            make_task("A", company="acme", category="web", findings=[("F1", "confirmed", "a", "x")])
        ),
        outcome_card(
            make_task(
                "B", company="acme", category="api", findings=[("F1", "false_positive", "a", "x")]
            )
        ),
        outcome_card(
            make_task(
                "C",
                company="globex",
                category="web",
                category_extra=1,
                findings=[("F1", "duplicate", "a", "x")],
            )
        ),
    ]
    report = build_report(cards, [{"task": "A", "mode": "inject", "lessons": ["L1"]}])
    assert report["caveat"] == CAVEAT and "not causal" in CAVEAT
    groups = {(g["group"], g["value"]): g for g in report["groups"]}
    assert report["groups"][0]["group"] == "all"
    overall = groups[("all", "all")]
    assert overall["with_lessons"]["tasks"] == 1 and overall["without_lessons"]["tasks"] == 2
    assert overall["without_lessons"]["false_positive_rate"]["value"] == 0.5
    assert groups[("company", "acme")]["with_lessons"]["tasks"] == 1
    assert groups[("category", "web")]["without_lessons"]["tasks"] == 1
    assert set(groups) >= {("company", "globex"), ("category", "api")}


def test_report_counts_how_tasks_were_assigned(make_task) -> None:
    cards = [outcome_card(make_task(t)) for t in ("A", "B", "C", "D")]
    usage = [
        {"task": "A", "mode": "inject", "assign": "hash", "lessons": ["L1"]},
        {"task": "B", "mode": "shadow", "assign": "hash", "lessons": ["L1"]},
        {"task": "C", "mode": "shadow", "assign": "none", "lessons": []},
        {"task": "Z", "mode": "inject", "assign": "hash", "lessons": ["L1"]},  # still open
    ]
    assert build_report(cards, usage)["assignment"] == {
        "hash_inject": 1,
        "hash_shadow": 1,
        "configured_inject": 0,
        "configured_shadow": 1,
        "never_considered": 1,
    }
