"""`kb intake compact`: rewrite the ledgers atomically with duplicates folded."""

from __future__ import annotations

import argparse

from kbkit.intake import options
from kbkit.intake.compaction import compact


def main(argv: list[str] | None = None) -> int:
    """Fold duplicate lines away without changing any state; --check only reports (exit 1)."""
    parser = argparse.ArgumentParser(
        prog="kb intake compact",
        description="Rewrite intake/events.jsonl (one row per event) and intake/status.jsonl "
        "(each distinct transition once) atomically; unreadable lines are dropped. The "
        "folded state is unchanged.",
    )
    options.add_repo(parser)
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if compaction would change a ledger",
    )
    args = parser.parse_args(argv)
    results = compact(options.intake_dir(args.repo), write=not args.check)
    verb = "would compact" if args.check else "compacted"
    for result in results:
        for problem in result.dropped:
            print(f"{result.path}:{problem.line}: dropping unreadable line: {problem.message}")
        if result.changed:
            print(f"{verb} {result.path}: {result.lines_before} -> {result.lines_after} line(s)")
        else:
            print(f"{result.path}: already compact ({result.lines_after} line(s))")
    return 1 if args.check and any(r.changed for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
