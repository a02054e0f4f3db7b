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
from kbkit.intake.merged_prs import scan_since
from kbkit.intake.repo_identity import RepoIdentity
from kbkit.intake.sources import change_source


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
