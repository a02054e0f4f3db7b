"""Extraction of many task records from files, as `kb lessons extract` does it.

Every record is checked before anything is written (a bad one anywhere is one error naming
its file and line, and the store stays as it was). A record whose bytes are those the
store's latest outcome card of that task was read from (`extraction.record_digest`) is
recognised without being parsed again: re-running over the same files costs a hash per
line. The records that are new or changed are then extracted and added in units of whole
tasks (`LessonStore.add_verdicts`), each read again from its file by its offsets and checked
against the digest it had when it was validated; only stdin is held in memory.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import BinaryIO, NamedTuple

from kbkit.infra.errors import InputError
from kbkit.infra.jsonl import gc_paused
from kbkit.lessons.extraction import Extraction, extract, record_digest
from kbkit.lessons.store import AddResult, LessonStore
from kbkit.lessons.task_records import parse_record, read_input


class _Line(NamedTuple):
    source: int  # index into the inputs
    start: int
    end: int
    task: str
    digest: str | None  # None: the bytes of the task's current record (unchanged)


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
    lines = [line for source, item in enumerate(inputs) for line in _checked(source, item, current)]
    del current
    last = {line.task: n for n, line in enumerate(lines)}
    count = len(lines)
    unchanged = sum(1 for n, line in enumerate(lines) if last[line.task] == n and not line.digest)

    # Files are read again record by record while the store grows (stdin stays in memory):
    # holding every input's bytes through the writes was a sixth of the peak.
    kept = [data if path == "-" else None for path, data, _many in inputs]
    paths = [path for path, _data, _many in inputs]
    inputs.clear()

    def changed() -> Iterator[Extraction]:
        with _Rereader(paths, kept) as reread:
            for n, line in enumerate(lines):
                if last[line.task] == n and line.digest:
                    raw = reread(line)
                    record = parse_record(raw, "", None, validate=False)
                    yield extract(record, validate=False)._replace(digest=line.digest)
        lines.clear()  # all read: gone before the store writes its cache (the peak)
        last.clear()

    result = store.add_verdicts(changed())
    return result._replace(tasks=count), unchanged


class _Rereader:
    """The bytes of a checked record, read again from its file (or the kept stdin); an
    InputError when they are no longer the bytes that were checked (the file changed
    while it was read: whole units of tasks before it may be recorded; run it again)."""

    def __init__(self, paths: list[str], kept: list[bytes | None]):
        self.paths = paths
        self.kept = kept
        self.files: dict[int, BinaryIO] = {}

    def __enter__(self) -> _Rereader:
        return self

    def __exit__(self, *exc: object) -> None:
        for handle in self.files.values():
            handle.close()

    def __call__(self, line: _Line) -> bytes:
        data = self.kept[line.source]
        if data is not None:
            return data[line.start : line.end]
        handle = self.files.get(line.source)
        path = self.paths[line.source]
        try:
            if handle is None:
                handle = self.files[line.source] = open(path, "rb")  # noqa: SIM115
            raw = os.pread(handle.fileno(), line.end - line.start, line.start)
        except OSError as exc:
            raise InputError(f"cannot read again: {exc.strerror}", path=path) from exc
        if record_digest(raw) != line.digest:
            raise InputError(
                "changed since it was checked (the store holds whole tasks only: some of "
                "those before may be recorded); run the command again",
                path=path,
            )
        return raw


def _checked(
    source: int, item: tuple[str, bytes, bool], current: dict[str, str]
) -> Iterator[_Line]:
    """Every record of one input, checked (an InputError names the file and line) unless
    its digest is that of its task's current record."""
    path, data, many = item
    shown = "<stdin>" if path == "-" else path
    for number, start, end in _records(data, many):
        raw = data[start:end]
        digest = record_digest(raw)  # once per record: kept for the extraction
        task = current.get(digest)
        if task is not None:
            yield _Line(source, start, end, task, None)
            continue
        record = parse_record(raw, shown, number if many else None)
        yield _Line(source, start, end, str(record["id"]), digest)


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
