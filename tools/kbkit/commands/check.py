"""`kb check`: both validators on the tree, in one process over one parse."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import date

from kbkit.errors import UsageError
from kbkit.findings import REPORTER_BY_NAME, count

VALIDATORS = ("tree", "lint")


def build_parser(prog: str, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument(
        "--repo",
        default=None,
        help="the repository that holds knowledge/ (default: the current directory)",
    )
    parser.add_argument(
        "--policy",
        default=None,
        help="a built-in profile (default, infermatrix) or a policy YAML file "
        "(default: knowledge/policy.yaml when present)",
    )
    parser.add_argument(
        "--format",
        choices=sorted(REPORTER_BY_NAME),
        default="text",
        help="output format (default: text)",
    )
    parser.add_argument(
        "--today",
        default=None,
        metavar="YYYY-MM-DD",
        help="the date staleness is measured against (default: the local date)",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="parse every page again instead of reusing .kbkit-cache/",
    )
    return parser


def parse_today(value: str | None) -> date:
    if value is None:
        return date.today()
    from kbkit.checks.lint_fields import parse_date

    today = parse_date(value)
    if today is None:
        raise UsageError(f"--today {value!r}: expected a real date written YYYY-MM-DD")
    return today


def run(
    argv: Sequence[str] | None, validators: tuple[str, ...], prog: str, description: str
) -> int:
    """Parse options, run the named validators, print the report; exit 1 on errors."""
    from kbkit.checks.registry import run_validators
    from kbkit.paths import repo_root
    from kbkit.policy import load_policy

    args = build_parser(prog, description).parse_args(argv)
    repo = repo_root(args.repo)
    policy = load_policy(repo, args.policy)
    findings, pages = run_validators(
        repo, policy, validators, parse_today(args.today), use_cache=not args.no_cache
    )
    sys.stdout.write(REPORTER_BY_NAME[args.format](findings, pages))
    errors, _ = count(findings)
    return 1 if errors else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run both validators."""
    return run(argv, VALIDATORS, "kb check", __doc__ or "")
