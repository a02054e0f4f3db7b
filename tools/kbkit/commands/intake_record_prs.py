"""`kb intake record-prs`: record merged PRs from GitHub's REST pulls JSON."""

from __future__ import annotations

import argparse
from pathlib import Path

from kbkit.infra.errors import UsageError
from kbkit.intake import options
from kbkit.intake.change_scan import github_scan_lines, record_pulls_file, scan_lines
from kbkit.intake.merged_prs import since_option
from kbkit.intake.repo_identity import RepoIdentity, canonical_slug, parse_slug, watched_repos
from kbkit.intake.reread import reread_prs
from kbkit.vcs import github


def main(argv: list[str] | None = None) -> int:
    """Record every merged PR of the input once; advance the cursor."""
    parser = argparse.ArgumentParser(
        prog="kb intake record-prs",
        description="`--repo OWNER/NAME` or its URL (a value that is not an existing folder) "
        "names the GitHub repository; the ledgers are then found from the current directory. "
        "Without --from: scan GitHub's closed pulls of OWNER/NAME itself, most recently "
        "updated first, one page of 100 at a time (`gh api -i`), back to the cursor minus "
        "one hour; a repository's first scan reads the last 7 days (or back to --since) and "
        "says about how many older closed PRs it left; --since DATE backfills them. It "
        "records the merged ones with a diff excerpt from each PR's files, and advances "
        "the cursor only after the whole scan succeeded (a rate limit, a server error or "
        "bad credentials stop it with the cursor unchanged; exit 4, 4, 2). "
        "With --from: record merged PRs from the JSON that `gh api --paginate "
        "'repos/O/R/pulls?state=closed&sort=updated&direction=desc'` prints (arrays or "
        "concatenated pages). Closed-unmerged PRs are skipped; re-recording adds nothing. "
        "The whole input is checked first: input that is not complete JSON, or any PR with "
        "a bad field (a timestamp that is not one, or lies in the future), records nothing "
        "and leaves the cursor where it was. The cursor (intake/cursor.json) advances only "
        "on a complete input: kb cannot see the exit status of a pipe, so when `gh api "
        "--paginate` fails after some pages, do not pipe its output here (use `set -o "
        "pipefail` and a file).",
    )
    parser.add_argument(
        "--from",
        dest="source",
        metavar="FILE|-",
        default=None,
        help="the pulls JSON file, or - for stdin (default: ask GitHub through gh)",
    )
    parser.add_argument(
        "--since",
        metavar="DATE",
        help="scan back to DATE (YYYY-MM-DD, UTC, or a time) instead of the cursor: the first "
        "scan's window, or a backfill of older history (default: the cursor minus one hour; "
        "on a first scan the last 7 days)",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="scan GitHub and list what would be recorded; write nothing",
    )
    parser.add_argument(
        "--reread",
        metavar="N",
        type=_number,
        action="append",
        help="instead of a scan, read merged PR N again (its files and review discussion; "
        "repeatable): a PR recorded without them gets a new revision of its event, pending "
        "again; one not recorded yet is recorded; the cursor does not move",
    )
    parser.add_argument(
        "--source",
        dest="host",
        metavar="NAME",
        default="github",
        help="where the merged changes are: github (the default) or gitlab (merge requests of "
        "--repo GROUP/SUBGROUP/PROJECT or its URL, through GitLab's REST API at "
        "$KBKIT_GITLAB_URL, default https://gitlab.com, with $KBKIT_GITLAB_TOKEN)",
    )
    options.add_repo(parser, identity=True, many=True)
    parser.set_defaults(github=None)
    args = parser.parse_args(argv)
    before = github.calls_made()
    try:
        return _record(args)
    finally:  # what the run cost, also when it stopped
        print(f"cost: {github.calls_made() - before} GitHub call(s)")


