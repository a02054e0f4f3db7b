"""Outside processes with a deadline: the one runner under `kbkit.vcs.git` and `kbkit.vcs.github`.

Each child runs in its own process group with stdin closed (or fed), so a timeout kills it
and everything it started (an ssh under git, a credential helper), and nothing waits for a
prompt. A timeout is an EnvironmentFailure (exit 4) naming the command and the variable
that raises the limit.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from kbkit.infra import settings
from kbkit.infra.errors import EnvironmentFailure, UsageError


def timeout_from_env(variable: str, default: float) -> float:
    """Seconds from `variable` (a positive number), else `default`."""
    raw = (settings.value(variable) or "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise UsageError(f"{variable}={raw!r}: expected a positive number of seconds")
    return value


def run_bounded(
    command: Sequence[str],
    *,
    name: str,
    timeout: float,
    timeout_variable: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    input: bytes | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run `command` to completion within `timeout` seconds, output captured; `name` is how
    messages call it (`git push`, `gh pr list`).

    FileNotFoundError (no such program) is left to the caller, who knows what to install.
    """
    proc = subprocess.Popen(
        list(command),
        cwd=cwd,
        env=dict(env) if env is not None else None,
        stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own group: a timeout stops its children too
    )
    try:
        out, err = proc.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        _stop(proc)
        raise EnvironmentFailure(
            f"`{name}` did not finish within {timeout:g}s and was stopped; check the "
            f"network and the remote, or raise {timeout_variable} (seconds)"
        ) from None
    except BaseException:  # Ctrl-C: the child's group gets no terminal signal of its own
        _stop(proc)
        raise
    return subprocess.CompletedProcess(list(command), proc.returncode, out, err)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Kill the child's whole process group and reap it; never wait on a stuck pipe."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired, OSError, ValueError):
        proc.communicate(timeout=5)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)
