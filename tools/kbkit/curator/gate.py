"""The validator gate: run the clone's validator commands in order, with a timeout."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

PASSED, FAILED, TIMEOUT, UNLAUNCHABLE, MISSING = (
    "passed",
    "failed",
    "timeout",
    "unlaunchable",
    "missing",
)
OUTPUT_CHARS = 64 * 1024


class ValidatorRun(NamedTuple):
    command: tuple[str, ...]  # clone-relative script and its arguments
    status: str
    returncode: int | None
    output: str
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        data = self._asdict()
        data["command"] = list(self.command)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ValidatorRun:
        return cls(**{**data, "command": tuple(data["command"])})


class ValidatorResult(NamedTuple):
    status: str  # passed, failed, timeout, unlaunchable or missing
    output: str
    rolled_back: bool
    runs: tuple[ValidatorRun, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "output": self.output,
            "rolled_back": self.rolled_back,
            "runs": [r.to_dict() for r in self.runs],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ValidatorResult:
        runs = tuple(ValidatorRun.from_dict(r) for r in data["runs"])
        return cls(data["status"], data["output"], data["rolled_back"], runs)


def commands(policy_validators: Any) -> list[tuple[str, ...]]:
    return [tuple(str(part) for part in command) for command in policy_validators or []]


def missing(clone: Path, validators: list[tuple[str, ...]]) -> list[str]:
    return [cmd[0] for cmd in validators if not (clone / cmd[0]).is_file()]


def _run(argv: list[str], cwd: Path, timeout: float) -> tuple[int, str, bool]:
    """(returncode, output, timed out). A timed-out validator is killed with its whole
    process group, so a grandchild holding the output pipe cannot hang the apply."""
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        timed_out = True
    text = out.decode("utf-8", "replace")[-OUTPUT_CHARS:]
    return proc.returncode, text, timed_out


def run_validators(
    clone: Path, validators: list[tuple[str, ...]], timeout: float, python: str | None = None
) -> ValidatorResult:
    """Run each command (`python <script> <args>` in the clone); stop at the first failure."""
    runs: list[ValidatorRun] = []
    for command in validators:
        started = time.monotonic()
        argv = [python or sys.executable, str(clone / command[0]), *command[1:]]
        try:
            code, output, timed_out = _run(argv, clone, timeout)
        except OSError as exc:
            run = ValidatorRun(
                command, UNLAUNCHABLE, None, f"cannot launch: {exc}", time.monotonic() - started
            )
        else:
            seconds = time.monotonic() - started
            if timed_out:
                output = f"{output}\ntimed out after {timeout:g}s".lstrip("\n")
                run = ValidatorRun(command, TIMEOUT, None, output, seconds)
            else:
                run = ValidatorRun(command, PASSED if code == 0 else FAILED, code, output, seconds)
        runs.append(run)
        if run.status != PASSED:
            break
    status = next((r.status for r in runs if r.status != PASSED), PASSED)
    output = "\n".join(f"$ {' '.join(r.command)}\n{r.output}".rstrip() for r in runs)
    return ValidatorResult(status, output, False, tuple(runs))
