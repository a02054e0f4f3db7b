"""The validator gate: run the clone's validator commands in order, with a timeout."""

from __future__ import annotations

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


def run_validators(
    clone: Path, validators: list[tuple[str, ...]], timeout: float, python: str | None = None
) -> ValidatorResult:
    """Run each command (`python <script> <args>` in the clone); stop at the first failure."""
    runs: list[ValidatorRun] = []
    for command in validators:
        started = time.monotonic()
        argv = [python or sys.executable, str(clone / command[0]), *command[1:]]
        try:
            done = subprocess.run(
                argv, cwd=clone, capture_output=True, text=True, errors="replace", timeout=timeout
            )
        except subprocess.TimeoutExpired as exc:
            out = (exc.stdout or b"") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            text = out.decode("utf-8", "replace") if isinstance(out, bytes) else out
            run = ValidatorRun(
                command,
                TIMEOUT,
                None,
                f"{text}\ntimed out after {timeout:g}s",
                time.monotonic() - started,
            )
        except OSError as exc:
            run = ValidatorRun(
                command, UNLAUNCHABLE, None, f"cannot launch: {exc}", time.monotonic() - started
            )
        else:
            status = PASSED if done.returncode == 0 else FAILED
            output = (done.stdout + done.stderr)[-OUTPUT_CHARS:]
            run = ValidatorRun(command, status, done.returncode, output, time.monotonic() - started)
        runs.append(run)
        if run.status != PASSED:
            break
    status = next((r.status for r in runs if r.status != PASSED), PASSED)
    output = "\n".join(f"$ {' '.join(r.command)}\n{r.output}".rstrip() for r in runs)
    return ValidatorResult(status, output, False, tuple(runs))
