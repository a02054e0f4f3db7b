"""Re-read merged PRs on demand: their files and review discussion read again from GitHub,
so a PR recorded before the discussion was (or by `record-git`, or from a pulls file) gets
it, and a PR older than any scan can be recorded at all.

A PR not recorded yet is recorded as a scan would record it. A recorded one whose event
would change gets a new revision of its event row (`revision` one higher: the fold picks the
highest) and goes back to `pending` with attempts 0, both appended as one unit under the
recording lock (the transition first: a kill between the two leaves the PR pending, and a
rerun adds the revision); an unchanged re-read writes nothing. Calls per PR: the PR itself, its files
(`--paginate`), and the review discussion (`sources.github_reviews`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.infra.clock import timestamp
from kbkit.infra.errors import KbkitError
from kbkit.infra.file_lock import locked
from kbkit.infra.jsonl import append_together
from kbkit.intake.json_pages import decode_pages
from kbkit.intake.ledger import (
    EVENTS_FILE,
    RECORD_LOCK,
    STATUS_FILE,
    Row,
    fold_events,
    load_status,
    pending_status,
    read_ledger,
    revision,
    same_source,
    sequence,
)
from kbkit.intake.repo_identity import RepoIdentity
from kbkit.intake.sources.github import files_diff, files_endpoint
from kbkit.intake.sources.github_pulls import parse_pulls
from kbkit.intake.sources.github_reviews import GhReader, Reader, attach_discussion
from kbkit.vcs import github

REASON = "re-read: files and review discussion read again"


class Reread(NamedTuple):
    row: Row
    outcome: str  # recorded, revised, unchanged (or, in a dry run: would-...)


def _content(row: Row) -> dict[str, Any]:
    """What a re-read compares: the event without when or how often it was recorded."""
    return {k: v for k, v in row.items() if k not in ("recorded_at", "revision")}


def read_pr(
    slug: str,
    number: int,
    identity: RepoIdentity,
    reader: Reader,
    fetch: Callable[[str, Path], bytes],
    cwd: Path,
) -> Row:
    """The event row of merged PR `number`, read from GitHub now."""
    endpoint = f"repos/{slug}/pulls/{number}"
    label = f"gh api {endpoint}"
    scan = parse_pulls(label, decode_pages(label, reader.get(endpoint)), identity)
    if not scan.rows:
        raise KbkitError(f"{slug}#{number} was closed without merging: there is nothing to record")
    row = scan.rows[0]
    if row["number"] != number:
        raise KbkitError(f"{label} answered with PR #{row['number']}, not #{number}")
    files = files_endpoint(slug, number)
    attach_discussion(row, files_diff(f"gh api {files}", fetch(files, cwd)), reader)
    return row


def revise(intake_dir: Path, row: Row, *, dry_run: bool = False) -> str:
    """Record `row`, or a new revision of its event (pending again) when it changed."""
    same = same_source(row["source_kind"], row["source_id"])
    with locked(intake_dir / RECORD_LOCK):
        recorded = fold_events(read_ledger(intake_dir, EVENTS_FILE)[0])
        current = next((e for k, e in recorded.items() if same_source(*k) == same), None)
        if current is not None:  # its repository spelled as recorded: one key, one status
            row["source_id"] = current["source_id"]
            if str(current.get("repo")).lower() == str(row.get("repo")).lower():
                row["repo"] = current["repo"]
        key = (row["source_kind"], row["source_id"])
        if current is not None and _content(current) == _content(row):
            return "unchanged"
        outcome = "recorded" if current is None else "revised"
        if dry_run:
            return f"would be {outcome}"
        at = timestamp()
        events, states = intake_dir / EVENTS_FILE, intake_dir / STATUS_FILE
        if current is None:  # as record_events: an event without its status reads as pending
            append_together([(events, [row]), (states, [pending_status(key, at)])])
            return outcome
        row["revision"] = revision(current) + 1
        previous = load_status(intake_dir).get(key)
        status = {**pending_status(key, at), "seq": sequence(previous) + 1, "reason": REASON}
        # Both or neither on a full disk. The status goes first: a kill between the two
        # leaves the old event pending (it may be distilled once more; rerunning the re-read
        # adds the revision), never a new revision whose pending transition is lost.
        append_together([(states, [status]), (events, [row])])
    return outcome


def reread_prs(
    intake_dir: Path,
    slug: str,
    identity: RepoIdentity,
    numbers: list[int],
    *,
    dry_run: bool = False,
    reader: Reader | None = None,
    fetch: Callable[[str, Path], bytes] = github.api_paginate,
) -> list[Reread]:
    """Read each PR again and record what changed; a failure stops before the next PR (the
    PRs before it stay done)."""
    cwd = Path.cwd()
    reader = reader or GhReader(cwd)
    done = []
    for number in numbers:
        row = read_pr(slug, number, identity, reader, fetch, cwd)
        done.append(Reread(row, revise(intake_dir, row, dry_run=dry_run)))
    return done
