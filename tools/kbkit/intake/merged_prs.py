"""Merged pull requests from GitHub's REST `pulls` JSON, and the durable scan cursor.

Every merged PR counts (drafts and PRs no tool tracked too); closed-unmerged ones never do.
The whole input is checked before anything is recorded, so a bad page touches nothing.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple, NoReturn

from kbkit.infra.clock import now
from kbkit.infra.errors import InputError, UsageError
from kbkit.infra.file_lock import locked
from kbkit.infra.jsonl import gc_paused, ignore_transient_files
from kbkit.intake.json_pages import Page, page_items
from kbkit.intake.ledger import Row, timestamp
from kbkit.intake.repo_identity import SLUG, RepoIdentity, parse_slug
from kbkit.intake.schemas import EVENTS, definition, fit_to_schema
from kbkit.intake.state_file import read_state, write_state

CURSOR_FILE = "cursor.json"
GITHUB_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
MAX_BODY = 65536  # GitHub's own limit on a PR body; anything longer did not come from GitHub
MAX_TITLE = 1024
DEFAULT_OVERLAP = timedelta(hours=1)
DEFAULT_WINDOW = timedelta(days=7)  # a repository's first scan reads this far back

# The merged-PR row as the events schema has it: one schema for the writers (record-prs,
# record-git) and for `kb intake check`.
MERGED_PR = definition(EVENTS, "merged_pr")
_FIELDS = MERGED_PR["properties"]
SUMMARY_CHARS: int = _FIELDS["summary"]["maxLength"]
MERGE_COMMIT = re.compile(_FIELDS["merge_commit"]["pattern"])
_TEXT_LIMITS = {
    name: field["maxLength"]
    for name, field in _FIELDS.items()
    if field.get("type") == "string" and "maxLength" in field and name != "url"
}
_LABEL_LIMIT: int = _FIELDS["labels"]["items"]["maxLength"]
_URL_LIMIT: int = _FIELDS["url"]["maxLength"]


def conform(row: Row) -> Row:
    """A merged-PR row fitted to the events schema: free text (title, author, summary,
    diff excerpt, labels) cut to its `maxLength` with a visible marker, a merge commit that
    is not a commit id dropped, and a URL that is not one replaced by the PR's own."""
    cuts: list[str] = []
    for name, limit in _TEXT_LIMITS.items():
        value = row.get(name)
        if isinstance(value, str) and len(value) > limit:
            row[name] = fit_to_schema(value, _FIELDS[name], name, cuts)
    labels = row.get("labels")
    if isinstance(labels, list) and any(len(label) > _LABEL_LIMIT for label in labels):
        row["labels"] = fit_to_schema(labels, _FIELDS["labels"], "labels", cuts)
    sha = row.get("merge_commit")
    if sha is not None and not MERGE_COMMIT.match(sha):
        row["merge_commit"] = None
    url = row.get("url")
    if not isinstance(url, str) or len(url) > _URL_LIMIT or not url.startswith("https://"):
        row["url"] = f"https://github.com/{row['repo']}/pull/{row['number']}"
    return row


class PullScan(NamedTuple):
    rows: list[Row]
    unmerged: int
    newest: dict[str, str]  # repo -> newest updated_at seen in this input


# What GitHub sends, or an offset/fraction variant of it; nothing looser (no week dates,
# no bare dates): a value that merely parses could still move the cursor anywhere.
ISO_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)")
EARLIEST = "2008-01-01T00:00:00Z"  # before GitHub existed: no PR was updated then
FUTURE_SLACK = timedelta(days=1)  # clock differences between GitHub and this host


def latest_plausible() -> str:
    """The latest timestamp a real GitHub object can carry now (the clock plus a day)."""
    return timestamp(now() + FUTURE_SLACK)


