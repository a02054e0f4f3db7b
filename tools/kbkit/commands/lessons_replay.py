"""`kb lessons replay`: false positives and duplicates earlier lessons already warned about."""

from __future__ import annotations

import argparse
import json

from kbkit.infra.paths import REPO_HELP
from kbkit.lessons.options import add_scope
from kbkit.lessons.replay import replay
from kbkit.lessons.selection import lesson_scope
from kbkit.lessons.store import LessonStore


def main(argv: list[str] | None = None) -> int:
    """Replay the store's tasks in closing order and print what lessons could have saved."""
    parser = argparse.ArgumentParser(
        prog="kb lessons replay",
        description="Take past tasks in the order they closed, each seeing only evidence "
        "closed before it, and count the false positives and duplicates that an earlier "
        "negative lesson (same class and summary, in a visible scope) already described: an "
        "upper bound on what lessons could have saved (the 8-lesson budget is ignored).",
    )
    add_scope(parser)
    parser.add_argument("--repo", default=None, metavar="DIR", help=REPO_HELP)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    scope = lesson_scope(args.scope)
    result = replay(LessonStore.for_repo(args.repo).state(), scope)
    if args.format == "json":
        print(json.dumps({"scope": scope, **result.to_dict()}, indent=2))
        return 0
    print(f"replayed {result.tasks} task(s) in closing order (scope {scope})")
    for status, total in result.negatives.items():
        hit = result.warned.get(status, 0)
        share = f" ({hit / total:.1%})" if total else ""
        print(f"  {status}: {hit} of {total} already warned about by an earlier lesson{share}")
    if not result.negatives:
        print("  no negative outcomes recorded")
    print("an upper bound: the render budget is ignored and no agent saw these lessons")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
