"""`kb check`: both validators on the tree, in one process over one parse."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kbkit.infra.errors import UsageError
from kbkit.infra.paths import REPO_HELP
from kbkit.rulebook.findings import CHECK_FORMATS

if TYPE_CHECKING:
    from kbkit.checks.check_run import Started
    from kbkit.checks.reporting import ReportOptions
    from kbkit.policy.model import Policy
    from kbkit.rulebook.findings import Finding

VALIDATORS = ("tree", "lint")


def build_parser(prog: str, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="pages or folders to report on: their own findings and links into them from "
        "other pages (default: the whole tree)",
    )
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
        choices=CHECK_FORMATS,
        default="text",
        help="output format (default: text; sarif: SARIF 2.1.0 for code scanning)",
    )
    parser.add_argument(
        "--fail-on",
        choices=("error", "warning"),
        default="error",
        help="the lowest severity that fails the run, exit 1 (default: error)",
    )
    parser.add_argument(
        "--exit-zero",
        action="store_true",
        help="exit 0 even when there are findings (usage and environment errors still fail)",
    )
    parser.add_argument(
        "--today",
        default=None,
        metavar="YYYY-MM-DD",
        help="the date staleness is measured against (default: today in UTC, or the date of KBKIT_NOW)",
    )
    parser.add_argument(
        "--baseline",
        default=None,
        metavar="FILE",
        help="compare with this baseline (default: baseline.json beside the policy, when "
        "present): only findings not in it are reported and fail",
    )
    parser.add_argument(
        "--write-baseline",
        action="store_true",
        help="record today's findings in the baseline (--baseline FILE or baseline.json "
        "beside the policy) and exit 0",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="parse every page and run every check again instead of reusing .kbkit-cache/",
    )
    return parser


def add_fix_options(parser: argparse.ArgumentParser, standalone: bool = False) -> None:
    if not standalone:
        parser.add_argument(
            "--fix", action="store_true", help="apply the mechanical fixes first (`kb fix`)"
        )
    parser.add_argument(
        "--diff",
        action="store_true",
        help="print the fixes as a unified diff and change nothing (exit 1 when there are any)",
    )


def start(args: argparse.Namespace) -> Started:
    """Find the repository and start the walk in a child at once, before the checks' imports
    (a tenth of a second and more): it runs beside them."""
    from kbkit.infra.boundary import within
    from kbkit.infra.paths import repo_root
    from kbkit.policy.root_guess import root_guess
    from kbkit.tree.cache import CACHE_DIR
    from kbkit.tree.walk import walk_aside

    repo = repo_root(args.repo)
    # Without --policy the walk starts under the root kbkit.yaml names (or the usual one),
    # and is redone if the repository's policy names another one. Without a cache folder
    # there is no stat key to compare: the pages' keys come from their reads
    # (`kbkit.tree.walk.walk_root`).
    stat_pages = not args.no_cache and (repo / CACHE_DIR).is_dir()
    guess = None if args.policy else root_guess(repo)
    # (never a walk under a guessed root that leads outside: load_policy refuses it)
    usable = guess and (repo / guess).is_dir() and within(repo, repo / guess)
    walked = walk_aside(repo / guess, guess, stat_pages) if guess and usable else None
    from kbkit.checks.check_run import Started

    return Started(repo, guess, walked, stat_pages)


def checked(
    args: argparse.Namespace, validators: tuple[str, ...]
) -> tuple[Path, Policy, list[Finding], int]:
    """(repo, policy, findings, pages checked) of one run of the validators."""
    started = start(args)
    from kbkit.checks.check_run import CheckOptions, check_repo

    options = CheckOptions(args.today, args.policy, args.staged, args.no_cache)
    return check_repo(options, validators, started)


def report_options(args: argparse.Namespace) -> ReportOptions:
    """The reporting options, typed, from the parsed command line."""
    from kbkit.checks.reporting import ReportOptions

    return ReportOptions(
        args.format, args.fail_on, args.exit_zero, args.baseline, args.write_baseline
    )


def fix(args: argparse.Namespace) -> int:
    """`kb fix` and `kb check --fix` / `--diff`."""
    from kbkit.checks.fix_run import run_fix

    options = report_options(args)
    return run_fix(options, args.paths, args.diff, VALIDATORS, lambda: checked(args, VALIDATORS))


def run(
    argv: Sequence[str] | None, validators: tuple[str, ...], prog: str, description: str
) -> int:
    """Parse options, run the named validators, print the report; exit 1 on errors."""
    parser = build_parser(prog, description)
    if validators == VALIDATORS:
        add_fix_options(parser)
    args = parser.parse_args(argv)
    if getattr(args, "fix", False) or getattr(args, "diff", False):
        return fix(args)
    if args.paths and args.write_baseline:
        raise UsageError("--write-baseline records the whole tree: run it without PATH")
    repo, policy, findings, pages = checked(args, validators)
    from kbkit.checks.reporting import report

    options = report_options(args)
    if args.paths:
        from kbkit.checks.bearing import bearing, missing, named_paths, pages_named

        named = named_paths(repo, args.paths)
        for rel in missing(repo, named):
            if not bearing(findings, [rel]):  # a mistyped path: say so, do not pass
                raise UsageError(
                    f"{rel}: no such page or folder, and no link points there; check the path"
                )
            sys.stderr.write(f"kbkit: nothing at {rel}: only links to it are reported\n")
        findings = bearing(findings, named)
        pages = pages_named(repo, named)
        options = options._replace(named=named)
    from kbkit.checks.registry import PREFIX_BY_VALIDATOR

    prefixes = tuple(PREFIX_BY_VALIDATOR[name] for name in validators)
    return report(repo, policy, options, findings, pages, prefixes)


def main(argv: Sequence[str] | None = None) -> int:
    """Run both validators."""
    return run(argv, VALIDATORS, "kb check", __doc__ or "")
