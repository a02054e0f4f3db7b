"""`kb curate apply`: insert accepted rule sections, gated by the clone's validators.

Input: a validation file from `kb curate validate`, or a batch and a reply (validated
here). `--dry-run` prints the exact insertions and exits 1 when there would be changes.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Apply (or with --dry-run, plan) the accepted proposals; print the result as JSON."""
    from kbkit.curator.errors import KnowledgeValidatorError
    from kbkit.curator.files import (
        common_parser,
        curator_for,
        dump,
        read_batch,
        read_json,
        read_validation,
    )
    from kbkit.infra.errors import UsageError

    parser = common_parser("kb curate apply", __doc__ or "")
    parser.add_argument("--validation", default=None, help="a `kb curate validate` output file")
    parser.add_argument("--batch", default=None, help="the evidence batch JSON file")
    parser.add_argument("--proposals", default=None, help="the model's reply (JSON file)")
    parser.add_argument("--today", default=None, metavar="YYYY-MM-DD", help="the updated: date")
    parser.add_argument("--dry-run", action="store_true", help="print the insertions only")
    args = parser.parse_args(argv)
    if bool(args.validation) == bool(args.batch or args.proposals):
        raise UsageError("pass either --validation FILE or both --batch and --proposals")
    curator = curator_for(args.repo, args.policy, today=args.today)
    if args.validation:
        validation = read_validation(args.validation)
    else:
        if not (args.batch and args.proposals):
            raise UsageError("--batch and --proposals go together")
        batch = read_batch(args.batch)
        validation = curator.validate_proposals(read_json(args.proposals), batch)
    # Rows rejected here would otherwise vanish silently: report them with the result.
    extra = {} if args.validation else {"rejected": [r.to_dict() for r in validation.rejected]}
    if args.dry_run:
        result = curator.plan(validation)
        sys.stdout.write(dump({**result.to_dict(), **extra}))
        return 1 if result.changed else 0
    try:
        result = curator.apply(validation)
    except KnowledgeValidatorError as exc:
        sys.stdout.write(dump({"error": str(exc), "validators": exc.result.to_dict(), **extra}))
        raise
    sys.stdout.write(dump({**result.to_dict(), **extra}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
