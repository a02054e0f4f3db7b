"""The GitLab source: merged merge requests of one project, with their diffs and notes.

A project is named by its full path, nested groups and all (`group/subgroup/project`); a
merge request is `group/subgroup/project!N` (GitLab's own spelling, N its `iid`), recorded
as a `merged_pr` row with `via: gitlab`. A scan asks GitLab for the project's merged merge
requests updated since the cursor minus one hour (`updated_after`, newest first; a first
scan: the last 7 days, or `--since`), records the ones not recorded yet with their final
diff (`/diffs`) and notes (`/notes`, oldest first, at most NOTE_PAGES pages), then moves the
project's cursor (`gitlab:PATH` in cursor.json, apart from any GitHub repository's). A
failure at any point leaves the cursor where it was; rows recorded before it stay
(uniqueness absorbs them when the next scan reads them again).

Notes map onto the host-neutral notes (`kbkit.intake.notes`): a note on a diff line
(`type: DiffNote`) is an inline comment, any other a conversation comment, each cited as
`PATH!N:note_ID` (GitLab's page anchor); system notes ("added 2 commits") are not what
anybody said and are left out.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from kbkit.intake.discussion import attach
from kbkit.intake.ledger import (
    Row,
    known_sources,
    load_events,
    record_events,
    same_source,
    timestamp,
)
from kbkit.intake.merged_prs import (
    SUMMARY_CHARS,
    advance_cursor,
    conform,
    latest_plausible,
    parse_time,
    read_cursor,
    scan_since,
    window_start,
)
from kbkit.intake.notes import Author, IssueComment, RawDiscussion, ReviewComment, Thread
from kbkit.intake.repo_identity import PROJECT_PATH, RepoIdentity
from kbkit.intake.sources.base import Change, ScanResult, refuse, typed_field
from kbkit.vcs.gitlab import Client, project_id

NAME = "gitlab"
VIA = "gitlab"
KIND = "merged_pr"
NOUN = "merge request"
CHUNK = 20  # rows recorded together, so a failure keeps what was already read
SCAN_PAGES = 10_000  # pages of merge requests one scan reads at most (a million)
NOTE_PAGES = 5
DIFF_PAGES = 3
MAX_PATH = 4096
# https://HOST/PATH(.git), ssh://git@HOST[:port]/PATH(.git), git@HOST:PATH(.git)
_URL = re.compile(r"(?:(?:https?|ssh)://(?:[^@/\s]+@)?[^/\s]+/|[^@/:\s]+@[^/:\s]+:)(\S+?)/?")
_BOT = re.compile(r"(\[bot\]|[-_]bot|^(project|group)_\d+_bot_[0-9a-f]+)$", re.IGNORECASE)


def repo_id(text: str) -> str | None:
    """The canonical full path (lower case: GitLab finds a project whatever the case, no
    `.git`) of a project path or URL, a merge request's URL included; None otherwise."""
    text = text.strip()
    url = _URL.fullmatch(text)
    path = (url.group(1) if url else text).split("/-/", 1)[0].strip("/")
    if path.lower().endswith(".git"):
        path = path[: -len(".git")]
    return path.lower() if PROJECT_PATH.match(path) else None


def change_id(repo: str, key: str) -> str:
    """Merge request `key` (its iid) of `repo`: `group/subgroup/project!N`."""
    return f"{repo}!{key}"


def cursor_key(repo: str) -> str:
    """The project's entry in cursor.json: apart from a GitHub repository of the same name."""
    return f"{NAME}:{repo}"


_refuse = refuse


def _field(item: dict[str, Any], field: str, kind: type, where: str, label: str) -> Any:
    return typed_field(item, field, kind, where, label, "GitLab's merge request JSON")


def _labels(item: dict[str, Any], where: str, label: str) -> list[str]:
    """GitLab's label names (strings; objects with a `name` under `with_labels_details`)."""
    labels = item.get("labels") or []
    if type(labels) is not list:
        _refuse(where, label, "`labels` must be a list")
    names = [x.get("name") if type(x) is dict else x for x in labels]
    if not all(type(name) is str for name in names):
        _refuse(where, label, "`labels` must be label names")
    return [str(name) for name in names]


