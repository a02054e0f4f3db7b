"""`kb lessons adopt`: lessons whose promoted rule was published stop being injected."""

from __future__ import annotations

import argparse

from kbkit.infra.paths import REPO_HELP, intake_root, repo_root
from kbkit.lessons.lifecycle import published_promotions, transition
from kbkit.lessons.store import LessonStore
from kbkit.lessons.view import load_view


def main(argv: list[str] | None = None) -> int:
    """Append `adopted` transitions; without ids, for every published promotion."""
    parser = argparse.ArgumentParser(
        prog="kb lessons adopt",
        description="Mark lessons adopted (an appended transition in "
        "intake/lessons/transitions.jsonl): the rule they became carries them, so they are no "
        "longer selected. Without LESSON ids, adopts every lesson whose promotion event "
        "(kb lessons promote) is published in the intake ledger.",
    )
    parser.add_argument("lessons", nargs="*", metavar="LESSON", help="lesson ids (L...)")
    parser.add_argument("--reason", default="", help="why (kept in the transition row)")
    parser.add_argument("--repo", default=None, metavar="DIR", help=REPO_HELP)
    args = parser.parse_args(argv)
    root = repo_root(args.repo)
    store = LessonStore.for_repo(root)
    lessons = args.lessons or published_promotions(intake_root(root))
    reason = args.reason or ("" if args.lessons else "its promotion was published as a rule")
    rows = transition(store, lessons, "adopted", reason)
    load_view(store)  # readers find the selection view current
    print(f"{len(rows)} lesson(s) adopted, {len(lessons) - len(rows)} already were")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
