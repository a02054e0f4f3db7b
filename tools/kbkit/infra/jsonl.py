"""Append-only JSONL logs and atomic file replacement.

Every append writes whole rows (joined into writes of about a MiB) with `O_APPEND` under a
lock, followed by fsync, so a crash leaves at most one torn last line. Readers report such a
line and skip it; the next append starts on a fresh line so the torn fragment never swallows
a new row. A write that fails (a full disk) cuts the file back to its old length under the
lock and raises.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import json
import os
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.infra.errors import UsageError, environment_failure, is_environment
from kbkit.infra.file_lock import locked
from kbkit.infra.json_input import loads
from kbkit.infra.lazy_pattern import lazy
from kbkit.infra.regular_file import NotRegularFile, read_regular_bytes


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
        data = read_regular_bytes(path)  # a FIFO in a ledger's place would block forever
    except FileNotFoundError:
        return JsonlContents([], [])
    except NotRegularFile as exc:
        raise UsageError(f"{path}: {exc.kind}, not a regular file; not read") from exc
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
    text = json.dumps(row, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"
    try:
        return text.encode()
    except UnicodeEncodeError:  # a lone surrogate (JSON input may carry "\\ud800"): escaped,
        return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode()


_LONE_SURROGATE = lazy("[\ud800-\udfff]")  # the same string when read back


def append_rows(path: Path, rows: Iterable[dict[str, Any]], *, timeout: float = 60.0) -> int:
    """Append rows under the file's lock, then fsync; all of them or none. Returns the count."""
    return append_together([(path, rows)], timeout=timeout)[0]


def append_together(
    groups: Iterable[tuple[Path, Iterable[dict[str, Any] | bytes]]], *, timeout: float = 60.0
) -> list[int]:
    """Append rows to several files as one unit: every row of every file, or no byte at all.

    Locks are taken in path order (no two writers can deadlock); when any write fails (a full
    disk, a quota), every file written so far is truncated back to its old length before the
    error is raised as an EnvironmentFailure naming the file. Returns the count per file.
    """
    encoded = [
        (path, [row if isinstance(row, bytes) else encode_row(row) for row in rows])
        for path, rows in groups
    ]  # a row may come already encoded (`encode_row`'s bytes)
    counts = [len(lines) for _, lines in encoded]
    work = [(path, lines) for path, lines in encoded if lines]
    if not work:
        return counts
    with ExitStack() as stack:
        for path in sorted({path for path, _ in work}):
            _make_folder(path.parent)
            stack.enter_context(locked(path, timeout))
        written: list[tuple[Path, int]] = []  # (file, its length before; -1: it was new)
        try:
            for path, lines in work:
                written.append((path, _append_locked(path, lines)))
        except BaseException as exc:  # a full disk, or Ctrl-C half way: undo every file
            for done, length in written:
                _restore(done, length)
            if is_environment(exc):
                assert isinstance(exc, OSError)
                raise environment_failure(exc, exc.filename or path) from exc
            raise
    return counts


def _append_locked(path: Path, lines: list[bytes]) -> int:
    """Append whole lines (the caller holds the lock); on failure restore the old length, or
    remove the file when this call created it. Returns the old length (-1: created)."""
    created = False
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND)
    except FileNotFoundError:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o644)
        created = True
    try:
        length = os.fstat(fd).st_size
        try:
            if length > 0 and os.pread(fd, 1, length - 1) != b"\n":
                _write_all(fd, b"\n")  # a torn last line never swallows the new row
            for chunk in _chunks(lines):
                _write_all(fd, chunk)
            os.fsync(fd)
        except BaseException as exc:
            # Under the lock nobody else appended: cutting back to `length` removes exactly
            # what this call wrote, torn row included.
            with contextlib.suppress(OSError):
                os.ftruncate(fd, length)
                os.fsync(fd)
            if created:
                with contextlib.suppress(OSError):
                    os.unlink(path)
            if isinstance(exc, OSError) and exc.filename is None:
                exc.filename = str(path)
            raise
        return -1 if created else length
    finally:
        os.close(fd)


CHUNK_BYTES = 1 << 20