def mr_row(
    item: Any, index: int, label: str, repo: str, web: str, recorded_at: str, latest: str
) -> tuple[Row | None, str]:
    """The row of one merge request object of `repo` (None when it is not merged) and its
    `updated_at`."""
    where = f"merge request {index}"
    if type(item) is not dict:
        _refuse(where, label, "expected a merge request object")
    iid = _field(item, "iid", int, where, label)
    where = f"{where} (!{iid})"
    if iid < 1:
        _refuse(where, label, "`iid` must be positive")
    _field(item, "project_id", int, where, label)
    title = _field(item, "title", str, where, label)
    body = item.get("description") or ""
    if type(body) is not str:
        _refuse(where, label, "`description` must be a string or null")
    updated = parse_time(item.get("updated_at"), "updated_at", where, label, latest)
    if item.get("state") != "merged":
        return None, updated
    # merge requests merged before GitLab kept `merged_at` have none: their last update
    merged_at = parse_time(item.get("merged_at") or updated, "merged_at", where, label, latest)
    author = item.get("author")
    login = author.get("username") if type(author) is dict else None
    sha = item.get("merge_commit_sha") or item.get("squash_commit_sha")
    url = item.get("web_url")
    return conform(
        {
            "source_kind": KIND,
            "source_id": change_id(repo, str(iid)),
            "repo": repo,
            "number": iid,
            "title": title,
            "url": url if type(url) is str else "",
            "author": str(login or "ghost") if type(login) in (str, type(None)) else "ghost",
            "merged_at": merged_at,
            "labels": _labels(item, where, label),
            "draft": item.get("draft") is True or item.get("work_in_progress") is True,
            "summary": body[:SUMMARY_CHARS],
            "diff_excerpt": "",
            "merge_commit": sha if type(sha) is str and sha else None,
            "via": VIA,
            "recorded_at": recorded_at,
        },
        own_url=f"{web}/{repo}/-/merge_requests/{iid}",
    ), updated


def _author(item: dict[str, Any], where: str, label: str) -> Author:
    user = item.get("author")
    if user is None:
        return Author("ghost", "NONE", False)
    if type(user) is not dict or type(user.get("username")) is not str or not user["username"]:
        _refuse(where, label, "`author` must be null or an object with a `username`")
    login = user["username"][:100]
    return Author(login, "NONE", user.get("bot") is True or bool(_BOT.search(login)))


def _line(position: dict[str, Any], field: str, where: str, label: str) -> int | None:
    value = position.get(field)
    if value is not None and (type(value) is not int or value < 1):
        _refuse(where, label, f"`position.{field}` must be a positive integer or null")
    return value


def parse_notes(label: str, items: list[Any], complete: bool) -> RawDiscussion:
    """A merge request's notes as the discussion: notes on diff lines inline, the rest the
    conversation, system notes left out; a resolvable note's thread state kept."""
    comments: list[ReviewComment] = []
    conversation: list[IssueComment] = []
    threads: dict[int, Thread] = {}
    for index, item in enumerate(items):
        where = f"note {index}"
        if type(item) is not dict:
            _refuse(where, label, "expected a note object")
        ident = _field(item, "id", int, where, label)
        if ident < 1:
            _refuse(where, label, "`id` must be positive")
        if item.get("system") is True:
            continue
        body = item.get("body") or ""
        if type(body) is not str:
            _refuse(where, label, "`body` must be a string")
        author = _author(item, where, label)
        at = parse_time(item.get("created_at"), "created_at", where, label)
        position = item.get("position")
        if item.get("type") == "DiffNote" and type(position) is dict:
            path = position.get("new_path") or position.get("old_path")
            if type(path) is not str or not path or len(path) > MAX_PATH:
                _refuse(where, label, "`position.new_path` must be the file's path")
            line = _line(position, "new_line", where, label)
            old = _line(position, "old_line", where, label)
            comments.append(ReviewComment(ident, None, None, author, body, path, line or old,
                                          None, old, None, False, "", at, "note_"))  # fmt: skip
        else:
            conversation.append(IssueComment(ident, author, body, at, "note_"))
        if item.get("resolvable") is True and type(item.get("resolved")) is bool:
            threads[ident] = Thread(ident, item["resolved"], False)
    return RawDiscussion([], comments, conversation, threads, complete)


