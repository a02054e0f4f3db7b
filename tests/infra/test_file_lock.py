"""The store locks: an exclusive flock that filelock (the oracle) respects and that respects
filelock, across threads and real processes; without flock, filelock itself locks."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import filelock
import pytest

from kbkit.infra import file_lock
from kbkit.infra.errors import LockTimeoutError
from kbkit.infra.file_lock import lock_path_for, locked


def test_filelock_cannot_take_a_lock_kbkit_holds_and_gets_it_after(tmp_path: Path) -> None:
    guarded = tmp_path / "store"
    oracle = filelock.FileLock(str(lock_path_for(guarded)), thread_local=False)
    with locked(guarded), pytest.raises(filelock.Timeout):
        oracle.acquire(timeout=0)
    oracle.acquire(timeout=0)
    oracle.release()


def test_kbkit_cannot_take_a_lock_filelock_holds(tmp_path: Path) -> None:
    guarded = tmp_path / "store"
    with locked(guarded):  # creates the lock folder
        pass
    oracle = filelock.FileLock(str(lock_path_for(guarded)), thread_local=False)
    with oracle.acquire(timeout=0):
        start = time.monotonic()
        with pytest.raises(LockTimeoutError, match="still locked after"), locked(guarded, 0.2):
            pass
        assert time.monotonic() - start >= 0.2
    with locked(guarded, 0):
        pass


def test_a_thread_waits_for_the_holder(tmp_path: Path) -> None:
    guarded = tmp_path / "store"
    order: list[str] = []
    holding = threading.Event()

    def other() -> None:
        holding.wait()
        with locked(guarded, 5):
            order.append("other")

    thread = threading.Thread(target=other)
    thread.start()
    with locked(guarded):
        holding.set()
        time.sleep(0.2)
        order.append("first")
    thread.join()
    assert order == ["first", "other"]


COUNTER = """
import sys
from pathlib import Path
from kbkit.infra.file_lock import locked
path = Path(sys.argv[1])
for _ in range(25):
    with locked(path):
        value = int(path.read_text() or 0)
        path.write_text(str(value + 1))
"""


@pytest.mark.slow
def test_processes_never_lose_an_update(tmp_path: Path) -> None:
    counter = tmp_path / "counter"
    counter.write_text("0")
    workers = [subprocess.Popen([sys.executable, "-c", COUNTER, str(counter)]) for _ in range(4)]
    assert [w.wait(timeout=120) for w in workers] == [0, 0, 0, 0]
    assert counter.read_text() == "100"


def test_a_lock_of_a_killed_process_is_free(tmp_path: Path) -> None:
    guarded = tmp_path / "store"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from kbkit.infra.file_lock import locked\n"
            "with locked(Path(sys.argv[1])):\n    print('held', flush=True); time.sleep(60)",
            str(guarded),
        ],
        stdout=subprocess.PIPE,
    )
    assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
    with pytest.raises(LockTimeoutError), locked(guarded, 0.1):
        pass
    holder.kill()
    holder.wait()
    with locked(guarded, 5):
        pass


def test_without_flock_filelock_locks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    guarded = tmp_path / "store"
    monkeypatch.setattr(file_lock, "_try_flock", lambda fd: None)  # a file system without it
    with locked(guarded):
        oracle = filelock.FileLock(str(lock_path_for(guarded)), thread_local=False)
        with pytest.raises(filelock.Timeout):
            oracle.acquire(timeout=0)
    holder = filelock.FileLock(str(lock_path_for(guarded)), thread_local=False)
    with (
        holder.acquire(timeout=0),
        pytest.raises(LockTimeoutError, match="still locked after"),
        locked(guarded, 0.1),
    ):
        pass


def test_flock_contention_and_absence_are_told_apart(tmp_path: Path) -> None:
    import os

    path = tmp_path / "f.lock"
    first = os.open(path, os.O_RDWR | os.O_CREAT)
    second = os.open(path, os.O_RDWR)
    try:
        assert file_lock._try_flock(first) is True
        assert file_lock._try_flock(second) is False
    finally:
        os.close(first)
        os.close(second)
