"""Stop a real kbkit process at a named step (`kbkit.infra.steps`), for the crash tests.

`python -m tests.step_hooks --kill-at STEP -- ARGS...` runs `kb ARGS...` and SIGKILLs itself
when the run reaches STEP (`STEP@N`: the Nth time it does); `--pause-at STEP --seconds S`
sleeps there instead. The worker of
the curator's crash tests installs the same listeners in its own process.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from collections.abc import Callable

from kbkit.infra import steps


def kill_at(step: str) -> Callable[[str], None]:
    name, _, nth = step.partition("@")
    left = [int(nth or 1)]

    def listener(reached: str) -> None:
        if reached == name:
            left[0] -= 1
            if left[0] == 0:
                os.kill(os.getpid(), signal.SIGKILL)

    return listener


def pause_at(step: str, seconds: float) -> Callable[[str], None]:
    def listener(reached: str) -> None:
        if reached == step:
            time.sleep(seconds)

    return listener


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.step_hooks")
    parser.add_argument("--kill-at")
    parser.add_argument("--pause-at")
    parser.add_argument("--seconds", type=float, default=0.0)
    parser.add_argument("kb_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.kill_at:
        steps.listen(kill_at(args.kill_at))
    if args.pause_at:
        steps.listen(pause_at(args.pause_at, args.seconds))
    from kbkit.__main__ import main as kb_main

    kb_args = args.kb_args[1:] if args.kb_args[:1] == ["--"] else args.kb_args
    return kb_main(kb_args)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
