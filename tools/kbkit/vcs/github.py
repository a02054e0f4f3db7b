"""The only module that talks to GitHub: a small adapter around the `gh` CLI.

Every flag used here exists in gh 2.23 (the version Debian ships):
`gh pr list --repo R --head BRANCH --state all --limit N --json FIELDS`,
`gh pr create --repo R --head OWNER:BRANCH --base BASE --title T --body-file F`,
`gh pr view N --repo R --json body,comments`, `gh pr comment N --repo R --body-file F`,
`gh pr edit N --repo R --body-file F`, `gh api [--paginate] [-X POST -f k=v] ENDPOINT`,
`gh api graphql -f query=Q [-f k=v] [-F k=N]`.
"""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from subprocess import CompletedProcess
from typing import Any, TypeGuard

from kbkit.infra.errors import KbkitError
from kbkit.infra.process import run_bounded, timeout_from_env

# Every gh call ends within this many seconds; KBKIT_GH_TIMEOUT overrides it.
TIMEOUT_VARIABLE = "KBKIT_GH_TIMEOUT"
DEFAULT_TIMEOUT = 120.0

PR_FIELDS = "number,url,state,headRefName,headRefOid,headRepositoryOwner,createdAt"


class GitHubError(KbkitError):
    """gh is missing, or a gh command failed; the message says what to do next."""


class GitHubMissing(GitHubError):
    """gh is not installed or not on PATH: the environment, like a missing git (exit 4)."""

    exit_code = 4


def _run(args: list[str], name: str, cwd: Path, then: str) -> CompletedProcess[bytes]:
    """`gh args` to completion within the deadline, never prompting; a missing gh is a
    GitHubError that ends with what to do `then`."""
    env = dict(os.environ, GH_PROMPT_DISABLED="1", NO_COLOR="1", GH_NO_UPDATE_NOTIFIER="1")
    try:
        return run_bounded(
            ["gh", *args],
            name=name,
            timeout=timeout_from_env(TIMEOUT_VARIABLE, DEFAULT_TIMEOUT),
            timeout_variable=TIMEOUT_VARIABLE,
            cwd=cwd,
            env=env,
        )
    except FileNotFoundError as exc:
        raise GitHubMissing(
            f"gh (the GitHub CLI) is not installed or not on PATH; install it (`apt-get install gh`){then}"
        ) from exc


def run_gh(args: list[str], cwd: Path) -> str:
    """`gh args`' output; a failure is a GitHubError with GitHub's own message when it sent one."""
    then = ", run `gh auth login`, then rerun `kb distill`"
    done = _run(args, " ".join(["gh", *args[:2]]), cwd, then)
    if done.returncode != 0:
        text = done.stderr.decode("utf-8", "replace").strip()
        said = _github_message(text) or _github_message(done.stdout.decode("utf-8", "replace"))
        err = text.splitlines()
        detail = (
            f"GitHub said: {said}" if said else (err[-1] if err else f"exit code {done.returncode}")
        )
        raise GitHubError(f"gh {' '.join(args[:2])} failed: {detail}")
    return done.stdout.decode("utf-8", "replace")


def _is_error_object(data: object) -> TypeGuard[dict[str, Any]]:
    """A GitHub error object (`{"message": "Bad credentials", ...}`), not a PR that has a
    `message`-like field."""
    return isinstance(data, dict) and "message" in data and "number" not in data


def _error_message(data: object) -> str | None:
    """The `message` of a GitHub error object, on one line; None when there is none."""
    if _is_error_object(data) and isinstance(data["message"], str):
        return " ".join(data["message"].split())[:300]
    return None


def _github_message(text: str) -> str | None:
    """The `message` of the GitHub error object printed in `text`, if any."""
    start = text.find("{")
    if start < 0:
        return None
    try:
        return _error_message(json.loads(text[start:]))
    except ValueError:
        return None


