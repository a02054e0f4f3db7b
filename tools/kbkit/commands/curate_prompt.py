"""`kb curate prompt`: the model prompt for an evidence batch, as JSON."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Print the prompt (text, sha256, targets, source IDs) for a batch file."""
    from kbkit.curator.files import common_parser, curator_for, dump, read_batch

    parser = common_parser("kb curate prompt", __doc__ or "")
    parser.add_argument("--batch", required=True, help="the evidence batch JSON file")
    parser.add_argument("--text", action="store_true", help="print only the prompt text")
    args = parser.parse_args(argv)
    batch = read_batch(args.batch)
    prompt = curator_for(args.repo, args.policy).build_prompt(batch)
    sys.stdout.write(prompt.text if args.text else dump(prompt.to_dict()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
