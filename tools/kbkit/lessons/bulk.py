"""Extraction of many task records from files, as `kb lessons extract` does it.

Every record is checked before anything is written (a bad one anywhere is one error naming
its file and line, and the store stays as it was). A record whose bytes are those the
store's latest outcome card of that task was read from (`extraction.record_digest`) is
recognised without being parsed again: re-running over the same files costs a hash per
line. The records that are new or changed are then extracted and added in units of whole
tasks (`LessonStore.add_verdicts`); the input is held as bytes, never as parsed records.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from kbkit.infra.jsonl import gc_paused
from kbkit.lessons.extraction import Extraction, extract, record_digest
from kbkit.lessons.store import AddResult, LessonStore
from kbkit.lessons.task_records import parse_record, read_input


class _Line(NamedTuple):
    source: int  # index into the inputs
    start: int
    end: int
    task: str
    changed: bool  # False: the bytes of the task's current record


def extract_inputs(store: LessonStore, files: list[str], jsonl: list[str]) -> tuple[AddResult, int]:
    """(what was added, how many records were recognised as unchanged)."""
    with gc_paused():  # hundreds of thousands of rows and keys: no cyclic garbage among them
        return _extract_inputs(store, files, jsonl)


def _extract_inputs(
    store: LessonStore, files: list[str], jsonl: list[str]
) -> tuple[AddResult, int]:
    inputs: list[tuple[str, bytes, bool]] = [(f, read_input(f), False) for f in files]
    inputs += [(f, read_input(f), True) for f in jsonl]
    current = {digest: task for task, (_card, digest) in store.state().outcomes.items() if digest}
    lines: list[_Line] = []
    for source, (path, data, many) in enumerate(inputs):
        shown = "<stdin>" if path == "-" else path
        for number, start, end in _records(data, many):
            raw = data[start:end]
            task = current.get(record_digest(raw))
            if task is not None:
                lines.append(_Line(source, start, end, task, False))
                continue
            record = parse_record(raw, shown, number if many else None)
            lines.append(_Line(source, start, end, str(record["id"]), True))
    last = {line.task: n for n, line in enumerate(lines)}

    def changed() -> Iterator[Extraction]:
        for n, line in enumerate(lines):
            if last[line.task] == n and line.changed:
                raw = inputs[line.source][1][line.start : line.end]
                record = parse_record(raw, "", None, validate=False)
                yield extract(record, validate=False)._replace(digest=record_digest(raw))

    result = store.add_verdicts(changed())
    unchanged = sum(1 for n, line in enumerate(lines) if last[line.task] == n and not line.changed)
    return result._replace(tasks=len(lines)), unchanged


def _records(data: bytes, many: bool) -> Iterator[tuple[int, int, int]]:
    """(line number, start, end) of each record: the whole file, or each non-blank line."""
    if not many:
        yield 1, 0, len(data)
        return
    start = 0
    for number, line in enumerate(data.split(b"\n"), start=1):
        end = start + len(line)
        if line.strip():
            yield number, start, end
        start = end + 1
