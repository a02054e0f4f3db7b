"""Lint rules on the library level: each conflict names its own lessons."""

from __future__ import annotations

from kbkit.lessons.extraction import extract
from kbkit.lessons.lint import lint_store
from kbkit.lessons.store import LessonStore


def test_each_conflict_names_its_own_pair(store: LessonStore, make_task) -> None:
    tasks = [
        make_task(
            "T1",
            findings=[
                ("F1", "confirmed", "xss", "search box"),
                ("F2", "confirmed", "sqli", "login form"),
            ],
        ),
        make_task(
            "T2",
            findings=[
                ("F1", "false_positive", "xss", "search box"),
                ("F2", "false_positive", "sqli", "login form"),
            ],
        ),
    ]
    result = store.add(extract(t) for t in tasks)
    assert result.new_lessons == 4
    state = store.state()
    findings = [
        f
        for f in lint_store(state, set(), set(state.outcomes), str)
        if f.rule_id == "lessons-conflict"
    ]
    assert len(findings) == 2
    by_cue = {("'xss'" in f.message): f.message for f in findings}
    for is_xss, message in by_cue.items():
        cue = "xss" if is_xss else "sqli"
        negative, positive = message.split()[0], message.split("contradicts ")[1].split()[0]
        assert state.lessons[negative][3] == cue and state.lessons[positive][3] == cue


def test_a_forgotten_side_ends_the_conflict(store: LessonStore, make_task) -> None:
    store.add(
        extract(t)
        for t in [
            make_task("T1", findings=[("F1", "confirmed", "xss", "search box")]),
            make_task("T2", findings=[("F1", "false_positive", "xss", "search box")]),
        ]
    )
    store.forget("task", "T2")
    state = store.state()
    rules = {f.rule_id for f in lint_store(state, set(), set(state.outcomes), str)}
    assert "lessons-conflict" not in rules and "lessons-unsupported" in rules
