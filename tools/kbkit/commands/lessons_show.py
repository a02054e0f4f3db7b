"""`kb lessons show`: preview the lessons a task would see (read-only, logs nothing)."""

from __future__ import annotations

import argparse
import json

from kbkit.infra import outward
from kbkit.infra.paths import REPO_HELP
from kbkit.lessons.conflicts import Withheld
from kbkit.lessons.options import add_as_of, add_scope
from kbkit.lessons.rendering import render_block
from kbkit.lessons.selection import select_lessons
from kbkit.lessons.store import LessonStore
from kbkit.lessons.task_records import read_task


def main(argv: list[str] | None = None) -> int:
    """Print the rendered block (or JSON) regardless of KB_LESSONS; never writes a usage row."""
    parser = argparse.ArgumentParser(
        prog="kb lessons show",
        description="Show the lessons selected for a task, ranked and rendered exactly as "
        "`kb lessons bundle` would inject them. A preview: it ignores KB_LESSONS and logs nothing.",
    )
    parser.add_argument("task", metavar="TASK.json", help="a task record file, or - for stdin")
    add_as_of(parser)
    parser.add_argument(
        "--signal",
        action="store_true",
        help="with --format json: each lesson's helpful/harmful counts from past outcomes "
        "(reads the whole store, so it is off by default to keep show fast)",
    )
    parser.add_argument("--repo", default=None, metavar="DIR", help=REPO_HELP)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    add_scope(parser)
    args = parser.parse_args(argv)
    store = LessonStore.for_repo(args.repo)
    task = read_task(args.task)
    withheld: list[Withheld] = []
    lessons = select_lessons(task, store, scope=args.scope, as_of=args.as_of, withheld=withheld)
    block = render_block(lesson.line for lesson in lessons) if lessons else ""
    if args.format == "json":
        rows = [x.to_dict() for x in lessons]
        if args.signal:
            from kbkit.lessons.signal import Signal, lesson_signals

            signals = lesson_signals(store.state(), store.usage_rows())
            for row in rows:
                row["signal"] = signals.get(row["id"], Signal(0, 0)).to_dict()
        document = {"task": str(task["id"]), "lessons": rows, "block": block}
        if withheld:
            document["withheld"] = [note.to_dict() for note in withheld]
        print(json.dumps({"version": 1, **document}, ensure_ascii=False, indent=2))
    elif block:
        print(block)
    else:
        print(f"no lessons for task {task['id']}")
    if args.format != "json":
        for note in withheld:  # ids from the store: a hand-edited one is text
            print(outward.line(f"withheld {note.lesson}: {note.why} ({', '.join(note.against)})"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
