"""`kb curate schema`: the strict wire schema a model's reply must follow, as JSON."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Print the proposal schema for this clone (and a batch's source IDs)."""
    from kbkit.curator.files import common_parser, curator_for, dump, read_batch

    parser = common_parser("kb curate schema", __doc__ or "")
    parser.add_argument("--batch", default=None, help="fill the citation enum from this batch")
    parser.add_argument("--max-rules", type=int, default=None, help="default: the batch's")
    args = parser.parse_args(argv)
    batch = read_batch(args.batch) if args.batch else None
    max_rules = args.max_rules or (batch.max_rules if batch else 5)
    schema = curator_for(args.repo, args.policy).proposal_schema(max_rules, batch)
    sys.stdout.write(dump(schema))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
