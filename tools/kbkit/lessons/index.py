"""The cache of the lessons fold (`kbkit.lessons.fold`), read incrementally.

The JSONL logs are the only source of truth. Folding them is cached under `.index/` so a
large store is not re-parsed on every call. Because the logs are append-only, the cache
remembers how far it read each log (inode, size, mtime, byte offset and the bytes just
before it) and only reads what was appended since; anything else (a rewritten, truncated
or union-merged file) triggers a full rebuild. Delete `.index/` at any time.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from kbkit.infra.json_input import loads
from kbkit.intake.ledger_reading import parse_whole
from kbkit.lessons.fold import FOLDERS, FoldState, count_support

LOG_NAMES = ("lessons", "evidence", "tombstones", "outcomes", "transitions")
TAIL = 64


def log_path(root: Path, name: str) -> Path:
    return root / f"{name}.jsonl"


def signature(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def is_current(state: FoldState, root: Path) -> bool:
    """True when no log changed since the state was folded."""
    for name in LOG_NAMES:
        sig = signature(log_path(root, name))
        mark = state.marks.get(name)
        if (mark[:3] if mark else None) != sig:
            return False
    return True


def refresh(state: FoldState, root: Path) -> FoldState:
    """Fold what was appended since `state`; rebuild from scratch when a log was rewritten."""
    if not _can_continue(state, root):
        state = FoldState()
    for name in LOG_NAMES:
        _fold_log(state, root, name)
    if state.support_stale:
        state.support = count_support(state)
        state.support_stale = False
    return state


def absorb(
    state: FoldState,
    root: Path,
    appended: list[tuple[str, list[dict[str, Any]], list[bytes]]],
    *,
    outcomes: dict[str, tuple[str, str | None]] | None = None,
) -> None:
    """Fold rows this process just appended (under the store lock, to a state that was
    current) without reading them back: (log, rows, their encoded lines) per log, and the
    outcome rows already folded (`outcomes`). When a log is not as expected (a torn last
    line, another writer), fold it from the file instead."""
    for name, rows, lines in appended:
        if not rows:
            continue
        path = log_path(root, name)
        mark = state.marks.get(name)
        consumed, newlines = (mark[3], mark[4]) if mark else (0, 0)
        sig = signature(path)
        clean = (mark is None or mark[1] == mark[3]) and name not in state.torn
        if sig is None or not clean or sig[1] != consumed + sum(len(line) for line in lines):
            _fold_log(state, root, name)
            continue
        if name == "outcomes" and outcomes is not None:
            state.outcomes.update((sys.intern(task), entry) for task, entry in outcomes.items())
        else:
            folder = FOLDERS[name]
            for offset, row in enumerate(rows):
                problem = folder(state, row, newlines + offset + 1)
                if problem:
                    state.problems.append((name, newlines + offset + 1, problem))
        consumed = sig[1]
        tail = b"".join(lines)[-TAIL:]
        if len(tail) < TAIL and consumed > len(tail):
            with path.open("rb") as handle:
                handle.seek(max(0, consumed - TAIL))
                tail = handle.read(min(TAIL, consumed))
        state.marks[name] = (*sig, consumed, newlines + len(rows), tail)
    if state.support_stale:
        state.support = count_support(state)
        state.support_stale = False


def _can_continue(state: FoldState, root: Path) -> bool:
    for name, mark in state.marks.items():
        path = log_path(root, name)
        sig = signature(path)
        ino, _size, _mtime, consumed, _lines, tail = mark
        if sig is None or sig[0] != ino or sig[1] < consumed:
            return False
        if consumed:
            with path.open("rb") as handle:
                handle.seek(max(0, consumed - TAIL))
                if handle.read(min(TAIL, consumed)) != tail:
                    return False
    return True


def _fold_log(state: FoldState, root: Path, name: str) -> None:
    path = log_path(root, name)
    sig = signature(path)
    if sig is None:
        state.marks.pop(name, None)
        state.torn.pop(name, None)
        return
    mark = state.marks.get(name)
    if mark and mark[:3] == sig:
        return
    consumed, newlines = (mark[3], mark[4]) if mark else (0, 0)
    with path.open("rb") as handle:
        handle.seek(consumed)
        data = handle.read()
    end = data.rfind(b"\n") + 1
    fragment = data[end:]
    state.torn.pop(name, None)
    if fragment.strip():
        # An unterminated last line: keep it when it is a whole row (a crash right before
        # the newline); otherwise leave it unread: the next append starts a fresh line and
        # it is then reported as a malformed line.
        if isinstance(_decode(fragment), dict):
            end = len(data)
        else:
            state.torn[name] = newlines + data.count(b"\n") + 1
    folder = FOLDERS[name]
    for index, row in _rows(data[:end]):
        line = newlines + index + 1
        problem = row if isinstance(row, str) else folder(state, row, line)
        if problem:
            state.problems.append((name, line, problem))
    newlines += data.count(b"\n", 0, end)
    consumed += end
    with path.open("rb") as handle:
        handle.seek(max(0, consumed - TAIL))
        tail = handle.read(min(TAIL, consumed))
    state.marks[name] = (*sig, consumed, newlines, tail)


def _rows(chunk: bytes) -> Iterable[tuple[int, dict[str, Any] | str]]:
    """(line index, row or the problem with it) for every line of `chunk` that is not blank."""
    whole = parse_whole(chunk)  # a clean chunk in one C call: what a cold fold mostly reads
    if whole is not None:
        return enumerate(whole)
    return _rows_one_by_one(chunk)


def _rows_one_by_one(chunk: bytes) -> Iterator[tuple[int, dict[str, Any] | str]]:
    try:  # one decode for the whole chunk; a bad byte sends us line by line
        lines: list[Any] = chunk.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        lines = chunk.split(b"\n")
    for index, raw in enumerate(lines):
        if raw.strip():
            yield index, _decode(raw)


def _decode(raw: str | bytes) -> dict[str, Any] | str:
    try:
        value = loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        return f"not valid JSON ({exc.__class__.__name__})"
    return value if isinstance(value, dict) else "expected a JSON object"


def read_cache(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def write_cache(path: Path, data: bytes) -> bool:
    """Best effort: a read-only checkout still works, only slower. True when written."""
    from kbkit.infra.jsonl import atomic_write_bytes
    from kbkit.infra.state_folder import make_state_folder

    try:
        make_state_folder(path.parent, "derived cache of the lessons logs; safe to delete")
        atomic_write_bytes(path, data)  # also removes temp files of writers that died
    except OSError:
        return False
    return True
