"""Append-only JSONL logs and atomic file replacement.

Every append is one `O_APPEND` write per row under a lock, followed by fsync, so a crash
leaves at most one torn last line. Readers report such a line and skip it; the next append
starts on a fresh line so the torn fragment never swallows a new row.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.file_lock import locked
from kbkit.json_input import loads


class Row(NamedTuple):
    line: int
    data: dict[str, Any]


class Problem(NamedTuple):
    line: int
    message: str
    torn: bool  # the unterminated last line a crash can leave


class JsonlContents(NamedTuple):
    rows: list[Row]
    problems: list[Problem]


def _decode_line(raw: bytes) -> dict[str, Any] | str:
    try:
        value = loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        return f"not valid JSON ({exc.__class__.__name__}: {str(exc)[:80]})"
    if not isinstance(value, dict):
        return f"expected a JSON object, got {type(value).__name__}"
    return value


def read_jsonl(path: Path) -> JsonlContents:
    """Read every row; malformed lines become problems with their line numbers."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return JsonlContents([], [])
    rows: list[Row] = []
    problems: list[Problem] = []
    lines = data.split(b"\n")
    terminated = data.endswith(b"\n")
    last = len(lines) - 1
    for index, raw in enumerate(lines):
        if not raw.strip():
            continue
        decoded = _decode_line(raw)
        if isinstance(decoded, dict):
            rows.append(Row(index + 1, decoded))
        else:
            torn = index == last and not terminated
            message = "torn last line (an interrupted write); skipped" if torn else decoded
            problems.append(Problem(index + 1, message, torn))
    return JsonlContents(rows, problems)


def iter_rows(path: Path) -> Iterator[dict[str, Any]]:
    yield from (row.data for row in read_jsonl(path).rows)


def encode_row(row: dict[str, Any]) -> bytes:
    return (
        json.dumps(row, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"
    ).encode()


def append_rows(path: Path, rows: Iterable[dict[str, Any]], *, timeout: float = 60.0) -> int:
    """Append rows under the file's lock, one write per row, then fsync. Returns the count."""
    encoded = [encode_row(row) for row in rows]
    if not encoded:
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with locked(path, timeout):
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            if _ends_torn(fd):
                os.write(fd, b"\n")
            for line in encoded:
                os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)
    return len(encoded)


def _ends_torn(fd: int) -> bool:
    size = os.fstat(fd).st_size
    return size > 0 and os.pread(fd, 1, size - 1) != b"\n"


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace `path` with `data`: temp file in the same folder, fsync, os.replace."""
    import tempfile  # imported here to keep `kb check` start-up light

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic GC while building many fresh rows: JSON dicts and key tuples hold no
    cycles, and 100k of them trigger full collections that only cost time (measured: about
    a third of a large ledger parse)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
