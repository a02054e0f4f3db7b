"""Spread numbered chunks of work over this process and forked helper processes.

Every process takes the next chunk number from one shared counter, so the processes balance
themselves and this process works too (on a two-core machine one helper instead of a pool
of two saves a whole interpreter's memory). Helpers send each chunk's result back as one
marshal blob through a pipe; a reader thread per helper takes the blobs off the pipe, so a
helper never waits while this process is busy with a chunk of its own. Results arrive in no
particular order.
"""

from __future__ import annotations

import gc
import marshal
import os
import queue
import threading
from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

Work = Callable[[int], list[Any]]

_RESULT, _DONE, _FAILED = b"R", b"D", b"E"


class HelperFailed(RuntimeError):
    """A helper process raised or died; the message carries its traceback."""


def can_fork() -> bool:
    return hasattr(os, "fork")


def run_chunks(count: int, work: Work, helpers: int) -> Iterator[list[Any]]:
    """Yield `work(i)` for every i in range(count), computed here and on `helpers` forked
    processes (`work`'s results must be marshal-friendly)."""
    import multiprocessing  # only a large cold load pays for it

    context = multiprocessing.get_context("fork")
    counter = context.RawValue("q", 0)
    lock = context.Lock()

    def take() -> int:
        with lock:
            number = counter.value
            counter.value = number + 1
        return int(number)

    inbox: queue.SimpleQueue[bytes] = queue.SimpleQueue()
    processes = []
    pipes = []
    gc.freeze()  # forked helpers then leave this process's objects alone
    try:
        for _ in range(helpers):
            receive, send = context.Pipe(duplex=False)
            process = context.Process(target=_helper, args=(count, work, take, send), daemon=True)
            process.start()
            send.close()
            processes.append(process)
            pipes.append(receive)
    finally:
        gc.unfreeze()
    for receive in pipes:  # threads only after the last fork: a child inherits no thread
        threading.Thread(target=_read, args=(receive, inbox), daemon=True).start()
    running = len(processes)
    try:
        while (number := take()) < count:
            yield work(number)
            while not inbox.empty():
                running -= yield from _unpack(inbox.get())
        while running:
            running -= yield from _unpack(inbox.get())
    finally:
        for process in processes:
            if process.is_alive():
                process.terminate()
            process.join()


def _unpack(message: bytes) -> Generator[list[Any], None, int]:
    """Yield a helper's result; returns 1 when the message says the helper has finished."""
    kind, body = message[:1], message[1:]
    if kind == _RESULT:
        yield marshal.loads(body)
        return 0
    if kind == _DONE:
        return 1
    raise HelperFailed(body.decode("utf-8", "replace") or "a parse helper process died")


def _helper(count: int, work: Work, take: Callable[[], int], send: Connection) -> None:
    try:
        while (number := take()) < count:
            send.send_bytes(_RESULT + marshal.dumps(work(number)))
        send.send_bytes(_DONE)
    except BaseException:  # noqa: BLE001 - reported to the parent, which raises it
        import traceback

        send.send_bytes(_FAILED + traceback.format_exc().encode())
    finally:
        send.close()


def _read(receive: Connection, inbox: queue.SimpleQueue[bytes]) -> None:
    """Move a helper's messages to the inbox until it finishes or its pipe closes."""
    while True:
        try:
            message = receive.recv_bytes()
        except (EOFError, OSError):
            inbox.put(_FAILED)
            return
        inbox.put(message)
        if message[:1] != _RESULT:
            return
