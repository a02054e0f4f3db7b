"""Run one piece of work in a forked child while this process does another.

The report's tree check and its ledger and lessons reads share nothing, so the reads run in
a child forked before the parse and their result comes back as one marshal blob through a
pipe. The parent reads the pipe only when it needs the result (no reader thread: the parse
forks helpers of its own, and a forked child inherits no thread). Any failure in the child
(an exception, a signal, an unmarshallable result) makes `result()` run the work here
instead, so an error surfaces exactly as it would without the child.
"""

from __future__ import annotations

import gc
import marshal
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

T = TypeVar("T")
_OK, _FAILED = b"R", b"E"


class Aside(Generic[T]):
    """`work()` started in a forked child (or not at all when `fork` is false)."""

    def __init__(self, work: Callable[[], T], fork: bool = True):
        self.work = work
        self.process: BaseProcess | None = None
        self.receive: Connection | None = None
        if fork:
            self._start()

    def _start(self) -> None:
        import multiprocessing

        from kbkit.parallel import can_fork

        if not can_fork():
            return
        context = multiprocessing.get_context("fork")
        receive, send = context.Pipe(duplex=False)
        gc.freeze()  # the child then leaves this process's objects (and their pages) alone
        try:
            process = context.Process(target=_child, args=(self.work, send), daemon=True)
            process.start()
        except OSError:  # no process to spare (EAGAIN, ENOMEM): the work runs here later
            receive.close()
            return
        finally:
            gc.unfreeze()
            send.close()
        self.process, self.receive = process, receive

    def result(self) -> T:
        """The child's result; the work done here when there is no child or it failed."""
        message = self._receive()
        if message[:1] == _OK:
            try:
                return marshal.loads(message[1:])
            except (EOFError, ValueError, TypeError):
                pass
        return self.work()

    def _receive(self) -> bytes:
        if self.receive is None:
            return _FAILED
        try:
            return self.receive.recv_bytes()
        except (EOFError, OSError):
            return _FAILED
        finally:
            self.close()

    def close(self) -> None:
        """Stop the child if it still runs (the parent failed first) and reap it."""
        if self.receive is not None:
            self.receive.close()
            self.receive = None
        if self.process is not None:
            if self.process.is_alive():
                self.process.terminate()
            self.process.join()
            self.process = None


def _child(work: Callable[[], Any], send: Connection) -> None:
    try:
        message = _OK + marshal.dumps(work())
    except BaseException:  # noqa: BLE001 - the parent runs the work again and raises it
        message = _FAILED
    try:
        send.send_bytes(message)
    finally:
        send.close()
