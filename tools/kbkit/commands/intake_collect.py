"""`kb intake collect`: import bugfix drop files idempotently (the consumer)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kbkit.infra import settings
from kbkit.infra.errors import UsageError
from kbkit.infra.outward import line
from kbkit.intake import options
from kbkit.intake.sources.drop import DROP_DIR_ENV, QUARANTINE, collect_drops


def main(argv: list[str] | None = None) -> int:
    """Record every valid drop file once; quarantine invalid ones with a reason (exit 1)."""
    parser = argparse.ArgumentParser(
        prog="kb intake collect",
        description="Import the drop records of a directory into intake/events.jsonl. "
        f"Invalid files move to DIR/{QUARANTINE}/ with a .reason file beside them; nothing "
        "is deleted. Exit 1 when something was quarantined.",
    )
    parser.add_argument(
        "--drops",
        metavar="DIR",
        default=None,
        help=f"the drop directory (default: ${DROP_DIR_ENV})",
    )
    options.add_repo(parser, identity=True)
    args = parser.parse_args(argv)
    folder = args.drops or settings.value(DROP_DIR_ENV)
    if not folder:
        raise UsageError(f"no drop directory: pass --drops DIR or set {DROP_DIR_ENV}")
    result = collect_drops(
        Path(folder),
        options.intake_dir(args.repo),
        options.identity(args.repo, args.slug, args.alias),
    )
    for name, reason in result.quarantined:
        print(f"kb: quarantined {line(f'{folder}/{QUARANTINE}/{name}: {reason}')}", file=sys.stderr)
    print(
        f"{folder}: {len(result.imported)} bugfix run(s) recorded, {len(result.already)} "
        f"already recorded, {len(result.quarantined)} quarantined"
    )
    return 1 if result.quarantined else 0


if __name__ == "__main__":
    raise SystemExit(main())
