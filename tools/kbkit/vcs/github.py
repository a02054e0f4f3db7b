"""The only module that talks to GitHub: a small adapter around the `gh` CLI.

Every flag used here exists in gh 2.23 (the version Debian ships):
`gh api [--paginate] [-X POST -f k=v] ENDPOINT`, `gh api graphql -f query=Q [-f k=v]
[-F k=N]`, `gh api -i ENDPOINT`, `gh api -X METHOD ENDPOINT --input FILE`
(tests/vcs/test_github.py records every call kbkit makes and checks it against real gh's
`--help`). kbkit speaks REST only (`Pull`, `list_pulls`, `create_pull`, `update_pull`,
`comment_issue`): no `gh pr` command, whose GraphQL cannot take a fork owned by an
organization as a PR head.
"""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from subprocess import CompletedProcess
from typing import Any, NamedTuple, TypeGuard

from kbkit.infra import json_input, settings
from kbkit.infra.errors import KbkitError
from kbkit.infra.process import run_bounded, timeout_from_env

# Every gh call ends within this many seconds; KBKIT_GH_TIMEOUT overrides it.
TIMEOUT_VARIABLE = "KBKIT_GH_TIMEOUT"
DEFAULT_TIMEOUT = 120.0


class GitHubError(KbkitError):
    """gh is missing, or a gh command failed; the message says what to do next."""


class GitHubMissing(GitHubError):
    """gh is not installed or not on PATH: the environment, like a missing git (exit 4)."""

    exit_code = 4


_CALLS = [0]  # gh processes started by this process: the GitHub calls a run reports


def calls_made() -> int:
    """How many times this process ran `gh` (each is one GitHub request or more: a paged
    read counts once): the cost line `kb distill` and `kb intake record-prs` print."""
    return _CALLS[0]


def _run(args: list[str], name: str, cwd: Path, then: str) -> CompletedProcess[bytes]:
    """`gh args` to completion within the deadline, never prompting; a missing gh is a
    GitHubError that ends with what to do `then`."""
    _CALLS[0] += 1
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


def _is_error_object(data: object) -> TypeGuard[dict[str, Any]]:
    """A GitHub error object (`{"message": "Bad credentials", ...}`), not a PR, an issue
    comment or another object that has a `message`-like field."""
    return (
        isinstance(data, dict)
        and "message" in data
        and not any(key in data for key in ("number", "id", "body"))
    )


def _error_message(data: object) -> str | None:
    """The `message` of a GitHub error object, on one line; None when there is none."""
    if _is_error_object(data) and isinstance(data["message"], str):
        return " ".join(data["message"].split())[:300]
    return None


def _json_output(out: str, what: str) -> Any:
    """Decode gh's JSON output; a GitHub error object is reported as the error it is."""
    try:
        data = json.loads(out or "null")
    except ValueError as exc:
        raise GitHubError(f"{what} printed something that is not JSON: {out[:120]!r}") from exc
    if _is_error_object(data):
        said = _error_message(data) or repr(data.get("message"))[:300]
        raise classified(what, said, _status_of(data, ""))
    return data


def host() -> str:
    """The GitHub host PR URLs must be on: $GH_HOST (GitHub Enterprise), else github.com."""
    return (settings.value("GH_HOST") or "github.com").strip().lower()


