"""Chunks spread over this process and forked helpers: every chunk once, failures raised;
one piece of work beside this process (`Aside`), and the same work here when the child fails."""

from __future__ import annotations

import os
import signal
import time

import pytest

from kbkit.infra import parallel
from kbkit.infra.parallel import Aside

pytestmark = pytest.mark.skipif(not parallel.can_fork(), reason="needs fork")


def test_every_chunk_is_done_once_by_some_process() -> None:
    parent = os.getpid()

    def work(number: int) -> list[int]:
        time.sleep(0.01)  # long enough for the helpers to take chunks too
        return [number, os.getpid()]

    results = list(parallel.run_chunks(17, work, helpers=2))
    assert sorted(number for number, _ in results) == list(range(17))
    workers = {pid for _, pid in results}
    assert parent in workers  # this process works too
    assert len(workers) >= 2


def test_zero_chunks_and_zero_helpers() -> None:
    assert list(parallel.run_chunks(0, lambda n: [n], helpers=1)) == []
    assert list(parallel.run_chunks(3, lambda n: [n], helpers=0)) == [[0], [1], [2]]


def test_a_helper_exception_is_raised_with_its_traceback() -> None:
    parent = os.getpid()

    def work(number: int) -> list[int]:
        if os.getpid() != parent:
            raise ValueError(f"chunk {number} is broken")
        time.sleep(0.01)
        return [number]

    with pytest.raises(parallel.HelperFailed, match="ValueError: chunk .* is broken"):
        list(parallel.run_chunks(20, work, helpers=1))


def test_a_helper_that_dies_is_reported() -> None:
    parent = os.getpid()

    def work(number: int) -> list[int]:
        if os.getpid() != parent:
            os._exit(3)  # killed without a word, as by the OOM killer
        time.sleep(0.01)
        return [number]

    with pytest.raises(parallel.HelperFailed, match="died"):
        list(parallel.run_chunks(20, work, helpers=1))


def test_the_result_comes_from_a_child_process() -> None:
    parent = os.getpid()
    side = Aside(lambda: {"pid": os.getpid(), "rows": [1, 2.5, None, "x"]})
    result = side.result()
    assert result["pid"] != parent and result["rows"] == [1, 2.5, None, "x"]
    assert side.pid is None  # reaped


def test_without_fork_the_work_runs_here() -> None:
    assert Aside(os.getpid, fork=False).result() == os.getpid()


def test_an_error_in_the_child_is_raised_here_by_running_the_work_again() -> None:
    parent = os.getpid()
    calls: list[int] = []

    def work() -> int:
        calls.append(os.getpid())
        raise KeyError("boom")

    side = Aside(work)
    with pytest.raises(KeyError, match="boom"):
        side.result()
    assert calls == [parent]  # the child's attempt ran in the child, this one here


def test_a_child_killed_by_a_signal_falls_back_to_this_process() -> None:
    parent = os.getpid()

    def work() -> int:
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return os.getpid()

    assert Aside(work).result() == parent


def test_an_unmarshallable_result_is_computed_here() -> None:
    parent = os.getpid()

    class Box:
        pid = os.getpid()

    def work() -> Box:
        box = Box()
        box.pid = os.getpid()
        return box

    assert Aside(work).result().pid == parent


def test_close_stops_a_child_the_parent_no_longer_waits_for() -> None:
    side = Aside(lambda: time.sleep(60))
    pid = side.pid
    assert pid is not None
    side.close()
    assert side.pid is None
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # stopped and reaped
