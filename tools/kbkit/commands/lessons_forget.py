"""`kb lessons forget`: tombstone one source's evidence and recompute support."""

from __future__ import annotations

import argparse

from kbkit.infra.errors import KbkitError, UsageError
from kbkit.infra.paths import REPO_HELP, intake_root, repo_root
from kbkit.lessons.promotion import withdraw_promotions
from kbkit.lessons.store import LessonStore
from kbkit.lessons.view import load_view

KINDS = ("finding", "retest", "task")


def main(argv: list[str] | None = None) -> int:
    """Append a tombstone; lessons left without evidence stop being selectable."""
    parser = argparse.ArgumentParser(
        prog="kb lessons forget",
        description="Forget a source: its evidence rows stop counting (recorded in the "
        "append-only tombstones.jsonl; nothing is rewritten unless --purge). KIND is finding "
        "or retest (ID is TASK/FINDING-OR-RETEST-ID, as in evidence.jsonl) or task (every "
        "source of that task). Forgotten evidence stays forgotten even if re-extracted; a "
        "corrected re-extraction (a new verdict) counts. Pending promotions of the lessons it "
        "supported are withdrawn, and the report leaves the task's outcome card out.",
    )
    parser.add_argument(
        "--purge",
        action="store_true",
        help="also remove the source's evidence rows, the text of lessons it leaves without "
        "evidence and a task's outcome cards from the logs (rewritten under the lock; the "
        "tombstone is kept), for privacy requests",
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
    root = repo_root(args.repo)
    store = LessonStore.for_repo(root)
    result = store.forget(kind, source_id, reason=args.reason, purge=args.purge)
    if args.purge and not result.removed and result.purged:
        load_view(store)
        print(f"purged {args.source}: {result.purged} row(s) removed from the logs")
        return 0
    if not result.removed:
        raise KbkitError(
            f"no live evidence from {args.source}; nothing forgotten "
            "(check the id in evidence.jsonl)"
        )
    load_view(store)  # readers find the selection view current (see lessons extract)
    print(f"forgot {args.source}: {result.removed} evidence row(s) no longer count")
    for lesson in result.orphaned:
        print(f"  {lesson} has no evidence left and is no longer selectable")
    withdrawn = withdraw_promotions(
        intake_root(root),
        set(result.affected),
        f"withdrawn: kb lessons forget --source {args.source}",
    )
    for lesson in withdrawn:
        print(f"  withdrew the pending promotion of {lesson}")
    if args.purge:
        print(f"  purged {result.purged} row(s) from the logs (the tombstone stays)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
