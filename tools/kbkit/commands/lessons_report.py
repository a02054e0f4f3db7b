"""`kb lessons report`: tasks that saw lessons vs tasks that did not, with 95% intervals."""

from __future__ import annotations

import argparse
import json
from typing import Any

from kbkit.lessons.outcomes import build_report
from kbkit.lessons.store import LessonStore
from kbkit.paths import REPO_HELP

COLUMNS = (
    ("confirmed_per_task", "confirmed/task", False),
    ("tokens_per_confirmed", "tokens/confirmed", False),
    ("tool_calls_per_confirmed", "tool calls/confirmed", False),
    ("false_positive_rate", "FP rate", True),
    ("duplicate_rate", "dup rate", True),
)


def _cell(interval: dict[str, Any], rate: bool) -> str:
    if interval["value"] is None:
        return "n/a"
    show = (lambda v: f"{v:.1%}") if rate else (lambda v: f"{v:.2f}")
    if interval["low"] is None:
        return f"{show(interval['value'])} (n={interval['n']})"
    low, high = show(interval["low"]), show(interval["high"])
    return f"{show(interval['value'])} [{low}, {high}] (n={interval['n']})"


def main(argv: list[str] | None = None) -> int:
    """Join the usage log with the outcome cards recorded by `kb lessons extract`."""
    parser = argparse.ArgumentParser(
        prog="kb lessons report",
        description="Compare tasks that saw lessons (inject mode, at least one lesson) with "
        "tasks that did not, overall and per company and category: the same metrics side by "
        "side with counts and 95% confidence intervals (Wilson for rates, Student-t for means). "
        "Support is not causal; use `kb lessons bundle --assign hash` for a fair comparison.",
    )
    parser.add_argument("--repo", default=None, metavar="DIR", help=REPO_HELP)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    store = LessonStore.for_repo(args.repo)
    cards = [
        row["card"] for row in store.state().outcomes.values() if isinstance(row.get("card"), dict)
    ]
    report = build_report(cards, store.usage_rows())
    if args.format == "json":
        print(json.dumps({"version": 1, **report}, ensure_ascii=False, indent=2))
        return 0
    print(f"{len(cards)} closed task(s) with outcome cards. {report['methods']}")
    arms = report["assignment"]
    print(
        f"assignment: by hash {arms['hash_inject']} inject / {arms['hash_shadow']} shadow; "
        f"by mode {arms['configured_inject']} inject / {arms['configured_shadow']} shadow; "
        f"{arms['never_considered']} never considered"
    )
    for group in report["groups"]:
        print(f"\n{group['group']}: {group['value']}")
        for arm, label in (("with_lessons", "saw lessons"), ("without_lessons", "no lessons")):
            metrics = group[arm]
            print(f"  {label:<12} tasks={metrics['tasks']}")
            for key, title, rate in COLUMNS:
                print(f"    {title:<22} {_cell(metrics[key], rate)}")
    print(f"\n{report['caveat']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
