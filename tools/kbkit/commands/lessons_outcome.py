"""`kb lessons outcome`: the outcome card of one task record."""

from __future__ import annotations

import argparse
import json

from kbkit.lessons.outcomes import outcome_card
from kbkit.lessons.task_records import read_task


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:g}"


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def main(argv: list[str] | None = None) -> int:
    """Print confirmed findings, cost per confirmed finding, false-positive and duplicate rates."""
    parser = argparse.ArgumentParser(
        prog="kb lessons outcome",
        description="Print the per-task outcome card: confirmed findings, tokens and tool calls "
        "per confirmed finding, false-positive and duplicate rates (pending and in-progress "
        "findings are not counted as reported).",
    )
    parser.add_argument("task", metavar="TASK.json", help="a task record file, or - for stdin")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    card = outcome_card(read_task(args.task))
    if args.format == "json":
        print(json.dumps({"version": 1, **card}, ensure_ascii=False, indent=2))
        return 0
    print(
        f"task {card['task']} ({card['status']}; company {card['company'] or '-'}, "
        f"category {card['category'] or '-'})"
    )
    print(f"  findings reported        {card['reported']}")
    print(f"  confirmed                {card['confirmed']}")
    print(f"  tokens per confirmed     {_number(card['tokens_per_confirmed'])}")
    print(f"  tool calls per confirmed {_number(card['tool_calls_per_confirmed'])}")
    print(f"  false-positive rate      {_rate(card['false_positive_rate'])}")
    print(f"  duplicate rate           {_rate(card['duplicate_rate'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
