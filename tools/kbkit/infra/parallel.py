"""Work on forked processes: numbered chunks spread over this process and helpers
(`run_chunks`), and one piece of work beside this process's own (`Aside`).

Every process takes the next chunk number from one shared counter, so the processes balance
themselves and this process works too (on a two-core machine one helper instead of a pool
of two saves a whole interpreter's memory). Helpers send each chunk's result back as one
marshal blob through a pipe; a reader thread per helper takes the blobs off the pipe, so a
helper never waits while this process is busy with a chunk of its own. Results arrive in no
particular order.

`Aside` runs one function in a forked child (the walk beside the policy and parser imports;
the report's ledger reads beside the tree's check) and hands its marshal result back when
asked. Any failure in the child (an exception, a signal, an unmarshallable result) makes
`result()` run the work here instead, so an error surfaces exactly as without the child.

Plain `os.fork` and pipes, not `multiprocessing`: importing it and setting up its shared
value cost 20 ms of every large cold check, before any page was parsed.
"""

from __future__ import annotations

import contextlib
import gc
import marshal
import os
import struct
from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING, Any, BinaryIO, Generic, TypeVar

if TYPE_CHECKING:
    import queue

Work = Callable[[int], list[Any]]
T = TypeVar("T")

_RESULT, _DONE, _FAILED = b"R", b"D", b"E"
_HEADER = struct.Struct("<cQ")  # a message's kind and its body's length
_COUNTER = struct.Struct("<q")


class HelperFailed(RuntimeError):
    """A helper process raised or died; the message carries its traceback."""


def can_fork() -> bool:
    return hasattr(os, "fork")


class _Counter:
    """The next chunk number, shared by this process and its forked helpers: a number in an
    anonymous shared memory map, guarded by a one-byte token in a pipe (whoever has read
    the byte holds the lock until it writes it back)."""

    def __init__(self) -> None:
        import mmap  # run_chunks only: a walk aside (every check) needs none of these imports

        self.memory = mmap.mmap(-1, _COUNTER.size)  # MAP_SHARED: a fork shares, not copies
        self.token_read, self.token_write = os.pipe()
        os.write(self.token_write, b"t")

    def take(self) -> int:
        os.read(self.token_read, 1)
        try:
            (number,) = _COUNTER.unpack_from(self.memory)
            _COUNTER.pack_into(self.memory, 0, number + 1)
        finally:
            os.write(self.token_write, b"t")
        return int(number)

    def close(self) -> None:
        os.close(self.token_read)
        os.close(self.token_write)
        self.memory.close()


def run_chunks(count: int, work: Work, helpers: int) -> Iterator[list[Any]]:
    """Yield `work(i)` for every i in range(count), computed here and on `helpers` forked
    processes (`work`'s results must be marshal-friendly)."""
    import queue
    import threading

    counter = _Counter()
    inbox: queue.SimpleQueue[bytes] = queue.SimpleQueue()
    pids: list[int] = []
    pipes: list[int] = []
    try:
        gc.freeze()  # forked helpers then leave this process's objects alone
        try:
            for _ in range(helpers):
                receive, send = os.pipe()
                pid = os.fork()
                if pid == 0:  # the helper: work, report, and never return into the caller
                    try:
                        os.close(receive)
                        _helper(count, work, counter.take, send)
                    finally:
                        os._exit(0)
                os.close(send)
                pids.append(pid)
                pipes.append(receive)
        finally:
            gc.unfreeze()
        readers = [os.fdopen(fd, "rb") for fd in pipes]
        pipes.clear()  # the readers own them now
        for reader in readers:  # threads only after the last fork: a child inherits no thread
            threading.Thread(target=_read, args=(reader, inbox), daemon=True).start()
        running = len(pids)
        while (number := counter.take()) < count:
            yield work(number)
            while not inbox.empty():
                running -= yield from _unpack(inbox.get())
        while running:
            running -= yield from _unpack(inbox.get())
    finally:
        for fd in pipes:
            os.close(fd)
        for pid in pids:
            _stop(pid)
        counter.close()


