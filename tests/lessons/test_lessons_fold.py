"""`kbkit.lessons.fold`: what each log row means to the folded state (no files involved)."""

from __future__ import annotations

from typing import Any

import pytest

from kbkit.lessons import fold

LESSON = {"id": "L1", "kind": "positive", "cue": "sqli", "action": "Check the login form"}
EVIDENCE = {"lesson": "L1", "source_kind": "finding", "source_id": "T1/F1", "task": "T1"}


def folded(name: str, rows: list[dict[str, Any]]) -> fold.FoldState:
    state = fold.FoldState()
    for line, row in enumerate(rows, 1):
        problem = fold.FOLDERS[name](state, row, line)
        if problem:
            state.problems.append((name, line, problem))
    return state


def test_the_first_lesson_row_of_an_id_wins() -> None:
    state = folded("lessons", [LESSON, {**LESSON, "action": "later", "company": "acme"}])
    assert state.lessons["L1"][:5] == ("positive", None, None, "sqli", "Check the login form")
    assert state.problems == []


@pytest.mark.parametrize(
    "change",
    [
        {"kind": []},
        {"kind": {"a": 1}},
        {"kind": "unknown"},
        {"id": ""},
        {"cue": 3},
        {"action": None},
    ],
)
def test_a_lesson_row_with_a_bad_field_is_one_problem(change: dict[str, Any]) -> None:
    # `"kind": []` raised TypeError (unhashable) in the kind lookup: a crash, not a problem
    state = folded("lessons", [{**LESSON, **change}, {**LESSON, "id": "L2"}])
    assert state.problems == [("lessons", 1, "lesson row without id, kind, cue or action")]
    assert list(state.lessons) == ["L2"]


def test_evidence_counts_once_per_key_and_aggregates_support() -> None:
    rows: list[dict[str, Any]] = [
        {**EVIDENCE, "at": "2026-11-01"},
        {**EVIDENCE, "at": "2026-11-09"},  # the same key again: not counted
        {**EVIDENCE, "source_id": "T2/F1", "task": "T2", "at": "2026-11-05"},
        {**EVIDENCE, "task": ["T3"]},
    ]
    state = folded("evidence", rows)
    assert state.problems == [
        ("evidence", 4, "evidence row without lesson, source_kind, source_id or task")
    ]
    assert state.support == {"L1": [2, "2026-11-05", ["T1", "T2"], ["2026-11-01", "2026-11-05"]]}
    assert state.support == fold.count_support(state)
    assert fold.live_support(state)["L1"].rows == 2


def test_forgotten_evidence_stops_counting() -> None:
    state = folded("evidence", [EVIDENCE])
    key = ["L1", "finding", "T1/F1"]
    problem = fold.FOLDERS["tombstones"](
        state, {"source_kind": "finding", "source_id": "T1/F1", "keys": [key]}, 1
    )
    assert problem == "" and state.support_stale
    assert fold.count_support(state) == {}


def test_support_counts_are_the_rows_of_live_support() -> None:
    state = folded("evidence", [EVIDENCE, {**EVIDENCE, "lesson": "L2", "source_id": "T1/F2"}])
    state.support["L3"] = [0, "", []]  # a lesson whose evidence all stopped counting
    assert fold.support_counts(state) == {
        lid: s.rows for lid, s in fold.live_support(state).items()
    }
    assert fold.support_counts(state) == {"L1": 1, "L2": 1}
