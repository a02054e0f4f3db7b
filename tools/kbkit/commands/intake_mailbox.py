"""`kb intake mailbox`: record bugfix drop records posted as issue comments."""

from __future__ import annotations

import argparse
import sys

from kbkit.intake import options
from kbkit.intake.json_pages import decode_pages, read_source
from kbkit.intake.ledger import record_events
from kbkit.intake.mailbox import parse_comments


def main(argv: list[str] | None = None) -> int:
    """Record marked collaborator comments for the watched repo; exit 1 if any was refused."""
    parser = argparse.ArgumentParser(
        prog="kb intake mailbox",
        description="Read issue comments JSON (`gh api repos/O/R/issues/N/comments`) and "
        "record the bugfix drop records in comments by an OWNER, MEMBER or COLLABORATOR "
        "that carry <!-- kbkit:bugfix-record:v1 --> and exactly one fenced JSON block, "
        "for the watched repository. Refused comments are listed and exit 1.",
    )
    parser.add_argument(
        "--from",
        dest="source",
        metavar="FILE|-",
        required=True,
        help="the comments JSON file, or - for stdin",
    )
    options.add_repo(parser, identity=True)
    args = parser.parse_args(argv)
    label, data = read_source(args.source)
    scan = parse_comments(label, decode_pages(label, data), options.identity(args))
    result = record_events(options.intake_dir(args), scan.rows)
    options.warn(result.problems)
    for refusal in scan.refused:
        print(f"kb: refused {label}: {refusal.where}: {refusal.reason}", file=sys.stderr)
    print(
        f"{label}: {len(result.added)} bugfix run(s) recorded, {len(result.already)} already "
        f"recorded, {len(scan.refused)} refused, {scan.ignored} ordinary comment(s)"
    )
    return 1 if scan.refused else 0


if __name__ == "__main__":
    raise SystemExit(main())
