"""The validator gate: kbkit's own validators, then the policy's extra commands, in order.

The built-in validators (check-knowledge-tree, then check-wiki-lint) always run, as the
installed kbkit (`python -P -m kbkit ...`: `-P` keeps the clone's folder off `sys.path`, so
a `kbkit/` folder in the clone is never imported), whatever the policy lists: a policy
cannot turn the gate off, and no script has to exist in the clone. The policy's
`validators` are extra commands (a clone-relative Python script and its arguments) run
after them; a missing one is a configuration error.

Gate modes (policy `curator.gate`): `no-new-findings` (the default) runs the built-ins on the
clone's tree before the change too, fingerprints those findings (`kbkit.checks.baseline`) and fails
only on error findings that are new after the apply; `clean` fails on any error finding. The
built-ins report with `--format json`; the transcript shows the counts and the findings in
text. The extra commands are strict in both modes (their output has no findings to compare).
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

from kbkit.checks.baseline import Entry, compare, fingerprints
from kbkit.infra import json_input
from kbkit.rulebook.findings import ERROR, Finding, render

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
GATE_CLEAN, GATE_NO_NEW = "clean", "no-new-findings"
GATES = (GATE_NO_NEW, GATE_CLEAN)
_PROFILE = re.compile(r"^built-in profile '([a-z0-9_-]+)'$")


class ValidatorRun(NamedTuple):
    command: tuple[str, ...]  # ("kb", name) or a clone-relative script and its arguments
    status: str
    returncode: int | None
    output: str
    seconds: float
    findings_before: int | None = None  # built-ins in no-new-findings mode; else None
    findings_after: int | None = None  # built-ins: every finding after the apply
    new_findings: int | None = None  # built-ins: after the apply, not before (clean: all)

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
    gate: str = GATE_CLEAN

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "output": self.output,
            "rolled_back": self.rolled_back,
            "runs": [r.to_dict() for r in self.runs],
            "gate": self.gate,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ValidatorResult:
        runs = tuple(ValidatorRun.from_dict(r) for r in data["runs"])
        gate = data.get("gate", GATE_CLEAN)
        return cls(data["status"], data["output"], data["rolled_back"], runs, gate)


Baseline = dict[tuple[str, ...], list[Entry]]  # built-in command -> its findings before


def commands(policy_validators: Any) -> list[tuple[str, ...]]:
    """The gate: the built-in validators first, then the policy's extra commands."""
    extra = [tuple(str(part) for part in command) for command in policy_validators or []]
    return [(KB, name) for name in BUILTIN] + [c for c in extra if c]


def gate_mode(policy_data: dict[str, Any]) -> str:
    """The policy's `curator.gate` (default no-new-findings)."""
    section = policy_data.get("curator") or {}
    mode = section.get("gate") if isinstance(section, dict) else None
    return mode if mode in GATES else GATE_NO_NEW


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
        return [
            *(sys.executable, "-P", "-m", "kbkit", *command[1:]),
            *("--repo", str(clone), "--format", "json", *policy),
        ]
    return [python or sys.executable, str(clone / command[0]), *command[1:]]


def _run(
    argv: list[str], cwd: Path, timeout: float, split: bool = False
) -> tuple[int, str, str, bool]:
    """(returncode, stdout, stderr, timed out); without `split` stderr is merged into stdout.
    A timed-out validator is killed with its whole process group, so a grandchild holding
    the output pipe cannot hang the apply."""
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE if split else subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        timed_out = True
    text = out.decode("utf-8", "replace")
    if not split:
        text = text[-OUTPUT_CHARS:]
    return proc.returncode, text, (err or b"").decode("utf-8", "replace"), timed_out


def _findings(stdout: str) -> list[Finding] | None:
    """The findings of a built-in's JSON report, or None when it is not one."""
    try:
        document = json_input.loads(stdout.encode("utf-8"))
        rows = document["findings"]
        return [
            Finding(str(r["path"]), int(r["line"]), r["rule"], r["severity"], r["message"])
            for r in rows
        ]
    except (ValueError, KeyError, TypeError):
        return None


