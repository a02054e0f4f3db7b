"""`kb lessons forget`: tombstone one source's evidence and recompute support."""

from __future__ import annotations

import argparse

from kbkit.errors import KbkitError, UsageError
from kbkit.lessons.store import LessonStore
from kbkit.lessons.view import load_view
from kbkit.paths import REPO_HELP

KINDS = ("finding", "retest", "task")


def main(argv: list[str] | None = None) -> int:
    """Append a tombstone; lessons left without evidence stop being selectable."""
    parser = argparse.ArgumentParser(
        prog="kb lessons forget",
        description="Forget a source: its evidence rows stop counting (recorded in the "
        "append-only tombstones.jsonl; nothing is rewritten). KIND is finding or retest "
        "(ID is TASK/FINDING-OR-RETEST-ID, as in evidence.jsonl) or task (every source of "
        "that task). A forgotten source stays forgotten even if re-extracted.",
    )
    parser.add_argument("--source", required=True, metavar="KIND:ID")
    parser.add_argument("--reason", default="", help="why (kept in the tombstone row)")
    parser.add_argument("--repo", default=None, metavar="DIR", help=REPO_HELP)
    args = parser.parse_args(argv)
    kind, sep, source_id = args.source.partition(":")
    if not sep or kind not in KINDS or not source_id:
        raise UsageError(
            f"--source {args.source!r}: expected KIND:ID with KIND one of "
            f"{', '.join(KINDS)} (e.g. finding:T-12/F-3 or task:T-12)"
        )
    store = LessonStore.for_repo(args.repo)
    result = store.forget(kind, source_id, reason=args.reason)
    if not result.removed:
        raise KbkitError(
            f"no live evidence from {args.source}; nothing forgotten "
            "(check the id in evidence.jsonl)"
        )
    load_view(store)  # readers find the selection view current (see lessons extract)
    print(f"forgot {args.source}: {result.removed} evidence row(s) no longer count")
    for lesson in result.orphaned:
        print(f"  {lesson} has no evidence left and is no longer selectable")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
