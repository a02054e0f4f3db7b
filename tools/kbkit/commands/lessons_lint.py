"""`kb lessons lint`: duplicates, conflicts, dangling evidence, never-selected lessons."""

from __future__ import annotations

import argparse
import json

from kbkit.findings import ERROR, count, escape_annotation
from kbkit.lessons.lint import lint_store
from kbkit.lessons.signal import lesson_signals
from kbkit.lessons.store import LessonStore
from kbkit.lessons.task_records import read_tasks_jsonl
from kbkit.paths import rel_posix, repo_root


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
    parser.add_argument("--repo", default=None, help="repository folder (default: current)")
    parser.add_argument("--format", choices=("text", "json", "github"), default="text")
    args = parser.parse_args(argv)
    root = repo_root(args.repo)
    store = LessonStore.for_repo(root)
    state = store.state()
    known = set(state.outcomes)
    for path in args.tasks:
        known |= {str(record["id"]) for record in read_tasks_jsonl(path)}
    usage = store.usage_rows()
    used = {str(lid) for row in usage for lid in row.get("lessons") or []}
    signals = lesson_signals(state, usage)
    findings = lint_store(state, used, known, lambda log: rel_posix(store.log(log), root), signals)
    errors, warnings = count(findings)
    if args.format == "json":
        document = {
            "version": 1,
            "findings": [f.to_dict() for f in findings],
            "summary": {"errors": errors, "warnings": warnings, "lessons": len(state.lessons)},
        }
        print(json.dumps(document, ensure_ascii=False, indent=2))
    else:
        for f in findings:
            location = f"{f.path}:{f.line}" if f.line else f.path
            if args.format == "github":
                level = "error" if f.severity == ERROR else "warning"
                print(
                    f"::{level} file={f.path},line={f.line or 1},title={f.rule_id}::"
                    f"{escape_annotation(f.message)}"
                )
            else:
                print(f"{location}: {f.rule_id} {f.message}")
        verdict = "failed" if errors else "passed"
        print(
            f"kb lessons lint {verdict}: {errors} error(s), {warnings} warning(s), "
            f"{len(state.lessons)} lesson(s)"
        )
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
