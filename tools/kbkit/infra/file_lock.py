"""Inter-process (and inter-thread) locks on a sibling `.lock` file.

Where the platform and file system have `flock` (Linux, macOS), the lock is taken with it
directly: an exclusive `flock` on the lock file, polled until the timeout, as filelock's
Unix lock takes it (the two exclude each other, which a test holds to). Importing filelock
costs about 30 ms, a large share of a short command such as `kb lessons bundle` that
appends one usage row; it is imported only where `flock` is missing (Windows, a file
system that answers ENOSYS), and it stays the test oracle.
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kbkit.infra.errors import LockTimeoutError, environment_failure

DEFAULT_TIMEOUT = 60.0


# Lock files live in a self-ignoring folder next to what they guard, so that no lock is ever
# left in a user's `git status`, whatever their .gitignore says.
LOCK_DIR = ".kbkit-locks"


def lock_path_for(path: Path) -> Path:
    return path.parent / LOCK_DIR / (path.name + ".lock")


def _make_lock_dir(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# kbkit's lock files; never commit them\n*\n", "utf-8")


@contextmanager
def locked(path: Path, timeout: float = DEFAULT_TIMEOUT) -> Iterator[None]:
    """Hold the lock that guards `path` (a file or a folder) for the duration of the block."""
    lock_file = lock_path_for(path)
    try:
        _make_lock_dir(lock_file.parent)
        fd = _flock(lock_file, timeout)
    except OSError as exc:  # a read-only or full folder
        raise environment_failure(exc, lock_file, "cannot create the lock file") from exc
    if fd is None:  # no flock here: filelock decides how to lock
        with _filelock(lock_file, timeout):
            yield
        return
    try:
        yield
    finally:
        os.close(fd)  # closing the last descriptor of the open file releases its flock


POLL = 0.05


def _flock(lock_file: Path, timeout: float) -> int | None:
    """A descriptor holding an exclusive flock on `lock_file`, or None when the platform or
    file system has no flock. Polls until `timeout` (LockTimeoutError)."""
    fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + timeout
    try:
        while True:
            taken = _try_flock(fd)
            if taken is None:
                os.close(fd)
                return None
            if taken:
                return fd
            left = deadline - time.monotonic()
            if left <= 0:
                raise _timeout(lock_file, timeout)
            time.sleep(min(POLL, left))
    except BaseException:
        with contextlib.suppress(OSError):
            os.close(fd)
        raise


def _try_flock(fd: int) -> bool | None:
    """True: locked; False: another holder has it; None: no flock on this platform or
    file system."""
    try:
        import fcntl
    except ImportError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno == errno.ENOSYS:
            return None
        if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
            return False
        raise
    return True


@contextmanager
def _filelock(lock_file: Path, timeout: float) -> Iterator[None]:
    import filelock  # only without flock: it costs ~30 ms to import

    lock = filelock.FileLock(str(lock_file), timeout=timeout, thread_local=False)
    try:
        lock.acquire()
    except filelock.Timeout as exc:
        raise _timeout(lock_file, timeout) from exc
    except OSError as exc:  # a read-only or full folder (filelock.Timeout is caught above)
        raise environment_failure(exc, lock_file, "cannot create the lock file") from exc
    try:
        yield
    finally:
        lock.release()


def _timeout(lock_file: Path, timeout: float) -> LockTimeoutError:
    return LockTimeoutError(
        f"{lock_file}: still locked after {timeout:.0f}s by another kbkit process; "
        "wait for it to finish, then retry"
    )