def _json_output(out: str, what: str) -> Any:
    """Decode gh's JSON output; a GitHub error object is reported as the error it is."""
    try:
        data = json.loads(out or "null")
    except ValueError as exc:
        raise GitHubError(f"{what} printed something that is not JSON: {out[:120]!r}") from exc
    if _is_error_object(data):
        said = _error_message(data) or repr(data.get("message"))[:300]
        raise GitHubError(f"{what}: GitHub said: {said}")
    return data


def host() -> str:
    """The GitHub host PR URLs must be on: $GH_HOST (GitHub Enterprise), else github.com."""
    return (os.environ.get("GH_HOST") or "github.com").strip().lower()


def checked_pr_url(url: object, repo: str, what: str) -> str:
    """`url` when it is `https://HOST/OWNER/NAME/pull/N` for `repo`; else a GitHubError."""
    from urllib.parse import urlsplit

    text = str(url).strip() if isinstance(url, str) else ""
    parts = urlsplit(text)
    path = parts.path.split("/")
    ok = (
        parts.scheme == "https"
        and (parts.hostname or "") == host()
        and parts.port is None
        and not parts.username
        and len(path) == 5
        and "/".join(path[1:3]).lower() == repo.lower()
        and path[3] == "pull"
        and path[4].isdigit()
    )
    if not ok:
        raise GitHubError(
            f"{what} gave the PR URL {text[:200]!r}, not https://{host()}/{repo}/pull/N; "
            "nothing is recorded as published"
        )
    return text


def _checked_pr(item: object, repo: str, index: int) -> dict[str, Any]:
    """One entry of `gh pr list --json`: a positive integer number and a URL on the host."""
    what = f"gh pr list entry {index}"
    if not isinstance(item, dict):
        raise GitHubError(f"{what} is {type(item).__name__}, not an object")
    number = item.get("number")
    if type(number) is not int or number < 1:
        raise GitHubError(f"{what}: PR number {str(number)[:40]!r} is not a positive integer")
    if not isinstance(item.get("state"), str):
        raise GitHubError(f"{what} (#{number}): no `state`")
    item["url"] = checked_pr_url(item.get("url"), repo, f"{what} (#{number})")
    return item


def list_prs(repo: str, head_branch: str, cwd: Path) -> list[dict[str, Any]]:
    """Every PR of `repo` (any state) whose head branch is `head_branch`, newest first."""
    out = run_gh(
        [
            "pr", "list", "--repo", repo, "--head", head_branch, "--state", "all",
            "--limit", "100", "--json", PR_FIELDS,
        ],
        cwd,
    )  # fmt: skip
    prs = _json_output(out or "[]", "gh pr list")
    if not isinstance(prs, list):
        raise GitHubError("gh pr list --json did not print a list")
    return [_checked_pr(item, repo, index) for index, item in enumerate(prs)]


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
        said = _github_message(out)
        if said:
            raise GitHubError(f"gh pr create: GitHub said: {said}")
        raise GitHubError(f"gh pr create printed no PR URL: {out[:200]!r}")
    return checked_pr_url(lines[-1], repo, "gh pr create")


def pr_texts(repo: str, number: int, cwd: Path) -> list[str]:
    """The body and every comment body of a PR."""
    out = run_gh(["pr", "view", str(number), "--repo", repo, "--json", "body,comments"], cwd)
    data = _json_output(out or "{}", "gh pr view")
    if not isinstance(data, dict):
        raise GitHubError(f"gh pr view printed {type(data).__name__}, not an object")
    texts = [str(data.get("body") or "")]
    texts += [str(c.get("body") or "") for c in data.get("comments") or [] if isinstance(c, dict)]
    return texts


def comment_pr(repo: str, number: int, body_file: Path, cwd: Path) -> None:
    run_gh(["pr", "comment", str(number), "--repo", repo, "--body-file", str(body_file)], cwd)


def edit_pr_body(repo: str, number: int, body_file: Path, cwd: Path) -> None:
    """Replace a PR's body (`gh pr edit N --repo R --body-file F`)."""
    run_gh(["pr", "edit", str(number), "--repo", repo, "--body-file", str(body_file)], cwd)


class GitHubUnavailable(GitHubError):
    """GitHub answered with a rate limit or a server error: try again later (exit 4)."""

    exit_code = 4