def checked_pr_url(url: object, repo: str, what: str) -> str:
    """`url` when it is `https://HOST/OWNER/NAME/pull/N` for `repo`; else a GitHubError."""
    from urllib.parse import urlsplit

    text = str(url).strip() if isinstance(url, str) else ""
    parts = urlsplit(text)
    path = parts.path.split("/")
    try:
        port = parts.port  # a port that is not a number raises
    except ValueError:
        port = -1
    netloc = (parts.hostname or "") + (f":{port}" if port is not None else "")
    ok = (
        parts.scheme == "https"
        and netloc == host()  # GH_HOST names the port of an Enterprise server that has one
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


class GitHubUnavailable(GitHubError):
    """GitHub answered with a rate limit or a server error: try again later (exit 4)."""

    exit_code = 4


class GitHubCredentials(GitHubError):
    """GitHub (or gh) refused or found no credentials: the environment's token (exit 4)."""

    exit_code = 4


# The status as gh prints it: after GitHub's message for a JSON error body (`Not Found (HTTP
# 404)`), alone for an error page with no JSON body, as GitHub's front end answers many
# 502/503/504s (`gh: HTTP 502`), or leading an HTTPError of `gh pr` (`HTTP 502: Bad Gateway`).
_HTTP_STATUS = re.compile(r"\(HTTP (\d{3})\)|^(?:gh: )?HTTP (\d{3})(?::|$)", re.MULTILINE)
_AUTH_WORDS = re.compile(r"bad credentials|requires authentication|gh auth login", re.IGNORECASE)
_RATE_WORDS = re.compile(r"rate limit", re.IGNORECASE)
# What gh (Go's net/http) prints when no answer arrived, or one that is not GitHub's: the
# network or GitHub's front end, never the request; retried and exit 4 like a 5xx.
_NETWORK_WORDS = re.compile(
    r"dial tcp|connection refused|connection reset|broken pipe|i/o timeout|handshake timeout"
    r"|no such host|server misbehaving|network is unreachable|Client\.Timeout|deadline exceeded"
    r"|unexpected EOF|: EOF$|stream error|http2: |unexpected end of JSON input"
    r"|invalid character '<' looking for beginning of value",
    re.IGNORECASE | re.MULTILINE,
)
GH_AUTH_EXIT = 4  # gh's own exit code when it has no credentials at all
CREDENTIALS_HINT = "set GH_TOKEN to a token that can read the repository (or run `gh auth login`)"


def _words(text: str) -> str:
    """GitHub's (or gh's) message on one line, bounded."""
    return " ".join(text.split())[:300]


def _status_of(data: dict[str, Any], stderr: str) -> int:
    found = [a or b for a, b in _HTTP_STATUS.findall(stderr)]
    status = data.get("status") if data else None
    if isinstance(status, str) and status.isdigit():
        return int(status)
    return int(found[-1]) if found else 0


def _kind(said: str, status: int, gh_exit: int | None) -> type[GitHubError]:
    """Authentication and rate limits (and server errors) are the environment's: exit 4."""
    if status == 401 or gh_exit == GH_AUTH_EXIT or (not status and _AUTH_WORDS.search(said)):
        return GitHubCredentials
    if status == 429 or (status in (0, 403) and _RATE_WORDS.search(said)) or status >= 500:
        return GitHubUnavailable
    if not status and _NETWORK_WORDS.search(said):
        return GitHubUnavailable
    return GitHubError


def classified(
    where: str, said: str, status: int, gh_exit: int | None = None, cwd: Path | None = None
) -> GitHubError:
    """The error for GitHub's answer `said` (its own words) with HTTP `status` (0: unknown):
    authentication and rate limits exit 4 (GitHubCredentials, GitHubUnavailable), as do
    server errors; anything else is a GitHubError (exit 1)."""
    kind = _kind(said, status, gh_exit)
    if status:
        said = f"{said} (HTTP {status})"
    if kind is GitHubCredentials:
        return kind(f"{where}: GitHub refused the credentials: GitHub said: {said}; "
                    f"{CREDENTIALS_HINT}")  # fmt: skip
    if kind is GitHubUnavailable and not status and not _RATE_WORDS.search(said):
        return kind(f"{where}: GitHub could not be reached: {said}; retry later")
    if kind is GitHubUnavailable and status < 500:
        hint = _reset_hint(cwd) if cwd is not None else "rerun after the limit resets"
        return kind(f"{where}: GitHub's rate limit is exhausted: GitHub said: {said}; {hint}")
    if kind is GitHubUnavailable:
        return kind(f"{where}: GitHub failed: GitHub said: {said}; retry later")
    return kind(f"{where} failed: GitHub said: {said}")


def _failure(where: str, done: CompletedProcess[bytes], cwd: Path) -> GitHubError:
    """A failed gh call in GitHub's words: the error object gh printed (stdout or stderr),
    else gh's own error lines; classified by the HTTP status gh reports and gh's exit code."""
    stderr = done.stderr.decode("utf-8", "replace")
    stdout = done.stdout.decode("utf-8", "replace")
    data: dict[str, Any] = {}
    for text in (stdout, stderr):
        start = text.find("{")
        if start >= 0:
            try:
                found = json_input.loads(text[start:].strip())
            except ValueError:
                continue
            if _is_error_object(found) and isinstance(found["message"], str):
                data = found
                break
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if data:
        said = _words(data["message"])
    elif lines:
        words = (_HTTP_STATUS.sub("", line.removeprefix("gh:").strip()) for line in lines)
        said = _words(" ".join(words)) or "an error page with no message"
    else:
        said = f"nothing (exit code {done.returncode})"
    return classified(where, said, _status_of(data, stderr), done.returncode, cwd)


def error_in_json(data: object, where: str) -> GitHubError | None:
    """When `data` (a page of a JSON file given for GitHub's answer) is a GitHub error object
    instead, the error it stands for, in GitHub's words; else None."""
    if not _is_error_object(data) or not isinstance(data["message"], str):
        return None
    said = _words(data["message"])
    kind = _kind(said, _status_of(data, ""), None)
    hint = {
        GitHubCredentials: f"{CREDENTIALS_HINT}, then fetch it again",
        GitHubUnavailable: "fetch it again after the rate limit resets (or GitHub recovers)",
    }.get(kind, "fetch it again")
    return kind(
        f"{where}: the file holds GitHub's error answer, not its data: GitHub said: {said}; {hint}"
    )


def api_paginate(endpoint: str, cwd: Path) -> bytes:
    """What `gh api --paginate ENDPOINT` prints: every page, concatenated; any failure
    (after any number of pages) raises, so a caller never mistakes part for the whole."""
    return _api_again(["api", "--paginate", "-H", ACCEPT, endpoint], endpoint, cwd)


def api_get(endpoint: str, cwd: Path) -> bytes:
    """One page of ENDPOINT (`gh api ENDPOINT`, no `--paginate`): for callers that bound how
    many pages they read (`per_page` and `page` in the endpoint's query). Sent again after a
    server error or a timeout (`_api_again`)."""
    return _api_again(["api", "-H", ACCEPT, endpoint], endpoint, cwd)


def api_graphql(query: str, variables: dict[str, str | int], cwd: Path) -> bytes:
    """One GraphQL request (`gh api graphql -f query=Q`); text variables go raw (`-f`), so a
    value can never be read as `@file`, integers typed (`-F`). A response carrying `errors`
    makes gh exit 1 with GitHub's message, raised like any failed call."""
    args = ["api", "graphql", "-f", f"query={query}"]
    for name, value in variables.items():
        flag = "-F" if type(value) is int else "-f"
        args += [flag, f"{name}={value}"]
    return _api_again(args, "graphql", cwd)  # a query reads only: safe to send again


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
    raise _failure(f"gh api {endpoint[:120]}", done, cwd)


def _reset_hint(cwd: Path) -> str:
    """When the core rate limit resets, from `gh api rate_limit` (which costs no quota)."""
    try:
        done = _run(["api", "rate_limit"], "gh api rate_limit", cwd, "")
        data = json.loads(done.stdout or b"null") if done.returncode == 0 else None
        reset = data["resources"]["core"]["reset"] if isinstance(data, dict) else None
    except (OSError, ValueError, KeyError, TypeError, KbkitError):
        reset = None
    if type(reset) is not int:
        return "rerun after the limit resets (nothing this run left unfinished was counted)"
    moment = datetime.fromtimestamp(reset, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"it resets at {moment}; rerun then (nothing this run left unfinished was counted)"


# --- One page at a time, and writes with a JSON body (issue #25) ------------------------------
# Distill's knowledge PRs and intake's bounded scan speak GitHub's REST API through
# `gh api` only: `gh api [-i] -H ACCEPT ENDPOINT` and `gh api -X METHOD -H ACCEPT ENDPOINT
# --input FILE`. REST needs no GraphQL (what `gh pr ...` uses), so a fork owned by an
# organization works as a PR head, and the same calls reach GitHub Enterprise.


# A request that changes nothing (GET) or sets a value (PATCH) is sent again after a server
# error (twice) or a timeout (once): GitHub's 502s and stalls pass, and a daily run that met
# one still finishes. A POST (a new PR, a comment) is never sent twice: it may have been done.
RETRY_PAUSE = 1.0  # seconds before the first retry, doubled for the next; KBKIT_GH_RETRY_PAUSE
# A secondary rate limit (HTTP 429, or a 403 saying "secondary rate limit") asks the client
# to slow down and try again after `retry-after`, at least a minute: sent once more after
# SECONDARY_PAUSE retry pauses (60 s by default). A primary limit (the hour's quota is spent)
# is not retried: the run stops, exit 4, and the next run goes on.
SECONDARY_PAUSE = 60
_SECONDARY = re.compile(r"secondary rate limit|\(HTTP 429\)", re.IGNORECASE)


def _api_again(args: list[str], endpoint: str, cwd: Path) -> bytes:
    """`_api`, sent again after a server error or a timeout (see RETRY_PAUSE)."""
    import time

    from kbkit.infra.errors import EnvironmentFailure

    timeouts = errors = slowed = 0
    unit = pause = timeout_from_env("KBKIT_GH_RETRY_PAUSE", RETRY_PAUSE)
    while True:
        try:
            return _api(args, endpoint, cwd)
        except GitHubUnavailable as exc:
            if _SECONDARY.search(str(exc)) and not slowed:
                slowed += 1  # GitHub asked to slow down: wait its minute, then once more
                time.sleep(unit * SECONDARY_PAUSE)
                continue
            errors += 1
            if errors > 2 or "rate limit" in str(exc):
                raise
        except EnvironmentFailure:
            timeouts += 1
            if timeouts > 1:
                raise
        time.sleep(pause)
        pause *= 2


def api_json(endpoint: str, cwd: Path) -> Any:
    """One page of ENDPOINT, decoded; a GitHub error object raises as what GitHub said."""
    out = api_get(endpoint, cwd).decode("utf-8", "replace")
    return _json_output(out, f"gh api {endpoint[:120]}")


def api_send(method: str, endpoint: str, payload: dict[str, Any], cwd: Path) -> Any:
    """`gh api -X METHOD ENDPOINT --input FILE` with `payload` as the JSON body; the decoded
    answer. The body travels in a file, so no value is read as gh's `-F` magic (`@file`,
    numbers, `true`)."""
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as out:
        json.dump(payload, out, ensure_ascii=False)
    body = Path(out.name)
    try:
        args = ["api", "-X", method, "-H", ACCEPT, endpoint, "--input", str(body)]
        send = _api_again if method in ("GET", "PATCH") else _api
        answer = send(args, endpoint, cwd).decode("utf-8", "replace")
    finally:
        body.unlink(missing_ok=True)
    return _json_output(answer, f"gh api -X {method} {endpoint[:120]}")


_LINK = re.compile(r"<([^>]*)>;\s*rel=\"(\w+)\"")


class ApiPage(NamedTuple):
    """One page of a list endpoint and what its `Link` header says about the others."""

    body: bytes
    has_next: bool
    last: int | None  # the last page's number (None: no Link header, or it names none)


def api_page(endpoint: str, cwd: Path) -> ApiPage:
    """One page of ENDPOINT with its headers (`gh api -i`): the caller pages on by itself and
    can stop early, which `--paginate` cannot."""
    from urllib.parse import parse_qs, urlsplit

    out = _api_again(["api", "-i", "-H", ACCEPT, endpoint], endpoint, cwd)
    ends = [(at, len(sep)) for sep in (b"\r\n\r\n", b"\n\n") if (at := out.find(sep)) >= 0]
    at, width = min(ends) if ends else (len(out), 0)
    head, body = out[:at], out[at + width :]
    links: dict[str, str] = {}
    for line in head.decode("utf-8", "replace").split("\n"):
        if line.lower().startswith("link:"):
            links.update({rel: url for url, rel in _LINK.findall(line)})
    pages = parse_qs(urlsplit(links["last"]).query).get("page") if "last" in links else None
    last = int(pages[0]) if pages and pages[0].isdigit() else None
    return ApiPage(body, "next" in links, last)


class Pull(NamedTuple):
    """A pull request as GitHub's REST API describes it, checked field by field."""

    number: int
    url: str  # https://HOST/OWNER/NAME/pull/N
    state: str  # open or closed
    merged: bool
    title: str
    body: str
    head_ref: str
    head_sha: str
    head_owner: str  # the head repository's owner ("" when that repository is gone)
    base_ref: str
    created_at: str


def checked_pull(item: object, repo: str, what: str) -> Pull:
    """One pull object of `repo`: a positive integer number, an `https://` URL on the host,
    a known state and string fields where GitHub sends strings; else a GitHubError."""
    if not isinstance(item, dict):
        raise GitHubError(f"{what} is {type(item).__name__}, not a pull request object")
    number = item.get("number")
    if type(number) is not int or number < 1:
        raise GitHubError(f"{what}: PR number {str(number)[:40]!r} is not a positive integer")
    where = f"{what} (#{number})"
    state = item.get("state")
    if state not in ("open", "closed"):
        raise GitHubError(f"{where}: state {str(state)[:20]!r} is neither open nor closed")
    url = checked_pr_url(item.get("html_url"), repo, where)
    head, base = item.get("head"), item.get("base")
    if not isinstance(head, dict) or not isinstance(base, dict):
        raise GitHubError(f"{where}: no `head` or `base` object")
    head_repo = head.get("repo")
    owner = head_repo.get("owner") if isinstance(head_repo, dict) else None
    login = owner.get("login") if isinstance(owner, dict) else None
    fields = {
        "title": item.get("title"),
        "head.ref": head.get("ref"),
        "head.sha": head.get("sha"),
        "base.ref": base.get("ref"),
        "created_at": item.get("created_at"),
    }
    for name, value in fields.items():
        if not isinstance(value, str):
            raise GitHubError(f"{where}: `{name}` is not a string")
    body = item.get("body")
    merged_at = item.get("merged_at")
    return Pull(
        number,
        url,
        str(state),
        isinstance(merged_at, str) and bool(merged_at),
        str(fields["title"]),
        body if isinstance(body, str) else "",
        str(fields["head.ref"]),
        str(fields["head.sha"]),
        login if isinstance(login, str) else "",
        str(fields["base.ref"]),
        str(fields["created_at"]),
    )


def list_pulls(repo: str, cwd: Path, *, state: str = "all", page: int = 1) -> list[Pull]:
    """One page (100) of `repo`'s pull requests in `state` (open, closed, all), newest
    created first."""
    endpoint = (
        f"repos/{repo}/pulls?state={state}&sort=created&direction=desc&per_page=100&page={page}"
    )
    data = api_json(endpoint, cwd)
    if not isinstance(data, list):
        raise GitHubError(f"gh api {endpoint}: printed {type(data).__name__}, not a list")
    return [checked_pull(item, repo, f"pull {i} of page {page}") for i, item in enumerate(data)]


def create_pull(repo: str, cwd: Path, *, head: str, base: str, title: str, body: str) -> Pull:
    """Open a pull request from `head` (OWNER:BRANCH) into `base`. Maintainers may not push
    to the head branch: it is the bot's, and it is rebuilt whenever the base moves."""
    payload = {
        "title": title,
        "head": head,
        "base": base,
        "body": body,
        "maintainer_can_modify": False,
    }
    return checked_pull(api_send("POST", f"repos/{repo}/pulls", payload, cwd), repo, "new PR")


def update_pull(repo: str, number: int, cwd: Path, **fields: str) -> Pull:
    """Change a pull request's `body`, `title` or `state` (`closed`)."""
    answer = api_send("PATCH", f"repos/{repo}/pulls/{number}", dict(fields), cwd)
    return checked_pull(answer, repo, f"PR #{number}")


def comment_issue(repo: str, number: int, body: str, cwd: Path) -> None:
    """Post a comment on issue or pull request `number`."""
    answer = api_send("POST", f"repos/{repo}/issues/{number}/comments", {"body": body}, cwd)
    if not isinstance(answer, dict) or type(answer.get("id")) is not int:
        raise GitHubError(f"gh api: the comment on #{number} came back without an id")
