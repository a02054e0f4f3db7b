"""Inter-process (and inter-thread) locks on a sibling `.lock` file, via filelock."""

from __future__ import annotations

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
    import filelock  # imported here: it costs ~20 ms, and `kb check` never locks

    lock_file = lock_path_for(path)
    lock = filelock.FileLock(str(lock_file), timeout=timeout, thread_local=False)
    try:
        _make_lock_dir(lock_file.parent)
        lock.acquire()
    except filelock.Timeout as exc:
        raise LockTimeoutError(
            f"{lock_file}: still locked after {timeout:.0f}s by another kbkit process; "
            "wait for it to finish, then retry"
        ) from exc
    except OSError as exc:  # a read-only or full folder (filelock.Timeout is caught above)
        raise environment_failure(exc, lock_file, "cannot create the lock file") from exc
    try:
        yield
    finally:
        lock.release()
