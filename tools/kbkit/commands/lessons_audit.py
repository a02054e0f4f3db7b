"""`kb lessons audit`: lessons shown across a company boundary, from the usage log."""

from __future__ import annotations

import argparse
import json

from kbkit.infra.charset import visible
from kbkit.infra.paths import REPO_HELP
from kbkit.lessons.audit import crossings
from kbkit.lessons.store import LessonStore


def main(argv: list[str] | None = None) -> int:
    """List every (task, lesson) pair whose companies differ; exit 1 when there is any."""
    parser = argparse.ArgumentParser(
        prog="kb lessons audit",
        description="Read intake/lessons/usage.jsonl and list every lesson of one company "
        "that was selected (shadow) or shown (inject) for a task of another company or of "
        "none. Exit 1 when any crossed the line.",
    )
    parser.add_argument("--repo", default=None, metavar="DIR", help=REPO_HELP)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    store = LessonStore.for_repo(args.repo)
    found = crossings(store.state(), store.usage_rows())
    if args.format == "json":
        document = {"crossings": [c.to_dict() for c in found], "count": len(found)}
        print(json.dumps(document, ensure_ascii=False, indent=2))
    else:
        for c in found:
            alike = (
                " (another company whose name shows alike)"
                if c.task_company == c.lesson_company
                else ""
            )
            print(
                visible(
                    f"{c.at} task {c.task} (company {c.task_company or '-'}, {c.mode}): "
                    f"lesson {c.lesson} of company {c.lesson_company}{alike}"
                )
            )
        print(f"kb lessons audit: {len(found)} lesson(s) shown across a company boundary")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
