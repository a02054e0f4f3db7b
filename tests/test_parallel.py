"""Chunks spread over this process and forked helpers: every chunk once, failures raised."""

from __future__ import annotations

import os
import time

import pytest

from kbkit import parallel

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