def parse_time(value: Any, field: str, where: str, label: str, latest: str | None = None) -> str:
    """A GitHub timestamp, normalized to `YYYY-MM-DDTHH:MM:SSZ` in UTC.

    Refused: anything but an ISO-8601 instant, and instants before GitHub existed or after
    `latest` (default: a day from now), which would otherwise carry the cursor with them.
    """
    if not isinstance(value, str):
        raise InputError(f"{where}: `{field}` must be a timestamp string", path=label)
    if GITHUB_TIME.fullmatch(value):
        normal = value  # already in GitHub's format: the common case, and the cheap one
    else:
        if not ISO_TIME.fullmatch(value):
            raise InputError(f"{where}: `{field}` {value[:40]!r} is not a timestamp", path=label)
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
            normal = timestamp(moment)  # a year before 1000 comes out short: refused below
        except (ValueError, OverflowError) as exc:
            raise InputError(
                f"{where}: `{field}` {value[:40]!r} is not a timestamp", path=label
            ) from exc
    limit = latest or latest_plausible()
    if not GITHUB_TIME.fullmatch(normal) or not EARLIEST <= normal <= limit:
        raise InputError(
            f"{where}: `{field}` {value[:40]!r} is outside {EARLIEST[:4]}..{limit}; GitHub "
            "never sends that, and the cursor must not move there",
            path=label,
        )
    return normal


def _refuse(where: str, label: str, message: str) -> NoReturn:
    raise InputError(f"{where}: {message}", path=label)


def _field(item: dict[str, Any], field: str, kind: type, where: str, label: str) -> Any:
    value = item.get(field)
    if type(value) is not kind:
        if field not in item:
            _refuse(where, label, f"missing `{field}`; is this GitHub's pulls JSON?")
        _refuse(where, label, f"`{field}` has the wrong type ({type(value).__name__})")
    return value


def _repo_of(item: dict[str, Any], where: str, label: str) -> str:
    base = item.get("base")
    repo = base.get("repo") if isinstance(base, dict) else None
    name = repo.get("full_name") if isinstance(repo, dict) else None
    if not isinstance(name, str) or not SLUG.match(name):
        _refuse(where, label, "missing `base.repo.full_name` (owner/name)")
    return name


def _watched_repo(name: str, identity: RepoIdentity, where: str, label: str) -> str:
    repo = identity.normalize(name)
    if not identity.watches(repo):
        _refuse(
            where,
            label,
            f"PR of {repo}, but the watched repository is {identity.slug}; "
            f"add --alias {repo}={identity.slug} if it was renamed",
        )
    return repo


def pr_row(
    item: dict[str, Any],
    where: str,
    label: str,
    repo: str,
    recorded_at: str,
    latest: str | None = None,
) -> Row | None:
    """The event row of one PR object of `repo`, None when it was closed without merging."""
    number = _field(item, "number", int, where, label)
    where = f"{where} (PR #{number})"
    if number < 1:
        _refuse(where, label, "`number` must be positive")
    if "merged_at" not in item:
        _refuse(where, label, "missing `merged_at`; cannot tell whether it merged")
    title = _field(item, "title", str, where, label)
    body = item.get("body") or ""
    if type(body) is not str:
        _refuse(where, label, "`body` must be a string or null")
    if len(body) > MAX_BODY or len(title) > MAX_TITLE:
        _refuse(where, label, f"body or title longer than GitHub allows ({len(body)} chars)")
    merged_at = item["merged_at"]
    if merged_at is None:
        return None
    labels = item.get("labels") or []
    if type(labels) is not list:
        _refuse(where, label, "`labels` must be a list of label objects")
    try:
        names = [str(x["name"]) for x in labels]
    except (TypeError, KeyError):
        _refuse(where, label, "`labels` must be a list of label objects with a `name`")
    user = item.get("user")
    author = user.get("login") if type(user) is dict else None
    sha = item.get("merge_commit_sha")
    return conform(
        {
            "source_kind": "merged_pr",
            "source_id": f"{repo}#{number}",
            "repo": repo,
            "number": number,
            "title": title,
            "url": str(item.get("html_url") or f"https://github.com/{repo}/pull/{number}"),
            "author": str(author or "ghost"),
            "merged_at": parse_time(merged_at, "merged_at", where, label, latest),
            "labels": names,
            "draft": item.get("draft") is True,
            "summary": body[:SUMMARY_CHARS],
            "diff_excerpt": "",
            "merge_commit": sha if type(sha) is str and sha else None,
            "via": "github",
            "recorded_at": recorded_at,
        }
    )


