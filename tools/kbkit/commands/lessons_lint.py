"""`kb lessons lint`: duplicates, conflicts, dangling evidence, never-selected lessons."""

from __future__ import annotations

import argparse
import sys

from kbkit.infra.paths import REPO_HELP, rel_posix, repo_root
from kbkit.lessons.lint import lint_store
from kbkit.lessons.signal import lesson_signals
from kbkit.lessons.store import LessonStore
from kbkit.lessons.task_records import read_tasks_jsonl
from kbkit.rulebook.findings import FORMATS, count, render, sort_findings, use_color


def main(argv: list[str] | None = None) -> int:
    """Report every problem of the store; exit 1 when any is an error."""
    parser = argparse.ArgumentParser(
        prog="kb lessons lint",
        description="Check the lessons store: exact and near duplicates, conflicting lessons, "
        "evidence pointing to missing tasks or lessons, lessons never selected.",
    )
    parser.add_argument(
        "--tasks",
        action="append",
        default=[],
        metavar="TASKS.jsonl",
        help="task records that also count as known tasks (repeatable)",
    )
    parser.add_argument("--repo", default=None, metavar="DIR", help=REPO_HELP)
    parser.add_argument(
        "--format", choices=FORMATS, default="text", help="output format (default: text)"
    )
    args = parser.parse_args(argv)
    root = repo_root(args.repo)
    store = LessonStore.for_repo(root)
    state = store.state()
    known = set(state.outcomes)
    for path in args.tasks:
        known |= {str(record["id"]) for record in read_tasks_jsonl(path)}
    usage = store.usage_rows()
    used = {state.lesson_id(str(lid)) for row in usage for lid in row.get("lessons") or []}
    signals = lesson_signals(state, usage)
    findings = lint_store(state, used, known, lambda log: rel_posix(store.log(log), root), signals)
    color = args.format == "text" and use_color(sys.stdout)
    totals = {"lessons": len(state.lessons)}
    sys.stdout.write(render(sort_findings(findings), args.format, "kb lessons lint", totals, color))
    errors, _ = count(findings)
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
