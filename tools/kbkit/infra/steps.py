"""Named steps of the operations that must survive a kill anywhere, announced as reached.

`kb curate apply` reaches `page-written` after each page it writes; `kb distill` reaches
`reply`, `apply`, `commit`, `status`, `push` and `pr`. Nothing listens by default, so a step
costs one empty loop. With `KBKIT_TRACE_STEPS=1` each step is printed to standard error,
which tells where a killed or hung run got to; a program that embeds kbkit may `listen` to
them (kbkit's own crash tests stop a real process at an exact step that way).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from kbkit.infra import settings

TRACE = "KBKIT_TRACE_STEPS"

_listeners: list[Callable[[str], None]] = []


def listen(callback: Callable[[str], None]) -> None:
    """Call `callback(step)` at every step this process reaches from now on."""
    _listeners.append(callback)


def reached(step: str) -> None:
    """Announce that the running operation has reached `step`."""
    if settings.value(TRACE):
        print(f"kbkit: step {step}", file=sys.stderr, flush=True)
    for callback in _listeners:
        callback(step)
