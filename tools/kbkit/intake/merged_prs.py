"""The merged-change row every source writes, the timestamps it accepts, and the durable
scan cursor.

A merged change (a GitHub pull request, a GitLab merge request, a merge found in git
history) is one `merged_pr` row of the events schema; `conform` fits any source's row to it.
The cursor (`cursor.json`) holds, per repository, the newest `updated_at` a scan has read.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from kbkit.infra.clock import now
from kbkit.infra.errors import InputError, UsageError
from kbkit.infra.file_lock import locked
from kbkit.infra.jsonl import ignore_transient_files
from kbkit.intake.ledger import Row, timestamp
from kbkit.intake.repo_identity import parse_slug
from kbkit.intake.schemas import EVENTS, definition, fit_to_schema
from kbkit.intake.state_file import read_state, write_state

CURSOR_FILE = "cursor.json"
GITHUB_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
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


def conform(row: Row, own_url: str | None = None) -> Row:
    """A merged-PR row fitted to the events schema: free text (title, author, summary,
    diff excerpt, labels) cut to its `maxLength` with a visible marker, a merge commit that
    is not a commit id dropped, and a URL that is not one replaced by the change's own
    (`own_url`; by default the GitHub pull request's)."""
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
        row["url"] = own_url or f"https://github.com/{row['repo']}/pull/{row['number']}"
    return row


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
