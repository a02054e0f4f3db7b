"""Hold Ctrl-C over a run of writes that must finish or be undone as one.

Python raises KeyboardInterrupt between any two bytecodes, so a SIGINT can land after a
file was replaced but before its writer noted that it did: a rollback then misses that file.
Inside `held_interrupts()` a SIGINT is only noted; it is raised as KeyboardInterrupt when the
block ends, where the writer knows exactly what it wrote. Outside the main thread signals
cannot be handled, and a process that ignores SIGINT keeps ignoring it: the block holds nothing.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


@contextmanager
def held_interrupts() -> Iterator[None]:
    """Run the block with SIGINT noted, not raised; raise KeyboardInterrupt after it when one
    came (unless the block raised something else, which then goes on as it was)."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    ):
        yield
        return
    caught: list[int] = []

    def note(signum: int, frame: FrameType | None) -> None:
        caught.append(signum)

    previous = signal.signal(signal.SIGINT, note)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)
    if caught:
        raise KeyboardInterrupt