def _chunks(lines: list[bytes]) -> Iterator[bytes]:
    """Whole lines joined into writes of about a MiB: few system calls, and a crash still
    leaves a prefix of the rows (at most one torn last line, as with one write per row)."""
    batch: list[bytes] = []
    size = 0
    for line in lines:
        batch.append(line)
        size += len(line)
        if size >= CHUNK_BYTES:
            yield b"".join(batch)
            batch, size = [], 0
    if batch:
        yield b"".join(batch)


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        if is_environment(exc):
            raise environment_failure(exc, folder, "cannot create the folder") from exc
        raise


def _write_all(fd: int, data: bytes) -> None:
    """os.write until every byte is out; a short write is retried, never ignored."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written <= 0:  # a write that makes no progress is a full device
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[written:]


def _restore(path: Path, length: int) -> None:
    """Undo an append that succeeded: cut back to `length`, or remove a file it created."""
    if length < 0:
        with contextlib.suppress(OSError):
            os.unlink(path)
        return
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_WRONLY)
        try:
            os.ftruncate(fd, length)
            os.fsync(fd)
        finally:
            os.close(fd)


# Temp files are `.NAME.PID.HOST.RANDOM.tmp` beside their target: a later write to any file of
# the folder removes the ones whose writer (same host, same pid namespace) is dead. No clock
# and no age: a live writer's temp file is never touched, a dead one's always goes.
TEMP_SUFFIX = ".tmp"


def _host_tag() -> str:
    import hashlib

    return hashlib.sha256(os.uname().nodename.encode()).hexdigest()[:8]


def temp_path(path: Path) -> Path:
    """A fresh temp file name beside `path` that names this process (for the sweep)."""
    return path.with_name(
        f".{path.name}.{os.getpid()}.{_host_tag()}.{os.urandom(4).hex()}{TEMP_SUFFIX}"
    )


def _writer_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, owned by someone else
    return True


def sweep_temp_files(folder: Path) -> list[Path]:
    """Remove abandoned temp files in `folder` (writer dead, this host); return them."""
    host = _host_tag()
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        name = entry.name
        if not (name.startswith(".") and name.endswith(TEMP_SUFFIX)):
            continue
        parts = name[: -len(TEMP_SUFFIX)].rsplit(".", 3)
        if len(parts) != 4 or not parts[1].isdigit() or parts[2] != host:
            continue  # not ours, or another host's: never guess
        if _writer_alive(int(parts[1])):
            continue
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
            removed.append(Path(entry.path))
    return removed


def remove_temp_files_of(path: Path) -> list[Path]:
    """Remove every temp file of `path`, of any writer; call only under `path`'s own lock
    when every atomic writer of `path` holds that lock (then none of them is writing)."""
    removed = []
    from glob import escape as glob_escape

    for temp in path.parent.glob(f".{glob_escape(path.name)}.*{TEMP_SUFFIX}"):
        with contextlib.suppress(OSError):
            temp.unlink()
            removed.append(temp)
    return removed


IGNORE_TRANSIENT = "# kbkit: locks and temp files of atomic writes\n*.lock\n.*.tmp\n"


def ignore_transient_files(folder: Path) -> None:
    """Give a kbkit folder that git tracks a `.gitignore` for its lock and temp files."""
    ignore = folder / ".gitignore"
    if not ignore.exists():
        atomic_write_text(ignore, IGNORE_TRANSIENT)


def atomic_write_bytes(path: Path, data: bytes, durable: bool = True) -> None:
    """Replace `path` with `data`: temp file in the same folder, fsync, os.replace.

    On any failure the temp file is removed and `path` is untouched; a full disk or a
    read-only folder raises an EnvironmentFailure that names `path`. `durable=False` skips
    the two fsyncs (a few milliseconds each): still all or nothing when the process dies,
    but a power cut may lose the file, so only for files their reader checks and rewrites.
    """
    _make_folder(path.parent)
    sweep_temp_files(path.parent)
    tmp = temp_path(path)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            _write_all(fd, data)
            if durable:
                os.fsync(fd)
            try:
                mode = path.stat().st_mode & 0o7777
            except FileNotFoundError:
                mode = 0o644
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if is_environment(exc):
            assert isinstance(exc, OSError)
            raise environment_failure(exc, path) from exc
        raise
    if durable:
        _fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str, durable: bool = True) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), durable)


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
