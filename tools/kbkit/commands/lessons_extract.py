"""`kb lessons extract`: record lessons, evidence and outcome cards from closed tasks."""

from __future__ import annotations

import argparse
import json

from kbkit.infra.errors import UsageError
from kbkit.infra.jsonl import gc_paused
from kbkit.infra.paths import REPO_HELP
from kbkit.lessons.bulk import extract_inputs
from kbkit.lessons.store import LessonStore
from kbkit.lessons.view import load_view


def main(argv: list[str] | None = None) -> int:
    """Validate every input first, then append only what is new (idempotent)."""
    parser = argparse.ArgumentParser(
        prog="kb lessons extract",
        description="Extract deterministic lessons from closed task records into "
        "intake/lessons/. Every record is checked before anything is written. Non-terminal "
        "tasks are skipped; re-running adds nothing (a record whose bytes did not change "
        "since it was extracted is recognised without being read again).",
    )
    parser.add_argument(
        "tasks", nargs="*", metavar="TASK.json", help="task record files (- for stdin)"
    )
    parser.add_argument(
        "--from",
        dest="from_jsonl",
        action="append",
        default=[],
        metavar="TASKS.jsonl",
        help="a JSONL file of task records (repeatable)",
    )
    parser.add_argument("--repo", default=None, metavar="DIR", help=REPO_HELP)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    if not args.tasks and not args.from_jsonl:
        raise UsageError("nothing to extract: pass TASK.json files or --from TASKS.jsonl")
    store = LessonStore.for_repo(args.repo)
    # One pause of the cyclic GC over both steps: between them the fold (millions of
    # acyclic tuples, all young) would otherwise be scanned by every generation in turn.
    with gc_paused():
        result, unchanged = extract_inputs(store, args.tasks, args.from_jsonl)
        if store.root.exists():
            # The writer is a batch job; readers (`show`, `bundle`, agents) are
            # latency-bound. Rebuild the derived selection view now so the next read opens
            # it in milliseconds.
            load_view(store)
    if args.format == "json":
        document = dict(result._asdict(), unchanged=unchanged)
        document["refusals"] = [r._asdict() for r in result.refusals]
        print(json.dumps({"version": 1, **document}, ensure_ascii=False, indent=2))
        return 0
    for refusal in result.refusals:
        print(f"refused {refusal.source}: {refusal.reason}")
    for task in result.skipped_tasks:
        print(f"skipped {task}: not a terminal task (done, failed or timeout)")
    print(
        f"{result.tasks} task(s): {result.new_lessons} new lesson(s), "
        f"{result.new_evidence} new evidence row(s), {result.new_outcomes} outcome card(s), "
        f"{len(result.refusals)} refused, {len(result.skipped_tasks)} not terminal"
        + (f", {unchanged} unchanged since their last extraction" if unchanged else "")
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
