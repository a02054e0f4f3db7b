"""The GitHub source: scan GitHub's closed pulls, newest updated first, one page at a time, and record the
merged ones; the cursor bounds every scan.

Where a scan stops: at the cursor minus the overlap (one hour), or, on the first scan of a
repository, at the start of the window (`--since`, default the last 7 days); a first scan
that stopped there says about how many older closed pull requests it left for an explicit
backfill (`--since DATE`). Pages are read with `gh api -i` (their `Link` header says whether
another follows), so a scan costs one call per 100 pull requests updated since the cursor,
never one per 100 in the repository's history.

The cursor moves only after the whole scan succeeded: every page up to the stop was read and
every newly recorded PR got its diff excerpt and review discussion (`sources.github_reviews`). A
failure at any point leaves the cursor where it was; rows recorded before it stay
(uniqueness absorbs them when the next scan re-reads).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kbkit.infra.errors import InputError
from kbkit.intake.json_pages import Page, decode_pages, page_items
from kbkit.intake.ledger import known_sources, load_events, record_events, same_source
from kbkit.intake.merged_prs import advance_cursor, read_cursor, scan_since, window_start
from kbkit.intake.repo_identity import RepoIdentity, parse_slug
from kbkit.intake.sources.base import Change, ScanResult
from kbkit.intake.sources.github_pulls import parse_pulls
from kbkit.intake.sources.github_reviews import (
    GhReader,
    Reader,
    attach_discussion,
    read_discussion,
)
from kbkit.vcs import github

NAME = "github"
VIA = "github"
KIND = "merged_pr"
NOUN = "pull request"

# Newly recorded rows are written in chunks of this many, so a rate limit met while
# fetching diffs keeps what was already fetched.
CHUNK = 20
PER_PAGE = 100  # GitHub's maximum


def repo_id(text: str) -> str | None:
    """`owner/name` (lower case, no `.git`) of a slug or a repository URL; None otherwise."""
    return parse_slug(text)


def change_id(repo: str, key: str) -> str:
    """Pull request `key` of `repo`: `owner/name#N`."""
    return f"{repo}#{key}"


def scan(
    intake_dir: Path,
    repo: str,
    identity: RepoIdentity,
    *,
    dry_run: bool = False,
    since: str | None = None,
) -> ScanResult:
    """The source interface's scan: `scan_github` through gh."""
    return scan_github(intake_dir, repo, identity, dry_run=dry_run, since=since)


def read_change(repo: str, number: int, cwd: Path) -> Change:
    """Pull request `number`'s final diff (from its files) and its review discussion."""
    diff = _diff(repo, {"number": number}, cwd, github.api_paginate)
    return Change(diff, read_discussion(repo, number, GhReader(cwd))[0])


def pulls_endpoint(slug: str, page: int = 1) -> str:
    """Closed pulls, most recently updated first, 100 a page (GitHub's maximum)."""
    return f"repos/{slug}/pulls?state=closed&sort=updated&direction=desc&per_page={PER_PAGE}&page={page}"  # fmt: skip


def files_endpoint(slug: str, number: int) -> str:
    return f"repos/{slug}/pulls/{number}/files?per_page=100"


def files_diff(label: str, data: bytes) -> str:
    """A unified diff rebuilt from the PR files JSON (`filename` + `patch` per file)."""
    parts: list[str] = []
    for where, item in page_items(label, decode_pages(label, data) if data.strip() else [], "file"):
        name = item.get("filename")
        patch = item.get("patch")
        if not isinstance(name, str) or not name:
            raise InputError(
                f"{where}: missing `filename`; is this GitHub's files JSON?", path=label
            )
        if patch is None:  # binary, or too large for GitHub to show: nothing to excerpt
            continue
        if not isinstance(patch, str):
            raise InputError(f"{where}: `patch` must be a string", path=label)
        parts.append(f"diff --git a/{name} b/{name}\n--- a/{name}\n+++ b/{name}\n{patch}\n")
    return "".join(parts)


