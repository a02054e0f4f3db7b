"""The only module that talks to GitHub: a small adapter around the `gh` CLI.

Every flag used here exists in gh 2.23 (the version Debian ships):
`gh pr list --repo R --head BRANCH --state all --limit N --json FIELDS`,
`gh pr create --repo R --head OWNER:BRANCH --base BASE --title T --body-file F`,
`gh pr view N --repo R --json body,comments`, `gh pr comment N --repo R --body-file F`.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from kbkit.errors import KbkitError

PR_FIELDS = "number,url,state,headRefName,headRefOid,headRepositoryOwner,createdAt"


class GitHubError(KbkitError):
    """gh is missing, or a gh command failed; the message says what to do next."""


def run_gh(args: list[str], cwd: Path) -> str:
    env = dict(os.environ, GH_PROMPT_DISABLED="1", NO_COLOR="1", GH_NO_UPDATE_NOTIFIER="1")
    try:
        done = subprocess.run(["gh", *args], cwd=cwd, capture_output=True, env=env, check=False)
    except FileNotFoundError as exc:
        raise GitHubError(
            "gh (the GitHub CLI) is not installed or not on PATH; install it "
            "(`apt-get install gh`), run `gh auth login`, then rerun `kb distill`"
        ) from exc
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        detail = err[-1] if err else f"exit code {done.returncode}"
        raise GitHubError(f"gh {' '.join(args[:2])} failed: {detail}")
    return done.stdout.decode("utf-8", "replace")


def list_prs(repo: str, head_branch: str, cwd: Path) -> list[dict[str, Any]]:
    """Every PR of `repo` (any state) whose head branch is `head_branch`, newest first."""
    out = run_gh(
        [
            "pr", "list", "--repo", repo, "--head", head_branch, "--state", "all",
            "--limit", "100", "--json", PR_FIELDS,
        ],
        cwd,
    )  # fmt: skip
    try:
        prs = json.loads(out or "[]")
    except ValueError as exc:
        raise GitHubError(f"gh pr list printed something that is not JSON: {out[:120]!r}") from exc
    if not isinstance(prs, list):
        raise GitHubError("gh pr list --json did not print a list")
    return prs


def create_pr(repo: str, head: str, base: str, title: str, body_file: Path, cwd: Path) -> str:
    """Open a PR and return its URL (gh prints it as the last line)."""
    out = run_gh(
        [
            "pr", "create", "--repo", repo, "--head", head, "--base", base,
            "--title", title, "--body-file", str(body_file),
        ],
        cwd,
    )  # fmt: skip
    lines = [line.strip() for line in out.splitlines() if line.strip().startswith("http")]
    if not lines:
        raise GitHubError(f"gh pr create printed no PR URL: {out[:200]!r}")
    return lines[-1]


def pr_texts(repo: str, number: int, cwd: Path) -> list[str]:
    """The body and every comment body of a PR."""
    out = run_gh(["pr", "view", str(number), "--repo", repo, "--json", "body,comments"], cwd)
    try:
        data = json.loads(out or "{}")
    except ValueError as exc:
        raise GitHubError(f"gh pr view printed no JSON: {out[:200]!r}") from exc
    if not isinstance(data, dict):
        raise GitHubError(f"gh pr view printed {type(data).__name__}, not an object")
    texts = [str(data.get("body") or "")]
    texts += [str(c.get("body") or "") for c in data.get("comments") or [] if isinstance(c, dict)]
    return texts


def comment_pr(repo: str, number: int, body_file: Path, cwd: Path) -> None:
    run_gh(["pr", "comment", str(number), "--repo", repo, "--body-file", str(body_file)], cwd)