class GitHubCredentials(GitHubError):
    """GitHub refused the token: a configuration problem (exit 2)."""

    exit_code = 2


_HTTP_STATUS = re.compile(r"\(HTTP (\d{3})\)")


def api_paginate(endpoint: str, cwd: Path) -> bytes:
    """What `gh api --paginate ENDPOINT` prints: every page, concatenated; any failure
    (after any number of pages) raises, so a caller never mistakes part for the whole."""
    return _api(["api", "--paginate", "-H", ACCEPT, endpoint], endpoint, cwd)


def api_get(endpoint: str, cwd: Path) -> bytes:
    """One page of ENDPOINT (`gh api ENDPOINT`, no `--paginate`): for callers that bound how
    many pages they read (`per_page` and `page` in the endpoint's query)."""
    return _api(["api", "-H", ACCEPT, endpoint], endpoint, cwd)


def api_graphql(query: str, variables: dict[str, str | int], cwd: Path) -> bytes:
    """One GraphQL request (`gh api graphql -f query=Q`); text variables go raw (`-f`), so a
    value can never be read as `@file`, integers typed (`-F`). A response carrying `errors`
    makes gh exit 1 with GitHub's message, raised like any failed call."""
    args = ["api", "graphql", "-f", f"query={query}"]
    for name, value in variables.items():
        flag = "-F" if type(value) is int else "-f"
        args += [flag, f"{name}={value}"]
    return _api(args, "graphql", cwd)


def api_post(endpoint: str, fields: dict[str, str], cwd: Path) -> bytes:
    """POST to ENDPOINT with string fields (`gh api -X POST -f k=v`); returns the answer."""
    args = ["api", "-X", "POST", "-H", ACCEPT, endpoint]
    for name, value in fields.items():
        args += ["-f", f"{name}={value}"]
    return _api(args, endpoint, cwd)


ACCEPT = "Accept: application/vnd.github+json"


def _api(args: list[str], endpoint: str, cwd: Path) -> bytes:
    then = " and set GH_TOKEN (or run `gh auth login`)"
    done = _run(args, f"gh api {endpoint[:80]}", cwd, then)
    if done.returncode == 0:
        return done.stdout
    raise _api_failure(endpoint, done.stderr.decode("utf-8", "replace"), cwd)


def _api_failure(endpoint: str, stderr: str, cwd: Path) -> GitHubError:
    """The error for a failed `gh api` call, classified by the HTTP status gh reports."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    said = " ".join(lines[-1].split())[:300] if lines else "no message"
    found = _HTTP_STATUS.findall(stderr)
    status = int(found[-1]) if found else 0
    where = f"gh api {endpoint[:120]}"
    if status == 401:
        return GitHubCredentials(
            f"{where}: GitHub refused the credentials ({said}); set GH_TOKEN to a token that "
            "can read the repository (or run `gh auth login`)"
        )
    # status 0: no HTTP status in the message, as for GraphQL's errors (sent with HTTP 200)
    if status in (0, 403, 429) and ("rate limit" in stderr.lower() or status == 429):
        return GitHubUnavailable(
            f"{where}: GitHub's rate limit is exhausted ({said}); {_reset_hint(cwd)}"
        )
    if status >= 500:
        return GitHubUnavailable(f"{where}: GitHub failed ({said}); retry later")
    return GitHubError(f"{where} failed: {said}")


def _reset_hint(cwd: Path) -> str:
    """When the core rate limit resets, from `gh api rate_limit` (which costs no quota)."""
    try:
        done = _run(["api", "rate_limit"], "gh api rate_limit", cwd, "")
        data = json.loads(done.stdout or b"null") if done.returncode == 0 else None
        reset = data["resources"]["core"]["reset"] if isinstance(data, dict) else None
    except (OSError, ValueError, KeyError, TypeError, KbkitError):
        reset = None
    if type(reset) is not int:
        return "rerun after the limit resets (the cursor did not move)"
    moment = datetime.fromtimestamp(reset, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"it resets at {moment}; rerun then (the cursor did not move)"
