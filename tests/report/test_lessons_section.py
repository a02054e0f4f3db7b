"""`kbkit.report.lessons_section`: scope and support figures against a naive recount."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from kbkit.lessons.extraction import extract
from kbkit.lessons.fold import live_support
from kbkit.lessons.store import LessonStore
from kbkit.report import lessons_section
from kbkit.report.window import make_window
from tests.lessons.test_lessons_store import corpus


def test_scopes_and_support_buckets_match_a_lesson_by_lesson_count(tmp_path: Path) -> None:
    store = LessonStore(tmp_path / "lessons")
    store.add(extract(task) for task in corpus(60))
    state = store.state()
    data = lessons_section.collect(store.root, make_window(None, None), "src")
    support = {lid: s.rows for lid, s in live_support(state).items()}
    scopes = Counter(lessons_section._scope(row[1], row[2]) for row in state.lessons.values())
    assert data["scopes"] == len(scopes) > 1
    top = sorted(scopes.items(), key=lambda i: (-i[1], i[0]))[: lessons_section.TOP]
    assert [(r["scope"], r["lessons"]) for r in data["by_scope"]] == top
    expected = []
    for low, high in lessons_section.SUPPORT_BUCKETS:
        counts = [support.get(lid, 0) for lid in state.lessons]
        expected.append(sum(1 for c in counts if c >= low and (high is None or c <= high)))
    assert [b["lessons"] for b in data["support"]] == expected
    assert sum(expected) == data["lessons"] == len(state.lessons)
