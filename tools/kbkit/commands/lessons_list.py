"""`kb lessons list`: what agents are told now, by scope, with support and evidence."""

from __future__ import annotations

import argparse
import json

from kbkit.infra import outward
from kbkit.infra.paths import REPO_HELP
from kbkit.lessons.listing import EVIDENCE_SHOWN, told
from kbkit.lessons.store import LessonStore


def main(argv: list[str] | None = None) -> int:
    """Print every selectable lesson grouped by scope; read-only."""
    parser = argparse.ArgumentParser(
        prog="kb lessons list",
        description="List what agents are told now: every lesson selection may show a task "
        "(a live candidate), grouped by scope (company / category, generic first), each "
        "with the line the block shows, its support (distinct tasks), when its evidence was "
        f"last seen and its newest {EVIDENCE_SHOWN} sources. A lesson a conflict withholds "
        "says so and why. Which lessons one task sees: kb lessons show TASK.json; one "
        "lesson's whole evidence: kb lessons why ID.",
    )
    parser.add_argument("--repo", default=None, metavar="DIR", help=REPO_HELP)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    lessons = told(LessonStore.for_repo(args.repo))
    if args.format == "json":
        document = {"version": 1, "lessons": [t.to_dict() for t in lessons]}
        print(outward.json_text(json.dumps(document, ensure_ascii=False, indent=2)))
        return 0
    scope = None
    for lesson in lessons:
        if lesson.scope() != scope:
            scope = lesson.scope()
            print(f"{outward.line(scope)}:")
        print(f"  {outward.line(lesson.id)}  {outward.line(lesson.line)}")
        sources = ", ".join(outward.line(e.source) for e in lesson.evidence[:EVIDENCE_SHOWN])
        more = lesson.evidence_rows - min(EVIDENCE_SHOWN, lesson.evidence_rows)
        print(
            f"    support {lesson.support} (tasks), last seen {lesson.last_seen}; evidence: "
            f"{sources}{f' and {more} more' if more else ''}"
        )
        if lesson.withheld:
            w = lesson.withheld
            print(outward.line(f"    withheld: {w.why} (against {', '.join(w.against)})"))
    withheld = sum(1 for t in lessons if t.withheld)
    print(
        f"kb lessons list: {len(lessons)} lesson(s) selectable"
        + (f", {withheld} withheld by a conflict" if withheld else "")
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
