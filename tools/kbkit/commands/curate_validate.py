"""`kb curate validate`: check a model reply against the clone; exit 1 if any row is rejected."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Print the validation (accepted rows with base SHAs, rejected rows with reasons)."""
    from kbkit.curator.files import common_parser, curator_for, dump, read_batch, read_json
    from kbkit.infra.jsonl import atomic_write_text

    parser = common_parser("kb curate validate", __doc__ or "")
    parser.add_argument("--batch", required=True, help="the evidence batch JSON file")
    parser.add_argument("--proposals", required=True, help="the model's reply (JSON file)")
    parser.add_argument("--output", default=None, help="also write the validation here")
    args = parser.parse_args(argv)
    batch = read_batch(args.batch)
    reply = read_json(args.proposals)
    validation = curator_for(args.repo, args.policy).validate_proposals(reply, batch)
    text = dump(validation.to_dict())
    if args.output:
        from pathlib import Path

        atomic_write_text(Path(args.output), text)
    sys.stdout.write(text)
    return 1 if validation.rejected or validation.reply_error else 0


if __name__ == "__main__":
    raise SystemExit(main())
