"""The view file's bucket index: a task's buckets are found by bisection in the mapped file,
exactly the buckets a scan of every bucket finds; a file of the earlier layout is rebuilt,
never misread."""

from __future__ import annotations

import marshal
from pathlib import Path

from kbkit.lessons.extraction import extract
from kbkit.lessons.selection import select_lessons
from kbkit.lessons.store import LessonStore
from kbkit.lessons.view import VIEW_FILE, SelectionView, load_view


def _store(store: LessonStore, make_task) -> None:
    finding = [("F1", "confirmed", "sqli", "login form"), ("F2", "false_positive", "xss", "echo")]
    scopes = [
        ("acme", "web"),
        ("acme", "api"),
        ("ACME ", None),
        (None, "web"),
        (None, None),
        ("10.0.0.1", "web"),  # keyed by a digest
        ("beta", "web"),
        ("beta", "mobile"),
        ("", "cloud"),
    ]
    tasks = [
        make_task(f"T{n}", company=company, category=category, findings=finding)
        for n, (company, category) in enumerate(scopes)
    ]
    store.add(extract(task) for task in tasks)


def test_bucket_lookups_find_what_a_scan_finds(store: LessonStore, make_task) -> None:
    _store(store, make_task)
    for view in (load_view(store), SelectionView.open(store.cache_dir / VIEW_FILE)):
        assert view is not None
        every = [view.scope(n) for n in range(len(view.bucket_first) - 1)]
        assert len(set(every)) == len(every) > 5
        companies = {scope[0] for scope in every} | {"nobody"}
        categories = {scope[1] for scope in every} | {"nothing"}
        for company in companies:
            found = [n for n, scope in enumerate(every) if scope[0] == company]
            assert list(view.company_buckets(company)) == found
        for category in categories:
            found = [n for n, scope in enumerate(every) if scope[1] == category]
            assert sorted(view.category_buckets(category)) == found
        assert view.generic_bucket() == every.index((None, None))
        positions = sorted(p for n in range(len(every)) for p in view.bucket(n))
        assert positions == list(range(len(view.ids)))  # every lesson in exactly one bucket
        for n, scope in enumerate(every):
            for p in view.bucket(n):
                row = store.state().lessons[view.ids[p]]
                assert (row[8], row[9]) == scope  # the lesson's own scope keys


def test_a_view_file_of_the_earlier_layout_is_rebuilt(store: LessonStore, make_task) -> None:
    _store(store, make_task)
    task = {"id": "Q1", "company": "acme", "category": "web"}
    expected = select_lessons(task, store)
    path: Path = store.cache_dir / VIEW_FILE
    # what the previous version wrote: its magic line, then a header of eight fields
    header = marshal.dumps((None, {}, {}, {}, {}, {}, {}, ""), 4)
    path.write_bytes(b"KBKIT-LESSONS-VIEW\n" + len(header).to_bytes(8, "little") + header)
    assert SelectionView.open(path) is None
    assert select_lessons(task, LessonStore(store.root)) == expected
    assert SelectionView.open(path) is not None  # rewritten in the new layout
