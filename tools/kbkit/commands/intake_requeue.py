"""`kb intake requeue`: return failed, shadowed, rejected or skipped rows to pending, with the
operator's reason recorded. A published row is never requeued: its rules are in a knowledge
PR already."""

from __future__ import annotations

import argparse

from kbkit.infra.errors import KbkitError, UsageError
from kbkit.intake import options
from kbkit.intake.ledger import append_status, load_events, load_status, same_source

REQUEUED = (
    "failed",
    "shadowed",
    "rejected",
    "skipped",
)  # all but pending (nothing to do) and published
WHY_KEPT = {"pending": "already waiting", "published": "its rules are in a knowledge PR"}


def main(argv: list[str] | None = None) -> int:
    """Append a `pending` transition (attempts 0) after each chosen failed, shadowed or
    rejected row."""
    parser = argparse.ArgumentParser(
        prog="kb intake requeue",
        description="Return failed, shadowed, rejected or skipped (triage) intake rows to pending so the next "
        "`kb distill` proposes them again with a fresh attempt count, past triage (a published row stays as "
        "it is). The transition is appended to intake/status.jsonl with the reason given "
        "(nothing is rewritten). Name SOURCE_IDs, or pass --all-failed or --rejected.",
    )
    parser.add_argument("source_ids", nargs="*", metavar="SOURCE_ID",
                        help="e.g. acme/app#41 or a bugfix run id")  # fmt: skip
    parser.add_argument("--all-failed", action="store_true", help="every failed row")
    parser.add_argument(
        "--rejected",
        action="store_true",
        help="every rejected row (its knowledge PR was closed without merging): propose it again",
    )
    parser.add_argument("--reason", required=True, help="why (recorded in the status row)")
    options.add_repo(parser)
    args = parser.parse_args(argv)
    every = [
        state for state, on in (("failed", args.all_failed), ("rejected", args.rejected)) if on
    ]
    if bool(args.source_ids) == bool(every):
        raise UsageError("name SOURCE_IDs or pass --all-failed and/or --rejected (not both)")
    reason = " ".join(args.reason.split())
    if not reason:
        raise UsageError("--reason must say why the rows are requeued")
    folder = options.intake_dir(args.repo)
    status = load_status(folder)
    # a source id compares as the ledger's fold does: `ACME/App#3` names `acme/app#3`
    kinds = ("merged_pr", "bugfix_run", "lesson")
    named = {same_source(kind, s): s for kind in kinds for s in args.source_ids}
    keys = [key for key in load_events(folder) if every or same_source(*key) in named]
    missing = sorted(set(args.source_ids) - {named.get(same_source(*key), key[1]) for key in keys})
    if missing:
        raise KbkitError(f"no recorded event has the source id {', '.join(missing)}")
    requeued = 0
    for key in sorted(keys):
        current = status.get(key)
        state = str(current.get("state")) if current else "pending"
        if state not in (every or REQUEUED):
            if not every:
                print(f"{key[1]}: {state}, {WHY_KEPT.get(state, 'left')}; left as it is")
            continue
        assert current is not None  # a pending row without a status row was skipped above
        append_status(folder, *key, "pending", attempts=0, previous=current,
                      reason=f"requeued: {reason}"[:1900])  # fmt: skip
        print(f"{key[1]}: {state} -> pending ({reason})")
        requeued += 1
    print(f"{requeued} row(s) requeued")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
