"""The validator gate: kbkit's own validators, then the policy's extra commands, in order.

The built-in validators (check-knowledge-tree, then check-wiki-lint) always run, as the
installed kbkit (`python -P -m kbkit ...`: `-P` keeps the clone's folder off `sys.path`, so
a `kbkit/` folder in the clone is never imported), whatever the policy lists: a policy
cannot turn the gate off, and no script has to exist in the clone. The policy's
`validators` are extra commands (a clone-relative Python script and its arguments) run
after them; a missing one is a configuration error.
"""

from __future__ import annotations

import contextlib
import os
import re
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


BUILTIN = ("check-knowledge-tree", "check-wiki-lint")
KB = "kb"  # the first word of a built-in command as runs show it: ("kb", "check-wiki-lint")
_PROFILE = re.compile(r"^built-in profile '([a-z0-9_-]+)'$")


class ValidatorRun(NamedTuple):
    command: tuple[str, ...]  # ("kb", name) or a clone-relative script and its arguments
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
    """The gate: the built-in validators first, then the policy's extra commands."""
    extra = [tuple(str(part) for part in command) for command in policy_validators or []]
    return [(KB, name) for name in BUILTIN] + [c for c in extra if c]


def missing(clone: Path, validators: list[tuple[str, ...]]) -> list[str]:
    return [cmd[0] for cmd in validators if cmd[0] != KB and not (clone / cmd[0]).is_file()]


def policy_arguments(source: str) -> list[str]:
    """`--policy X` that makes the built-in validators read the curator's policy."""
    profile = _PROFILE.match(source)
    if profile:
        return ["--policy", profile.group(1)]
    if Path(source).is_file():
        return ["--policy", str(Path(source).absolute())]
    return []


def _argv(
    clone: Path, command: tuple[str, ...], python: str | None, policy: list[str]
) -> list[str]:
    if command[0] == KB:
        return [sys.executable, "-P", "-m", "kbkit", *command[1:], "--repo", str(clone), *policy]
    return [python or sys.executable, str(clone / command[0]), *command[1:]]


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
    clone: Path,
    validators: list[tuple[str, ...]],
    timeout: float,
    python: str | None = None,
    policy: list[str] | None = None,
) -> ValidatorResult:
    """Run each command in the clone (built-ins with this interpreter and `policy`'s
    arguments, extra scripts with `python`); stop at the first failure."""
    runs: list[ValidatorRun] = []
    for command in validators:
        started = time.monotonic()
        argv = _argv(clone, command, python, policy or [])
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