def parse_diffs(label: str, items: list[Any]) -> str:
    """A unified diff rebuilt from the merge request's diffs (`old_path`, `new_path`, `diff`)."""
    parts: list[str] = []
    for index, item in enumerate(items):
        where = f"diff {index}"
        old, new = (item.get(k) if type(item) is dict else None for k in ("old_path", "new_path"))
        if type(old) is not str or type(new) is not str or not new:
            _refuse(where, label, "missing `old_path`/`new_path`; is this GitLab's diffs JSON?")
        text = item.get("diff") or ""
        if type(text) is not str:
            _refuse(where, label, "`diff` must be a string")
        if text:  # a binary file, or one too large for GitLab to show: nothing to excerpt
            end = "" if text.endswith("\n") else "\n"
            parts.append(f"diff --git a/{old} b/{new}\n--- a/{old}\n+++ b/{new}\n{text}{end}")
    return "".join(parts)


def _read_change(client: Client, repo: str, number: int) -> Change:
    base = f"projects/{project_id(repo)}/merge_requests/{number}"
    notes, _, ended = client.pages(
        f"{base}/notes", {"sort": "asc", "order_by": "created_at"}, NOTE_PAGES
    )
    diffs, _, _ = client.pages(f"{base}/diffs", {}, DIFF_PAGES)
    label = f"GitLab {change_id(repo, str(number))}"
    return Change(parse_diffs(f"{label} diffs", diffs), parse_notes(f"{label} notes", notes, ended))


def read_change(repo: str, number: int, cwd: Path) -> Change:
    """Merge request `number`'s final diff and its notes (KBKIT_GITLAB_URL and _TOKEN)."""
    return _read_change(Client.from_env(), repo, number)


def scan(
    intake_dir: Path,
    repo: str,
    identity: RepoIdentity,
    *,
    dry_run: bool = False,
    since: str | None = None,
    client: Client | None = None,
) -> ScanResult:
    """Read `repo`'s merge requests merged and updated since the cursor (or `since`, or the
    first scan's window), record the ones not recorded yet with their evidence, then move
    the cursor (unless `dry_run`, which writes nothing)."""
    client = client or Client.from_env()
    key = cursor_key(repo)
    cursor = read_cursor(intake_dir).get(key)
    first = cursor is None and since is None
    stop = since or scan_since(cursor) or window_start()
    endpoint = f"projects/{project_id(repo)}/merge_requests"
    params = {"state": "merged", "updated_after": stop, "order_by": "updated_at", "sort": "desc"}
    items, pages, _ = client.pages(endpoint, params, SCAN_PAGES)
    label = f"GitLab {repo} merge requests"
    rows: list[Row] = []
    unmerged, newest = 0, ""
    recorded_at, latest = timestamp(), latest_plausible()
    for index, item in enumerate(items):
        row, updated = mr_row(item, index, label, repo, client.url, recorded_at, latest)
        if updated < stop:
            continue  # before where this scan stops: read, not recorded
        newest = max(newest, updated)
        if row is None:
            unmerged += 1
        else:
            rows.append(row)
    known = known_sources(load_events(intake_dir).values())
    new = [row for row in rows if same_source(KIND, row["source_id"]) not in known]
    already = len(rows) - len(new)
    if dry_run:
        return ScanResult(new, already, unmerged, cursor, stop, pages, first, None)
    for start in range(0, len(new), CHUNK):
        chunk = new[start : start + CHUNK]
        for row in chunk:
            change = _read_change(client, repo, row["number"])
            attach(row, change.discussion, change.diff)
        record_events(intake_dir, chunk)
    moved = advance_cursor(intake_dir, {key: newest}) if newest else read_cursor(intake_dir)
    return ScanResult(new, already, unmerged, moved.get(key), stop, pages, first, None)
