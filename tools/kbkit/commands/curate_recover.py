"""`kb curate recover`: undo an interrupted apply from the crash journal."""

from __future__ import annotations

import sys
from collections.abc import Sequence

DESCRIPTION = (
    "Undo an interrupted apply: every page that holds what the apply wrote goes back to its "
    "bytes from before the apply. A page that changed since (edited, deleted, a symlink now) "
    "is left as it is and named, exit 1, until you decide with --keep-current or "
    "--restore-base."
)


def main(argv: Sequence[str] | None = None) -> int:
    """Undo an interrupted apply; print what was restored, unchanged and kept."""
    from kbkit.curator.files import common_parser, curator_for, dump
    from kbkit.curator.journal import KEEP_CURRENT, RESTORE_BASE

    parser = common_parser("kb curate recover", DESCRIPTION)
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument(
        "--keep-current",
        dest="resolve",
        action="store_const",
        const=KEEP_CURRENT,
        help="keep the pages that changed since the apply as they are now, and forget the journal",
    )
    choice.add_argument(
        "--restore-base",
        dest="resolve",
        action="store_const",
        const=RESTORE_BASE,
        help="put the pages that changed since the apply back as they were before it (the "
        "later change is lost)",
    )
    args = parser.parse_args(argv)
    sys.stdout.write(dump(curator_for(args.repo, args.policy).recover(args.resolve).to_dict()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
