"""`kb lessons retire`: an owner withdraws lessons, with a reason; they are no longer selected."""

from __future__ import annotations

import argparse

from kbkit.infra.paths import REPO_HELP
from kbkit.lessons.lifecycle import transition
from kbkit.lessons.store import LessonStore
from kbkit.lessons.view import load_view


def main(argv: list[str] | None = None) -> int:
    """Append `retired` transitions (the reason is required)."""
    parser = argparse.ArgumentParser(
        prog="kb lessons retire",
        description="Retire lessons: an appended transition in intake/lessons/transitions.jsonl "
        "with the reason; retired lessons are no longer selected. `kb lessons adopt` or a "
        "later transition can change the state again; nothing is edited.",
    )
    parser.add_argument("lessons", nargs="+", metavar="LESSON", help="lesson ids (L...)")
    parser.add_argument("--reason", required=True, help="why (kept in the transition row)")
    parser.add_argument("--repo", default=None, metavar="DIR", help=REPO_HELP)
    args = parser.parse_args(argv)
    store = LessonStore.for_repo(args.repo)
    rows = transition(store, args.lessons, "retired", args.reason)
    load_view(store)
    print(f"{len(rows)} lesson(s) retired, {len(args.lessons) - len(rows)} already were")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