def _stop(pid: int) -> None:
    """Reap a helper; one still running (this process stopped early) is terminated first."""
    with contextlib.suppress(ChildProcessError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == 0:
            import signal

            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
            os.waitpid(pid, 0)


def _unpack(message: bytes) -> Generator[list[Any], None, int]:
    """Yield a helper's result; returns 1 when the message says the helper has finished."""
    kind, body = message[:1], message[1:]
    if kind == _RESULT:
        yield marshal.loads(body)
        return 0
    if kind == _DONE:
        return 1
    raise HelperFailed(body.decode("utf-8", "replace") or "a parse helper process died")


def _helper(count: int, work: Work, take: Callable[[], int], send: int) -> None:
    with os.fdopen(send, "wb") as pipe:

        def post(kind: bytes, body: bytes = b"") -> None:
            pipe.write(_HEADER.pack(kind, len(body)))
            pipe.write(body)
            pipe.flush()

        try:
            while (number := take()) < count:
                post(_RESULT, marshal.dumps(work(number)))
            post(_DONE)
        except BaseException:  # noqa: BLE001 - reported to the parent, which raises it
            import traceback

            post(_FAILED, traceback.format_exc().encode())


def _read(reader: BinaryIO, inbox: queue.SimpleQueue[bytes]) -> None:
    """Move a helper's messages to the inbox until it finishes or its pipe closes."""
    with reader:
        while True:
            try:
                head = reader.read(_HEADER.size)
                kind, size = _HEADER.unpack(head)
                body = reader.read(size)
                if len(body) != size:
                    raise EOFError
            except (EOFError, OSError, struct.error):
                inbox.put(_FAILED)  # the helper died without a word
                return
            inbox.put(kind + body)
            if kind != _RESULT:
                return


class Aside(Generic[T]):
    """`work()` started in a forked child (or not at all when `fork` is false or the system
    has no process to spare); `result()` waits for it."""

    def __init__(self, work: Callable[[], T], fork: bool = True, freeze: bool = True) -> None:
        self.work = work
        self.pid: int | None = None
        self.receive: int | None = None  # the read end of the child's pipe
        self.freeze = freeze  # False: the caller keeps its heap frozen itself (kb lsp)
        if fork and can_fork():
            self._start()

    def _start(self) -> None:
        receive, send = os.pipe()
        if self.freeze:
            gc.freeze()  # the child then leaves this process's objects (and their pages) alone
        try:
            pid = os.fork()
        except OSError:  # EAGAIN, ENOMEM: the work runs here when asked
            if self.freeze:
                gc.unfreeze()
            os.close(receive)
            os.close(send)
            return
        if pid == 0:  # the child: work, send, and leave without running the caller's cleanup
            try:
                os.close(receive)
                try:
                    value: Any = self.work()
                    message = _RESULT + marshal.dumps(value)
                except BaseException:  # noqa: BLE001 - the parent runs the work again
                    message = _FAILED
                with os.fdopen(send, "wb") as pipe:
                    pipe.write(message)
            finally:
                os._exit(0)
        if self.freeze:
            gc.unfreeze()
        os.close(send)
        self.pid, self.receive = pid, receive

    def result(self) -> T:
        """The child's result; the work done here when there is no child or it failed."""
        message = self._message()
        if message[:1] == _RESULT:
            try:
                return marshal.loads(message[1:])
            except (EOFError, ValueError, TypeError):
                pass
        return self.work()

    def _message(self) -> bytes:
        if self.receive is None:
            return _FAILED
        try:
            with os.fdopen(self.receive, "rb") as pipe:
                self.receive = None
                return pipe.read()
        except OSError:
            return _FAILED
        finally:
            self.close()

    def close(self) -> None:
        """Stop the child if it still runs (the parent failed first) and reap it."""
        if self.receive is not None:
            os.close(self.receive)
            self.receive = None
        if self.pid is not None:
            _stop(self.pid)
            self.pid = None
