"""`kb curate recover`: restore the pages of an interrupted apply from the crash journal."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Restore every page an interrupted apply touched; print what was restored."""
    from kbkit.curator.files import common_parser, curator_for, dump

    parser = common_parser("kb curate recover", __doc__ or "")
    args = parser.parse_args(argv)
    sys.stdout.write(dump(curator_for(args).recover().to_dict()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
