"""The only module that runs git: a small adapter with clear errors."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from kbkit.errors import KbkitError


class GitError(KbkitError):
    """git is missing, or a git command failed; the message says what to do next."""


def run_git(repo: Path, *args: str, check: bool = True) -> str:
    """Run `git -C repo args...` and return its stdout (UTF-8, undecodable bytes replaced)."""
    command = ["git", "-C", str(repo), *args]
    env = dict(os.environ, LC_ALL="C", GIT_TERMINAL_PROMPT="0")
    try:
        done = subprocess.run(command, capture_output=True, env=env, check=False)
    except FileNotFoundError as exc:
        raise GitError(
            "git is not installed or not on PATH; install git (e.g. `apt-get install git`) "
            "and retry"
        ) from exc
    if check and done.returncode != 0:
        stderr = done.stderr.decode("utf-8", "replace").strip().splitlines()
        detail = stderr[-1] if stderr else f"exit code {done.returncode}"
        raise GitError(f"git {' '.join(args[:2])} failed in {repo}: {detail}")
    return done.stdout.decode("utf-8", "replace")


def is_repository(path: Path) -> bool:
    """True when `path` is inside a git work tree."""
    return run_git(path, "rev-parse", "--is-inside-work-tree", check=False).strip() == "true"


def remote_url(repo: Path, remote: str = "origin") -> str | None:
    """The URL of a remote, or None when it is not configured."""
    url = run_git(repo, "remote", "get-url", remote, check=False).strip()
    return url or None
