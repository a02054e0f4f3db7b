"""`kb lessons promote`: well-supported lessons become intake events of kind `lesson`."""

from __future__ import annotations

import argparse

from kbkit.infra.errors import UsageError
from kbkit.infra.paths import REPO_HELP, intake_root, repo_root
from kbkit.lessons.promotion import plan_promotions, promote
from kbkit.lessons.store import LessonStore


def main(argv: list[str] | None = None) -> int:
    """Append events + pending status rows; --dry-run prints them and exits 1 if any."""
    parser = argparse.ArgumentParser(
        prog="kb lessons promote",
        description="Record lessons with live evidence from at least K distinct tasks (one task "
        "reporting a finding five times counts once) as intake events of "
        "kind `lesson` (pending), so the daily distill can propose them as rules. A human "
        "merging that PR is the adoption step. Lessons already recorded are skipped.",
    )
    parser.add_argument("--min-support", required=True, type=int, metavar="K")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print what would be recorded; exit 1 when there is something",
    )
    parser.add_argument("--repo", default=None, metavar="DIR", help=REPO_HELP)
    args = parser.parse_args(argv)
    if args.min_support < 1:
        raise UsageError("--min-support must be at least 1")
    root = repo_root(args.repo)
    store, intake = LessonStore.for_repo(root), intake_root(root)
    if args.dry_run:
        plans = plan_promotions(store, intake, args.min_support)
    else:
        plans = promote(store, intake, args.min_support)
    verb = "would promote" if args.dry_run else "promoted"
    for plan in plans:
        print(f"{verb} {plan.lesson_id} (support {plan.support}): {plan.title}")
    print(f"{len(plans)} lesson(s) {verb} to {intake / 'events.jsonl'}")
    return 1 if args.dry_run and plans else 0


if __name__ == "__main__":
    raise SystemExit(main())