def _record(args: argparse.Namespace) -> int:
    slugs = _slugs(args)
    if len(slugs) > 1:
        return _scan_many(args, slugs)
    args.slug = slugs[0] if slugs else None
    if args.host != "github":
        return _scan_host(args)
    if args.repo and parse_slug(args.repo) and not Path(args.repo).is_dir():
        # `--repo OWNER/NAME` (or its URL) names the GitHub repository; the ledgers are
        # found from here
        args.github, args.repo = canonical_slug(args.repo, "--repo"), None
    if args.reread:
        if args.source is not None:
            raise UsageError("--reread reads from GitHub; drop --from")
        return _reread(args)
    if args.source is None:
        return _scan(args)
    if args.dry_run or args.since:
        raise UsageError("--dry-run and --since apply to a GitHub scan; drop --from to scan GitHub")
    identity = options.identity(args.repo, args.slug, args.alias)
    lines, problems = record_pulls_file(options.intake_dir(args.repo), args.source, identity)
    options.warn(problems)
    print("\n".join(lines))
    return 0


def _slugs(args: argparse.Namespace) -> list[str]:
    """The repositories named by --slug (each once), else by `repos:` in intake/config.yaml
    when neither --slug nor --repo OWNER/NAME names one."""
    named = list(dict.fromkeys(args.slug or []))
    if named or (args.repo and not Path(args.repo).is_dir()):
        return named
    return watched_repos(options.intake_dir(args.repo))


def _scan_many(args: argparse.Namespace, slugs: list[str]) -> int:
    """A central job: each repository scanned in turn into the one ledger (its own cursor);
    a repository that stops the scan (a rate limit, GitHub unavailable) stops the run with
    the others' cursors where their own scans left them."""
    if args.source is not None or args.reread or (args.repo and not Path(args.repo).is_dir()):
        raise UsageError("several --slug (or `repos:`) scan GitHub: drop --from, --reread and --repo OWNER/NAME")  # fmt: skip
    for slug in slugs:
        one = argparse.Namespace(**{**vars(args), "slug": slug, "github": None})
        if args.host != "github":
            _scan_host(one)
        else:
            _scan(one)
    print(f"{len(slugs)} repositories scanned")
    return 0


def _scan_host(args: argparse.Namespace) -> int:
    if args.source is not None or args.reread or args.alias:
        raise UsageError(
            f"--from, --reread and --alias read GitHub; drop them with --source {args.host}"
        )
    named = args.slug or (args.repo if args.repo and not Path(args.repo).is_dir() else None)
    args.repo = None if args.repo == named else args.repo  # the project, not the ledgers' folder
    since = since_option(args.since) if args.since else None
    folder = options.intake_dir(args.repo)
    for text in scan_lines(folder, args.host, named, since=since, dry_run=args.dry_run):
        print(text)
    return 0


def _number(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a PR number")
    return int(text)


def _watched(args: argparse.Namespace) -> tuple[RepoIdentity, str]:
    identity = options.identity(args.repo, args.slug, args.alias)
    slug = args.github or identity.slug
    if not slug:
        raise UsageError(
            "which repository? pass --repo OWNER/NAME (or --slug, or `repo:` in "
            "intake/config.yaml), or --from FILE|- to read pulls JSON"
        )
    if identity.slug is None:
        identity = RepoIdentity(slug, identity.aliases)
    return identity, identity.normalize(slug)


def _reread(args: argparse.Namespace) -> int:
    folder = options.intake_dir(args.repo)
    identity, slug = _watched(args)
    for done in reread_prs(folder, slug, identity, args.reread, dry_run=args.dry_run):
        notes = done.row["discussion"]["notes"]
        accepted = sum(1 for note in notes if note.get("accepted"))
        revision = f" (revision {done.row['revision']})" if done.row.get("revision") else ""
        pending = ", pending again" if done.outcome == "revised" else ""
        print(f"{done.row['source_id']}: {done.outcome}{revision}{pending}; {len(notes)} review "
              f"note(s), {accepted} accepted")  # fmt: skip
    return 0


def _scan(args: argparse.Namespace) -> int:
    identity, slug = _watched(args)
    since = since_option(args.since) if args.since else None
    folder = options.intake_dir(args.repo)
    for text in github_scan_lines(folder, slug, identity, args.dry_run, since):
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
