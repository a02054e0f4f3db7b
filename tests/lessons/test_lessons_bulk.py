"""`kb lessons extract` over files: records are re-read by their offsets while the store
grows, and a file that changed since it was checked stops the run with a clear error and
whole tasks recorded."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kbkit.infra.errors import InputError
from kbkit.lessons import bulk
from kbkit.lessons.store import LessonStore

TaskFactory = Callable[..., dict[str, Any]]


def _write(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def _tasks(make_task: TaskFactory, count: int) -> list[dict[str, Any]]:
    finding = [("F1", "confirmed", "sqli", "login form")]
    return [make_task(f"T{n}", findings=finding) for n in range(count)]


def test_records_read_again_from_the_file_are_extracted_as_checked(
    store: LessonStore, tmp_path: Path, make_task: TaskFactory
) -> None:
    source = tmp_path / "tasks.jsonl"
    _write(source, _tasks(make_task, 30))
    result, unchanged = bulk.extract_inputs(store, [], [str(source)])
    assert (result.tasks, result.new_outcomes, unchanged) == (30, 30, 0)
    again, unchanged = bulk.extract_inputs(store, [], [str(source)])
    assert (again.new_outcomes, again.new_evidence, unchanged) == (0, 0, 30)


def test_a_file_changed_after_it_was_checked_stops_with_whole_tasks(
    store: LessonStore, tmp_path: Path, make_task: TaskFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "tasks.jsonl"
    records = _tasks(make_task, 12)
    _write(source, records)
    add = LessonStore.add_verdicts

    def edit_then_add(self: LessonStore, extractions: Any, *, chunk: int = 5000) -> Any:
        # another program rewrites record 7 between the check and the extraction
        lines = source.read_bytes().split(b"\n")
        lines[7] = lines[7].replace(b"login form", b"LOGIN FORM")
        source.write_bytes(b"\n".join(lines))
        return add(self, extractions, chunk=5)

    monkeypatch.setattr(LessonStore, "add_verdicts", edit_then_add)
    with pytest.raises(InputError, match="changed since it was checked") as raised:
        bulk.extract_inputs(store, [], [str(source)])
    assert str(source) in str(raised.value)
    recorded = sorted(store.state().outcomes)
    assert recorded == sorted(f"T{n}" for n in range(5))  # one whole unit, nothing of T7
    monkeypatch.setattr(LessonStore, "add_verdicts", add)
    result, unchanged = bulk.extract_inputs(store, [], [str(source)])  # run it again
    assert (unchanged, result.new_outcomes) == (5, 7)
    assert sorted(store.state().outcomes) == sorted(r["id"] for r in records)


def test_stdin_is_kept_in_memory(
    store: LessonStore, make_task: TaskFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "".join(json.dumps(r) + "\n" for r in _tasks(make_task, 3))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    result, _unchanged = bulk.extract_inputs(store, [], ["-"])
    assert result.new_outcomes == 3
