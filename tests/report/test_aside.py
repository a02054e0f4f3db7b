"""`kbkit.report.aside`: work in a forked child, and the same work here when the child fails."""

from __future__ import annotations

import os
import signal
import time

import pytest

from kbkit.report.aside import Aside

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")


def test_the_result_comes_from_a_child_process() -> None:
    parent = os.getpid()
    side = Aside(lambda: {"pid": os.getpid(), "rows": [1, 2.5, None, "x"]})
    result = side.result()
    assert result["pid"] != parent and result["rows"] == [1, 2.5, None, "x"]
    assert side.process is None  # reaped


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
    process = side.process
    assert process is not None
    side.close()
    assert not process.is_alive() and side.process is None