def _builtin_run(
    command: tuple[str, ...],
    code: int,
    stdout: str,
    stderr: str,
    seconds: float,
    found: list[Finding] | None,
    new: list[Finding] | None,
    before: list[Entry] | None,
) -> ValidatorRun:
    """A built-in's run: passed unless it broke (exit code past 1, no report) or reported
    error findings that count (`new`: the new ones, or all of them in clean mode)."""
    if found is None or new is None or code not in (0, 1):
        output = f"{stderr}{stdout}"[-OUTPUT_CHARS:]
        return ValidatorRun(command, FAILED, code, output, seconds)
    counts = (
        f"findings: {len(found)} (gate: clean)"
        if before is None
        else f"findings before: {len(before)}, after: {len(found)}, new after: {len(new)}"
    )
    shown_new = render(new, "text", " ".join(command)) if new else ""
    text = f"{counts}\n{shown_new}{stderr}"[-OUTPUT_CHARS:]
    failed = any(f.severity == ERROR for f in new)
    before_count = None if before is None else len(before)
    status = FAILED if failed else PASSED
    return ValidatorRun(command, status, code, text, seconds, before_count, len(found), len(new))


def findings_before(
    clone: Path, validators: list[tuple[str, ...]], timeout: float, policy: list[str] | None
) -> Baseline | ValidatorResult:
    """Each built-in's findings on the tree as it is (fingerprinted now, before any write),
    or the failed result when one cannot report (nothing is written then)."""
    baseline: Baseline = {}
    runs: list[ValidatorRun] = []
    for command in (c for c in validators if c[0] == KB):
        started = time.monotonic()
        argv = _argv(clone, command, None, policy or [])
        try:
            code, stdout, stderr, timed_out = _run(argv, clone, timeout, split=True)
        except OSError as exc:
            run = ValidatorRun(command, UNLAUNCHABLE, None, f"cannot launch: {exc}", 0.0)
            return ValidatorResult(UNLAUNCHABLE, _transcript([run]), False, (run,), GATE_NO_NEW)
        seconds = time.monotonic() - started
        found = None if timed_out else _findings(stdout)
        if found is None or code not in (0, 1):
            status = TIMEOUT if timed_out else FAILED
            output = f"before the change: {stderr}{stdout}"[-OUTPUT_CHARS:]
            run = ValidatorRun(command, status, None if timed_out else code, output, seconds)
            runs.append(run)
            return ValidatorResult(status, _transcript(runs), False, tuple(runs), GATE_NO_NEW)
        prints = fingerprints(found, clone)
        baseline[command] = [
            Entry(f.rule_id, f.path, fp, f.message) for f, fp in zip(found, prints, strict=True)
        ]
    return baseline


def _transcript(runs: list[ValidatorRun]) -> str:
    return "\n".join(f"$ {' '.join(r.command)}\n{r.output}".rstrip() for r in runs)


def run_validators(
    clone: Path,
    validators: list[tuple[str, ...]],
    timeout: float,
    python: str | None = None,
    policy: list[str] | None = None,
    before: Baseline | None = None,
) -> ValidatorResult:
    """Run each command in the clone (built-ins with this interpreter and `policy`'s
    arguments, extra scripts with `python`); stop at the first failure. With `before`
    (no-new-findings mode) a built-in fails only on error findings not in it."""
    runs: list[ValidatorRun] = []
    for command in validators:
        started = time.monotonic()
        argv = _argv(clone, command, python, policy or [])
        builtin = command[0] == KB
        try:
            code, output, stderr, timed_out = _run(argv, clone, timeout, split=builtin)
        except OSError as exc:
            run = ValidatorRun(
                command, UNLAUNCHABLE, None, f"cannot launch: {exc}", time.monotonic() - started
            )
        else:
            seconds = time.monotonic() - started
            if timed_out:
                output = f"{output}\ntimed out after {timeout:g}s".lstrip("\n")
                run = ValidatorRun(command, TIMEOUT, None, output[-OUTPUT_CHARS:], seconds)
            elif builtin:
                found = _findings(output)
                known = None if before is None else before.get(command, [])
                new = found if found is None or known is None else compare(found, known, clone).new
                run = _builtin_run(command, code, output, stderr, seconds, found, new, known)
            else:
                run = ValidatorRun(command, PASSED if code == 0 else FAILED, code, output, seconds)
        runs.append(run)
        if run.status != PASSED:
            break
    status = next((r.status for r in runs if r.status != PASSED), PASSED)
    gate = GATE_CLEAN if before is None else GATE_NO_NEW
    return ValidatorResult(status, _transcript(runs), False, tuple(runs), gate)
