"""Scan GitHub's closed pulls through `gh api --paginate` and record the merged ones.

The cursor moves only after the whole scan succeeded: the pull list was read completely and
every newly recorded PR got its diff excerpt and review discussion (`review_fetch`). A
failure at any point leaves the cursor where it was; rows recorded before it stay
(uniqueness absorbs them when the next scan re-reads).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.infra.errors import InputError
from kbkit.intake.json_pages import decode_pages, page_items
from kbkit.intake.ledger import Row, load_events, record_events
from kbkit.intake.merged_prs import advance_cursor, parse_pulls, read_cursor, scan_since
from kbkit.intake.repo_identity import RepoIdentity
from kbkit.intake.review_fetch import GhReader, Reader, attach_discussion
from kbkit.vcs import github

# Newly recorded rows are written in chunks of this many, so a rate limit met while
# fetching diffs keeps what was already fetched.
CHUNK = 20


class ScanResult(NamedTuple):
    new: list[Row]  # rows recorded (or, in a dry run, that would be)
    already: int
    unmerged: int
    cursor: str | None  # the repo's cursor after the scan (unchanged in a dry run)
    since: str | None  # where the overlap window of this scan started


def pulls_endpoint(slug: str) -> str:
    """Closed pulls, most recently updated first, 100 a page (GitHub's maximum)."""
    return f"repos/{slug}/pulls?state=closed&sort=updated&direction=desc&per_page=100"


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
    fetch: Callable[[str, Path], bytes] = github.api_paginate,
    reader: Reader | None = None,
) -> ScanResult:
    """Read every closed pull of `slug`, record the merged ones not recorded yet with their
    excerpts, then advance the cursor (unless `dry_run`, which writes nothing)."""
    cursor = read_cursor(intake_dir).get(slug)
    since = scan_since(cursor)
    endpoint = pulls_endpoint(slug)
    label = f"gh api {endpoint}"
    here = Path.cwd()  # gh needs no repository; the ledgers folder may not exist yet
    raw = fetch(endpoint, here)
    scan = parse_pulls(label, decode_pages(label, raw), identity)
    known = set(load_events(intake_dir))
    new = [row for row in scan.rows if ("merged_pr", row["source_id"]) not in known]
    already = len(scan.rows) - len(new)
    if dry_run:
        return ScanResult(new, already, scan.unmerged, cursor, since)
    reader = reader or GhReader(here)
    for start in range(0, len(new), CHUNK):
        chunk = new[start : start + CHUNK]
        for row in chunk:
            # the review step: the discussion and the diff excerpt share the event's budget
            attach_discussion(row, _diff(slug, row, here, fetch), reader)
        record_events(intake_dir, chunk)
    moved = advance_cursor(intake_dir, scan.newest) if scan.newest else read_cursor(intake_dir)
    return ScanResult(new, already, scan.unmerged, moved.get(slug), since)


def _diff(slug: str, row: dict[str, Any], cwd: Path, fetch: Callable[[str, Path], bytes]) -> str:
    """The PR's final diff, from its files."""
    endpoint = files_endpoint(slug, row["number"])
    return files_diff(f"gh api {endpoint}", fetch(endpoint, cwd))
