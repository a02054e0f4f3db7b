"""`kb intake record-prs`: record merged PRs from GitHub's REST pulls JSON."""

from __future__ import annotations

import argparse

from kbkit.intake import options
from kbkit.intake.json_pages import decode_pages, read_source
from kbkit.intake.ledger import record_events
from kbkit.intake.merged_prs import advance_cursor, parse_pulls, scan_since


def main(argv: list[str] | None = None) -> int:
    """Record every merged PR of the input once; advance the cursor."""
    parser = argparse.ArgumentParser(
        prog="kb intake record-prs",
        description="Record merged PRs from the JSON that `gh api --paginate "
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
        required=True,
        help="the pulls JSON file, or - for stdin",
    )
    options.add_repo(parser, identity=True)
    args = parser.parse_args(argv)
    folder = options.intake_dir(args)
    label, data = read_source(args.source)
    scan = parse_pulls(label, decode_pages(label, data), options.identity(args))
    result = record_events(folder, scan.rows)
    options.warn(result.problems)
    cursor = advance_cursor(folder, scan.newest)
    print(
        f"{label}: {len(result.added)} merged PR(s) recorded, {len(result.already)} already "
        f"recorded, {scan.unmerged} closed without merging skipped"
    )
    for repo in sorted(scan.newest):
        print(f"cursor {repo}: {cursor[repo]} (next scan from {scan_since(cursor[repo])})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
