"""The lesson-selection options `kb lessons show`, `bundle` and `replay` share."""

from __future__ import annotations

import argparse

from kbkit.lessons.selection import SCOPES


def add_scope(parser: argparse.ArgumentParser) -> None:
    """`--scope company|company+generic|open`: which companies' lessons a task may see."""
    parser.add_argument(
        "--scope",
        choices=SCOPES,
        default=None,
        help="client isolation: company (same company only), company+generic (default, or "
        "KBKIT_LESSONS_SCOPE), open (also other companies' lessons of the same category)",
    )


def add_as_of(parser: argparse.ArgumentParser) -> None:
    """`--as-of TIME`: select from the evidence closed before TIME only."""
    parser.add_argument(
        "--as-of",
        default=None,
        metavar="TIME",
        help="use only evidence closed before TIME (ISO 8601; default: the task's "
        "started_at when it has one, else all evidence)",
    )
