"""`kb intake record-git`: record merged PRs from a local git history (offline)."""

from __future__ import annotations

import argparse
from pathlib import Path

from kbkit.infra.errors import UsageError
from kbkit.infra.paths import repo_root
from kbkit.intake import options
from kbkit.intake.ledger import known_sources, load_events, record_events
from kbkit.intake.repo_identity import slug_from_remote
from kbkit.intake.sources.git import git_rows
from kbkit.vcs import git


def main(argv: list[str] | None = None) -> int:
    """Record merge commits and squash merges `(#N)` of a branch, with diff excerpts."""
    parser = argparse.ArgumentParser(
        prog="kb intake record-git",
        description="Record merged PRs from the first-parent history of a branch: merge "
        "commits 'Merge pull request #N from ...' and squash merges 'Title (#N)'. Each row "
        "gets a diff excerpt of at most 8 KiB, source hunks before tests and docs.",
    )
    options.add_repo(parser, identity=True)
    parser.add_argument(
        "--git", metavar="PATH", default=None, help="the git clone to read (default: --repo)"
    )
    parser.add_argument("--branch", default="main", help="the branch to read (default: main)")
    args = parser.parse_args(argv)
    folder = options.intake_dir(args.repo)
    source = Path(args.git) if args.git else repo_root(args.repo)
    if not source.is_dir():
        raise UsageError(f"--git {source}: not a directory; pass a git clone")
    identity = options.identity(args.repo, args.slug, args.alias)
    slug = identity.slug or slug_from_remote(git.remote_url(source))
    if slug is None:
        raise UsageError(
            f"{source}: cannot tell the repository's owner/name from its remote; "
            "pass --slug OWNER/NAME or set `repo:` in intake/config.yaml"
        )
    slug = identity.normalize(slug)
    scan = git_rows(source, args.branch, slug, known_sources(load_events(folder).values()))
    result = record_events(folder, scan.rows)
    options.warn(result.problems)
    print(
        f"{source} {args.branch}: {len(result.added)} merged PR(s) recorded for {slug}, "
        f"{scan.already + len(result.already)} already recorded"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
