"""Outcome cards (the report is tested in test_lessons_report.py)."""

from __future__ import annotations

from kbkit.lessons.outcomes import outcome_card


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
