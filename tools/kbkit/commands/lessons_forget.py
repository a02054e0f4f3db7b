"""`kb lessons forget`: end one source's evidence for good, and with --purge remove its text."""

from __future__ import annotations

import argparse

from kbkit.infra.errors import KbkitError, UsageError
from kbkit.infra.paths import REPO_HELP, intake_root, repo_root
from kbkit.lessons.history import history_note
from kbkit.lessons.promotion import withdraw_promotions
from kbkit.lessons.store import LessonStore
from kbkit.lessons.view import load_view

KINDS = ("finding", "retest", "task")


def main(argv: list[str] | None = None) -> int:
    """Append a tombstone; lessons left without evidence stop being selectable."""
    parser = argparse.ArgumentParser(
        prog="kb lessons forget",
        description="Forget a source: its evidence rows stop counting, for good (recorded in "
        "the append-only tombstones.jsonl; nothing is rewritten unless --purge). KIND is "
        "finding or retest (ID is TASK/FINDING-OR-RETEST-ID as in evidence.jsonl, with %% and "
        "/ in TASK written %%25 and %%2F) or task (every source of that task). Forgotten "
        "evidence never counts again, whatever is re-extracted; a corrected record's new "
        "evidence does. Pending promotions of the lessons it supported are withdrawn, and "
        "the report leaves the task's outcome card out.",
    )
    parser.add_argument(
        "--purge",
        action="store_true",
        help="also remove the source's rows and the text of the lessons it leaves without "
        "evidence from every copy kbkit made: the lessons logs and their caches, promoted "
        "intake events, and the bundles kb lessons bundle wrote (rerun it if it is "
        "interrupted: any later write to the store finishes it too)",
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
    state = store.state()
    if not result.ended and result.purge is None:
        if args.purge and (kind, source_id) in state.tombstones:
            print(f"{args.source} is already forgotten and purged; nothing left to remove")
            return 0
        raise KbkitError(
            f"no evidence from {args.source} that is not forgotten already; nothing forgotten"
            + _suggestion(state, kind, source_id)
        )
    load_view(store)  # readers find the selection view current (see lessons extract)
    if result.ended:
        print(f"forgot {args.source}: {result.removed} evidence row(s) no longer count")
        superseded = result.ended - result.removed
        if superseded:
            print(f"  {superseded} superseded row(s) of it can never be revived")
    for lesson in result.orphaned:
        print(f"  {lesson} has no evidence left and is no longer selectable")
    withdrawn = withdraw_promotions(
        intake_root(root),
        set(result.affected),
        f"withdrawn: kb lessons forget --source {args.source}",
        state.alias,
    )
    for lesson in withdrawn:
        print(f"  withdrew the pending promotion of {lesson}")
    if result.purge is not None:
        report = result.purge
        print(
            f"purged {args.source}: {report.rows} row(s) removed from the lessons logs, "
            f"{report.events} promoted event(s) emptied, {len(report.bundles)} bundle(s) "
            "rewritten, caches rebuilt (the tombstone stays)"
        )
        for lesson in report.published:
            print(
                f"  the promotion of {lesson} was published: the pull request and its "
                "branch still hold the text; edit or delete them on the forge"
            )
        for line in history_note(root, store, report):
            print(line)
    return 0


def _suggestion(state: object, kind: str, source_id: str) -> str:
    """Sources an id with a `/` in its task part may have meant (they are escaped)."""
    from kbkit.lessons.extraction import split_source
    from kbkit.lessons.fold import FoldState

    if kind == "task" or not isinstance(state, FoldState):
        return " (check the id in evidence.jsonl)"
    meant = sorted(
        {
            key[2]
            for key, (task, _at, _line) in state.evidence.items()
            if key[1] == kind and f"{task}/{split_source(key[2])[1]}" == source_id
        }
    )
    if meant:
        return f"; did you mean {' or '.join(f'{kind}:{m}' for m in meant[:3])}?"
    return " (check the id in evidence.jsonl)"


if __name__ == "__main__":
    raise SystemExit(main())
