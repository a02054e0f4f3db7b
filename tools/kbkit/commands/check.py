"""`kb check`: both validators on the tree, in one process over one parse."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import date

from kbkit import clock
from kbkit.errors import UsageError
from kbkit.findings import FORMATS, count, render, use_color
from kbkit.paths import REPO_HELP

VALIDATORS = ("tree", "lint")
USUAL_ROOT = "knowledge"  # the default policy's knowledge_root (a guess; checked below)


def build_parser(prog: str, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--repo", default=None, metavar="DIR", help=REPO_HELP)
    parser.add_argument(
        "--staged",
        action="store_true",
        help="check the commit's tree: files the git index tracks (staged included); "
        "untracked pages are ignored (what the pre-commit hooks run)",
    )
    parser.add_argument(
        "--policy",
        default=None,
        help="a built-in profile (default, infermatrix) or a policy YAML file "
        "(default: knowledge/policy.yaml when present)",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="output format (default: text)",
    )
    parser.add_argument(
        "--today",
        default=None,
        metavar="YYYY-MM-DD",
        help="the date staleness is measured against (default: today in UTC, or the date of KBKIT_NOW)",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="parse every page and run every check again instead of reusing .kbkit-cache/",
    )
    return parser


def parse_today(value: str | None) -> date:
    if value is None:
        return clock.today()
    from kbkit.checks.lint_fields import parse_date

    today = parse_date(value)
    if today is None:
        raise UsageError(f"--today {value!r}: expected a real date written YYYY-MM-DD")
    return today


def run(
    argv: Sequence[str] | None, validators: tuple[str, ...], prog: str, description: str
) -> int:
    """Parse options, run the named validators, print the report; exit 1 on errors."""
    from kbkit.paths import repo_root
    from kbkit.walk import walk_aside

    args = build_parser(prog, description).parse_args(argv)
    repo = repo_root(args.repo)
    today = parse_today(args.today)
    # The walk runs in a child while this process loads the policy, the validators and the
    # parser. Without --policy it starts at once under the usual root, and is redone if the
    # repository's policy names another one.
    guess = None if args.policy else USUAL_ROOT
    walked = walk_aside(repo / guess, guess) if guess and (repo / guess).is_dir() else None
    from kbkit.policy import load_policy

    policy = load_policy(repo, args.policy)
    if guess != policy.knowledge_root:
        if walked is not None:
            walked()  # the wrong folder: let the child finish
        top = repo / policy.knowledge_root
        walked = walk_aside(top, policy.knowledge_root) if top.is_dir() else None
    if args.staged and walked is not None:
        from kbkit.staged import staged_walker

        walked = staged_walker(walked, repo, policy.knowledge_root)
    from kbkit.checks.registry import run_validators

    findings, pages = run_validators(
        repo, policy, validators, today, use_cache=not args.no_cache, walked=walked
    )
    color = args.format == "text" and use_color(sys.stdout)
    sys.stdout.write(render(findings, args.format, "kbkit check", {"pages": pages}, color))
    errors, _ = count(findings)
    return 1 if errors else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run both validators."""
    return run(argv, VALIDATORS, "kb check", __doc__ or "")
