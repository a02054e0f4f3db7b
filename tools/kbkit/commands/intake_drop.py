"""`kb intake drop`: write a landed bugfix run's drop record (the producer, fail-open)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from kbkit.errors import InputError
from kbkit.intake.bugfixes import DROP_DIR_ENV, landed_record, render_comment, write_drop_record
from kbkit.intake.json_pages import decode_pages, read_source


def main(argv: list[str] | None = None) -> int:
    """Write `<run_id>.json` into the drop directory only when the fix landed."""
    parser = argparse.ArgumentParser(
        prog="kb intake drop",
        description="Write a bugfix drop record (v1) for a run whose fix landed: a real, "
        "non-dry-run push and at least one group with both root cause and verification. "
        "Fail-open: an unset directory, a dry run, no verified fix or a write error exit 0 "
        "with a one-line summary. A RUN.json of the wrong shape exits 1.",
    )
    parser.add_argument(
        "--run",
        metavar="RUN.json",
        required=True,
        help='the drop record plus `"push": {"dry_run": bool, "ok": bool}`; - for stdin',
    )
    parser.add_argument(
        "--dir", metavar="DIR", default=None, help=f"the drop directory (default: ${DROP_DIR_ENV})"
    )
    parser.add_argument(
        "--mailbox-comment",
        action="store_true",
        help="print the issue comment carrying the record instead of writing "
        "a file (posting it is the publication layer's job)",
    )
    args = parser.parse_args(argv)
    label, data = read_source(args.run)
    pages = decode_pages(label, data)
    if len(pages) != 1:
        raise InputError(f"expected one JSON object, found {len(pages)} values", path=label)
    run = pages[0].value
    if args.mailbox_comment:
        record, why = landed_record(run, label)
        if record is None:
            print(why, file=sys.stderr)
            return 0
        print(render_comment(record), end="")
        return 0
    folder = args.dir or os.environ.get(DROP_DIR_ENV) or None
    outcome = write_drop_record(run, Path(folder) if folder else None, label)
    print(outcome.summary)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
