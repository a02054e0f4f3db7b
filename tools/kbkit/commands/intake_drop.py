"""`kb intake drop`: write a landed bugfix run's drop record (the producer, fail-open)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from kbkit.infra import settings
from kbkit.infra.errors import InputError, KbkitError, UsageError
from kbkit.intake.json_pages import decode_pages, read_source
from kbkit.intake.sources.drop import (
    DROP_DIR_ENV,
    landed_record,
    parse_aliases,
    render_comment,
    write_drop_record,
)
from kbkit.intake.sources.mailbox import parse_issue_ref
from kbkit.vcs import github

# Posting a comment is an outward write: it happens only when this is "1".
POST_FLAG = "KBKIT_ALLOW_POST"  # (old name: ALLOW_POST)


def posting_allowed() -> bool:
    """True when the outward-write flag (KBKIT_ALLOW_POST=1) is set."""
    return settings.value(POST_FLAG) == "1"


def main(argv: list[str] | None = None) -> int:
    """Write `OWNER+NAME+<run_id>.json` into the drop directory only when the fix landed."""
    parser = argparse.ArgumentParser(
        prog="kb intake drop",
        description="Write a bugfix drop record (v1) for a run whose fix landed: a real, "
        "non-dry-run push and at least one group with both root cause and verification. "
        "Fail-open: over-long fields are cut to the limits with a visible marker, an "
        "alias-form repo is normalised (--alias app=OWNER/NAME), and anything else that "
        "goes wrong (unset directory, dry run, no verified fix, a bad RUN.json, a write or "
        "post error) exits 0 with a one-line summary; --strict exits 1 on those errors.",
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
        help="print the issue comment carrying the record instead of writing a file",
    )
    parser.add_argument(
        "--mailbox",
        metavar="OWNER/NAME#N",
        default=None,
        help="also post the record as a comment on this issue; only when KBKIT_ALLOW_POST=1 is set",
    )
    parser.add_argument(
        "--alias",
        metavar="OLD=OWNER/NAME",
        action="append",
        default=[],
        help="normalise the record's repo OLD (e.g. a bare `app`) to OWNER/NAME (repeatable)",
    )
    parser.add_argument(
        "--strict", action="store_true", help="exit 1 when the record was lost (tests, CI)"
    )
    args = parser.parse_args(argv)
    aliases = parse_aliases(args.alias)
    issue = parse_issue_ref(args.mailbox) if args.mailbox else None
    try:
        label, data = read_source(args.run)
        pages = decode_pages(label, data)
        if len(pages) != 1:
            raise InputError(f"expected one JSON object, found {len(pages)} values", path=label)
        run = pages[0].value
        if args.mailbox_comment:
            record, why = landed_record(run, label, aliases)
            if record is None:
                print(why, file=sys.stderr)
                return 0
            print(render_comment(record), end="")
            return 0
        lost = False
        if issue is None or args.dir or settings.value(DROP_DIR_ENV):
            folder = args.dir or settings.value(DROP_DIR_ENV) or None
            outcome = write_drop_record(run, Path(folder) if folder else None, label, aliases)
            print(outcome.summary)
            lost = outcome.lost
        if issue is not None:
            print(_post(run, label, aliases, issue))
        if lost and issue is None and args.strict:  # not written, and posted nowhere
            return 1
    except (KbkitError, OSError) as exc:
        if isinstance(exc, UsageError):
            raise
        # closing the learning loop must never fail the landed fix
        print(f"kb intake drop: record not delivered: {' '.join(str(exc).split())[:300]}")
        return 1 if args.strict else 0
    return 0


def _post(run: Any, label: str, aliases: dict[str, str], issue: tuple[str, int]) -> str:
    record, why = landed_record(run, label, aliases)
    if record is None:
        return why
    slug, number = issue
    where = f"{slug}#{number}"
    if not posting_allowed():
        return (
            f"run {record['run_id']}: not posted to {where}: posting is off "
            "(set KBKIT_ALLOW_POST=1 to post)"
        )
    github.api_post(
        f"repos/{slug}/issues/{number}/comments", {"body": render_comment(record)}, Path.cwd()
    )
    return f"run {record['run_id']}: posted the record to {where}{why}"


if __name__ == "__main__":
    raise SystemExit(main())