def parse_pulls(
    label: str, pages: list[Page], identity: RepoIdentity, *, since: str | None = None
) -> PullScan:
    """Check every PR object of the input, then return the rows of the merged ones; with
    `since`, PRs last updated before it are checked but left out (a scan's stop)."""
    rows: list[Row] = []
    unmerged = 0
    newest: dict[str, str] = {}
    repos: dict[str, str] = {}  # base.repo.full_name -> watched spelling, checked once
    recorded_at = timestamp()
    latest = latest_plausible()
    with gc_paused():
        for where, item in page_items(label, pages, "pull request"):
            name = _repo_of(item, where, label)
            repo = repos.get(name) or repos.setdefault(
                name, _watched_repo(name, identity, where, label)
            )
            row = pr_row(item, where, label, repo, recorded_at, latest)
            updated = item.get("updated_at")
            if updated is not None:
                updated = parse_time(
                    updated, "updated_at", f"{where} (PR #{item['number']})", label, latest
                )
                if since is not None and updated < since:
                    continue  # before where this scan stops: read, not recorded
                if updated > newest.get(repo, ""):
                    newest[repo] = updated
            if row is None:
                unmerged += 1
            else:
                rows.append(row)
    return PullScan(rows, unmerged, newest)


def read_cursor(intake_dir: Path) -> dict[str, str]:
    """repo -> newest `updated_at` already scanned (empty when there is no cursor yet)."""
    path = intake_dir / CURSOR_FILE
    expected = 'expected {"version": 1, "merged_prs": {"owner/name": "2026-11-30T08:15:00Z"}}'
    repos = read_state(
        path,
        "merged_prs",
        invalid="not a valid cursor file; delete it to rescan everything "
        "(uniqueness absorbs the repeats)",
        expected=expected,
    )
    if not all(isinstance(v, str) and GITHUB_TIME.fullmatch(v) for v in repos.values()):
        raise InputError(expected, path=str(path))
    # one entry per repository however its slug was spelled when written (`Acme/App` by an
    # older kbkit, `acme/app` now): the newest time of them
    cursor: dict[str, str] = {}
    for repo, moment in repos.items():
        key = parse_slug(repo) or repo
        cursor[key] = max(moment, cursor.get(key, ""))
    return cursor


def advance_cursor(intake_dir: Path, newest: dict[str, str]) -> dict[str, str]:
    """Move each repo's cursor forward (never back), replacing the file atomically."""
    path = intake_dir / CURSOR_FILE
    with locked(path):
        cursor = read_cursor(intake_dir)
        changed = False
        for name, moment in newest.items():
            repo = parse_slug(name) or name
            if moment > cursor.get(repo, ""):
                cursor[repo] = moment
                changed = True
        if changed:
            ignore_transient_files(intake_dir)
            write_state(path, "merged_prs", cursor)
    return cursor


def scan_since(cursor: str | None, overlap: timedelta = DEFAULT_OVERLAP) -> str | None:
    """Where the next scan starts: the cursor minus the overlap window (None: from the start)."""
    if not cursor:
        return None
    moment = datetime.strptime(cursor, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    return timestamp(moment - overlap)


def window_start(window: timedelta = DEFAULT_WINDOW) -> str:
    """Where a repository's first scan stops: `window` before now (kbkit's clock)."""
    return timestamp(now() - window)


def since_option(value: str) -> str:
    """`--since` as a GitHub timestamp: a day (`2026-01-31`, its start in UTC) or an instant."""
    text = value.strip()
    if re.fullmatch(r"\d{4}-\d\d-\d\d", text):
        text += "T00:00:00Z"
    try:
        return parse_time(text, "--since", "--since", "--since")
    except InputError as exc:
        raise UsageError(
            f"--since {value!r}: write a day (YYYY-MM-DD) or a time (YYYY-MM-DDTHH:MM:SSZ) after 2008"
        ) from exc