def scan_github(
    intake_dir: Path,
    slug: str,
    identity: RepoIdentity,
    *,
    dry_run: bool = False,
    since: str | None = None,
    page_of: Callable[[str, Path], github.ApiPage] = github.api_page,
    fetch: Callable[[str, Path], bytes] = github.api_paginate,
    reader: Reader | None = None,
) -> ScanResult:
    """Read `slug`'s closed pulls back to the cursor (or `since`, or the first scan's
    window), record the merged ones not recorded yet with their excerpts, then advance the
    cursor (unless `dry_run`, which writes nothing)."""
    cursor = read_cursor(intake_dir).get(slug)
    first = cursor is None and since is None
    stop = since or scan_since(cursor) or window_start()
    here = Path.cwd()  # gh needs no repository; the ledgers folder may not exist yet
    pages, more = _read_pages(slug, stop, here, page_of)
    older = (
        (_older(slug, here, page_of, pages, stop) if more else _past(pages, stop))
        if first
        else None
    )
    label = f"gh api {pulls_endpoint(slug)}"
    scan = parse_pulls(label, pages, identity, since=stop)
    known = known_sources(load_events(intake_dir).values())
    new = [row for row in scan.rows if same_source("merged_pr", row["source_id"]) not in known]
    already = len(scan.rows) - len(new)
    if dry_run:
        return ScanResult(new, already, scan.unmerged, cursor, stop, len(pages), first, older)
    reader = reader or GhReader(here)
    for start in range(0, len(new), CHUNK):
        chunk = new[start : start + CHUNK]
        for row in chunk:
            # the review step: the discussion and the diff excerpt share the event's budget
            attach_discussion(row, _diff(slug, row, here, fetch), reader)
        record_events(intake_dir, chunk)
    moved = advance_cursor(intake_dir, scan.newest) if scan.newest else read_cursor(intake_dir)
    return ScanResult(new, already, scan.unmerged, moved.get(slug), stop, len(pages), first, older)


def _read_pages(
    slug: str, stop: str, cwd: Path, page_of: Callable[[str, Path], github.ApiPage]
) -> tuple[list[Page], bool]:
    """Pages up to the first that reaches back past `stop`; and whether older ones exist."""
    pages: list[Page] = []
    number = 1
    while True:
        endpoint = pulls_endpoint(slug, number)
        answer = page_of(endpoint, cwd)
        decoded = decode_pages(f"gh api {endpoint}", answer.body) if answer.body.strip() else []
        pages += decoded
        items = [item for page in decoded if isinstance(page.value, list) for item in page.value]
        oldest = items[-1].get("updated_at") if items and isinstance(items[-1], dict) else None
        reached = isinstance(oldest, str) and oldest < stop
        if not answer.has_next or not items:
            return pages, False
        if reached:
            return pages, True
        number += 1


def _older(
    slug: str,
    cwd: Path,
    page_of: Callable[[str, Path], github.ApiPage],
    pages: list[Page],
    stop: str,
) -> int | None:
    """About how many closed pull requests the first scan's window left: all of them (the
    last page's number at one per page) minus those inside the window (updated at `stop` or
    later). The older ones on the pages it read are left too: they are not recorded."""
    items = [item for p in pages if isinstance(p.value, list) for item in p.value]
    read = len(items) - _past(pages, stop)
    endpoint = pulls_endpoint(slug).replace(f"per_page={PER_PAGE}", "per_page=1")
    try:
        total = page_of(endpoint, cwd).last
    except github.GitHubError as exc:
        if exc.exit_code != 1:
            raise
        return None  # only a count for the message: the scan itself succeeded
    return max(0, total - read) if total is not None else None


def _past(pages: list[Page], stop: str) -> int:
    """How many pull requests on the pages read were updated before `stop`: outside the
    window, so not recorded."""
    items = [item for p in pages if isinstance(p.value, list) for item in p.value]
    return sum(1 for i in items if isinstance(i, dict) and str(i.get("updated_at")) < stop)


def _diff(slug: str, row: dict[str, Any], cwd: Path, fetch: Callable[[str, Path], bytes]) -> str:
    """The PR's final diff, from its files."""
    endpoint = files_endpoint(slug, row["number"])
    return files_diff(f"gh api {endpoint}", fetch(endpoint, cwd))
