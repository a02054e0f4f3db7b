"""`kb intake record-prs --source NAME` for a host other than GitHub: resolve the project,
run its source's scan, and say what it did, one line at a time.

GitHub's scan keeps its own words (`commands/intake_record_prs.py`); every other source of
merged changes (`sources.change_sources()`) is described here, in its own noun.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from kbkit.infra.errors import UsageError
from kbkit.infra.outward import line
from kbkit.intake.json_pages import decode_pages, read_source
from kbkit.intake.ledger import LedgerProblem, record_events
from kbkit.intake.merged_prs import advance_cursor, scan_since
from kbkit.intake.repo_identity import RepoIdentity
from kbkit.intake.sources import change_source
from kbkit.intake.sources.github import scan_github
from kbkit.intake.sources.github_pulls import parse_pulls


def scan_lines(
    intake_dir: Path, name: str, named: str | None, *, since: str | None, dry_run: bool
) -> Iterator[str]:
    """Scan the project `named` (a path or URL) with source `name`; the report's lines."""
    source = change_source(name)
    repo = source.repo_id(named) if named else None
    if repo is None:
        given = f" ({named[:200]!r} is not one)" if named else ""
        raise UsageError(
            f"which project? pass --repo GROUP/PROJECT or its URL with --source {name}{given}"
        )
    result = source.scan(intake_dir, repo, RepoIdentity(repo, {}), dry_run=dry_run, since=since)
    noun = source.NOUN
    for row in result.new:
        yield line(f"{row['source_id']} merged {row['merged_at']}: {row['title'][:100]}")
    verb = "would be recorded" if dry_run else "recorded"
    yield line(
        f"{repo}: {len(result.new)} merged {noun}(s) {verb}, {result.already} already "
        f"recorded ({result.pages} page(s) of merged {noun}s read, back to {result.since})"
    )
    if result.first:
        yield line(
            f"first scan of {repo}: {noun}s updated since {result.since} only; record older "
            f"ones with `kb intake record-prs --source {name} --repo {repo} --since "
            "YYYY-MM-DD` (a backfill)"
        )
    if dry_run:
        yield line(f"dry run: nothing written; cursor {repo}: {result.cursor or 'none'}")
    elif result.cursor:
        yield line(f"cursor {repo}: {result.cursor} (next scan from {scan_since(result.cursor)})")


def record_pulls_file(
    folder: Path, source: str, identity: RepoIdentity
) -> tuple[list[str], list[LedgerProblem]]:
    """`kb intake record-prs --from FILE|-`: record the merged PRs of GitHub's pulls JSON
    and advance the cursor; the lines to print, and the unreadable ledger lines met."""
    label, data = read_source(source)
    scan = parse_pulls(label, decode_pages(label, data), identity)
    result = record_events(folder, scan.rows)
    cursor = advance_cursor(folder, scan.newest)
    lines = [
        f"{label}: {len(result.added)} merged PR(s) recorded, {len(result.already)} already "
        f"recorded, {scan.unmerged} closed without merging skipped"
    ]
    for repo in sorted(scan.newest):
        lines.append(f"cursor {repo}: {cursor[repo]} (next scan from {scan_since(cursor[repo])})")  # fmt: skip
    return lines, result.problems


def github_scan_lines(
    folder: Path, slug: str, identity: RepoIdentity, dry_run: bool, since: str | None
) -> Iterator[str]:
    """`kb intake record-prs --repo OWNER/NAME`: scan GitHub's closed pulls into the ledger;
    the lines it prints (each new PR, the totals, a first scan's window, the cursor)."""
    result = scan_github(folder, slug, identity, dry_run=dry_run, since=since)
    verb = "would be recorded" if dry_run else "recorded"
    for row in result.new:
        yield line(f"{row['source_id']} merged {row['merged_at']}: {row['title'][:100]}")
    yield (
        f"{slug}: {len(result.new)} merged PR(s) {verb}, {result.already} already recorded, "
        f"{result.unmerged} closed without merging skipped ({result.pages} page(s) of closed "
        f"pulls read, back to {result.since})"
    )
    if result.first:
        left = "no" if result.older == 0 else f"about {result.older}" if result.older else "some"
        yield (
            f"first scan of {slug}: pull requests updated since {result.since} only; {left} "
            "older closed pull request(s) left"
            + (
                f"; record them with `kb intake record-prs --repo {slug} --since YYYY-MM-DD` "
                "(a backfill)"
                if result.older != 0
                else ""
            )
        )
    if dry_run:
        yield f"dry run: nothing written; cursor {slug}: {result.cursor or 'none'}"
    elif result.cursor:
        yield f"cursor {slug}: {result.cursor} (next scan from {scan_since(result.cursor)})"
