"""`kb intake status`: counts by state and kind, oldest pending, attempts."""

from __future__ import annotations

import argparse

from kbkit.intake import options
from kbkit.intake.ledger_summary import render_json, render_text, summarize


def main(argv: list[str] | None = None) -> int:
    """Print the folded state of the intake ledgers."""
    parser = argparse.ArgumentParser(
        prog="kb intake status",
        description="Fold intake/events.jsonl and intake/status.jsonl and print counts by "
        "state and kind, the oldest pending event, attempts and the PR cursor.",
    )
    options.add_repo(parser)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    summary = summarize(options.intake_dir(args.repo))
    if args.format == "json":
        print(render_json(summary), end="")
    else:
        print(render_text(summary), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
