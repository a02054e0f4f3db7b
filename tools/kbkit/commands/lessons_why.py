"""`kb lessons why ID`: one lesson's evidence, life cycle and conflicts."""

from __future__ import annotations

import argparse
import json

from kbkit.infra import outward
from kbkit.infra.paths import REPO_HELP
from kbkit.lessons.listing import explain
from kbkit.lessons.store import LessonStore


def main(argv: list[str] | None = None) -> int:
    """Print why a lesson says what it says; exit 2 when the store has no such lesson."""
    parser = argparse.ArgumentParser(
        prog="kb lessons why",
        description="Show one lesson: what it says, whether selection may show it now "
        "(selectable, adopted, retired, or without live evidence), every evidence row "
        "(source, task, time, live / superseded / forgotten) and the lessons that contradict it.",
    )
    parser.add_argument("lesson", metavar="ID", help="a lesson id (kb lessons list shows them)")
    parser.add_argument("--repo", default=None, metavar="DIR", help=REPO_HELP)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    story = explain(LessonStore.for_repo(args.repo), args.lesson)
    if args.format == "json":
        document = {"version": 1, **story.to_dict()}
        print(outward.json_text(json.dumps(document, ensure_ascii=False, indent=2)))
        return 0
    scope = ", ".join(f"{k} {v}" for k, v in (("company", story.company),
                                              ("category", story.category)) if v)  # fmt: skip
    print(f"{outward.line(story.id)} ({story.kind}; {outward.line(scope or 'generic')})")
    print(f"  cue: {outward.line(story.cue)}")
    print(f"  says: {outward.line(story.action)}")
    state = story.state + (f": {outward.line(story.reason)}" if story.reason else "")
    print(f"  state: {state}")
    if story.told is not None:
        t = story.told
        print(f"  support {t.support} (tasks), {t.evidence_rows} live evidence row(s), last seen {t.last_seen}")  # fmt: skip
        print(f"  shown as: {outward.line(t.line)}")
        if t.withheld:
            print(
                outward.line(
                    f"  withheld: {t.withheld.why} (against {', '.join(t.withheld.against)})"
                )
            )
    if story.against:
        print(outward.line(f"  contradicted by: {', '.join(story.against)}"))
    print(f"  evidence ({len(story.evidence)} row(s), newest first):")
    for e in story.evidence:
        print(f"    {e.at or '(undated)'}  {outward.line(e.source)}  task {outward.line(e.task)}  {e.state}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
