"""`kb check`: both validators on the tree, in one process over one parse."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kbkit.infra import clock
from kbkit.infra.errors import UsageError
from kbkit.infra.paths import REPO_HELP
from kbkit.rulebook.findings import (
    CHECK_FORMATS,
    WARNING,
    Finding,
    count,
    render,
    sarif,
    sort_findings,
    use_color,
)

if TYPE_CHECKING:
    from kbkit.policy.model import Policy

VALIDATORS = ("tree", "lint")
USUAL_ROOT = "knowledge"  # the default policy's knowledge_root (a guess; checked below)


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
    parser = build_parser(prog, description)
    if validators == VALIDATORS:
        from kbkit.commands.fix import add_fix_options

        add_fix_options(parser)
    args = parser.parse_args(argv)
    if getattr(args, "fix", False) or getattr(args, "diff", False):
        from kbkit.commands.fix import run_fix

        return run_fix(args)
    if args.paths and args.write_baseline:
        raise UsageError("--write-baseline records the whole tree: run it without PATH")
    repo, policy, findings, pages = check_repo(args, validators)
    if args.paths:
        from kbkit.checks.bearing import bearing, missing, named_paths, pages_named

        named = named_paths(repo, args.paths)
        for rel in missing(repo, named):
            sys.stderr.write(f"kbkit: nothing at {rel}: only links to it are reported\n")
        findings = bearing(findings, named)
        pages = pages_named(repo, named)
        args.named = named
    from kbkit.checks.registry import PREFIX_BY_VALIDATOR

    prefixes = tuple(PREFIX_BY_VALIDATOR[name] for name in validators)
    return report(repo, policy, args, findings, pages, prefixes)


def check_repo(
    args: argparse.Namespace, validators: tuple[str, ...]
) -> tuple[Path, Policy, list[Finding], int]:
    """Run the validators on the repository the options name: (repo, policy, findings with
    their columns, pages checked)."""
    from kbkit.infra.paths import repo_root
    from kbkit.tree.cache import CACHE_DIR
    from kbkit.tree.walk import walk_aside

    repo = repo_root(args.repo)
    # The walk runs in a child while this process loads the policy, the validators and the
    # parser. Without --policy it starts at once under the usual root, and is redone if the
    # repository's policy names another one. Without a cache folder there is no stat key to
    # compare: the pages' keys come from their reads (`kbkit.tree.walk.walk_root`).
    stat_pages = not args.no_cache and (repo / CACHE_DIR).is_dir()
    guess = None if args.policy else USUAL_ROOT
    walked = (
        walk_aside(repo / guess, guess, stat_pages) if guess and (repo / guess).is_dir() else None
    )
    today = parse_today(args.today)  # (its import is most of what the walk runs beside)
    from kbkit.policy.model import load_policy

    policy = load_policy(repo, args.policy)
    if not args.policy:
        from kbkit.policy.model import defaults_note

        sys.stderr.write(defaults_note(policy))
    if guess != policy.knowledge_root:
        if walked is not None:
            walked()  # the wrong folder: let the child finish
        top = repo / policy.knowledge_root
        walked = walk_aside(top, policy.knowledge_root, stat_pages) if top.is_dir() else None
    if args.staged and walked is not None:
        from kbkit.tree.staged import staged_walker

        walked = staged_walker(walked, repo, policy.knowledge_root)
    from kbkit.checks.columns import with_columns
    from kbkit.checks.runner import run_validators

    findings, pages = run_validators(
        repo, policy, validators, today, use_cache=not args.no_cache, walked=walked
    )
    findings = with_columns(findings, repo)
    if args.staged:
        findings = untracked_hints(findings, repo)
    return repo, policy, sort_findings(findings), pages


def untracked_hints(findings: list[Finding], repo: Path) -> list[Finding]:
    """A link the commit breaks because its target is on disk but not in the index says so:
    the fix is `git add`, not a new path."""
    from kbkit.checks.tree_links import link_parts

    out = []
    for finding in findings:
        parts = link_parts(finding) if finding.rule_id == "tree/link-broken" else None
        if parts is not None and parts.target and (repo / parts.target).exists():
            hint = f"{parts.target} is on disk but not tracked: `git add` it (or fix the link)"
            finding = finding._replace(message=f"broken link '{parts.written}': {hint}")
        out.append(finding)
    return out


def report(
    repo: Path,
    policy: Policy,
    args: argparse.Namespace,
    findings: list[Finding],
    pages: int,
    prefixes: tuple[str, ...],
) -> int:
    """Print the findings (only the new ones when a baseline applies); the exit code."""
    from kbkit.checks import baseline

    path = Path(args.baseline) if args.baseline else baseline.default_path(repo, policy)
    if args.baseline and not path.is_absolute() and not path.exists():
        path = repo / args.baseline
    if args.write_baseline:
        keep = [e for e in _entries_if_any(path) if not _ours(e.rule, prefixes)]
        written = baseline.write(path, findings, repo, keep)
        sys.stderr.write(f"kbkit: recorded {written} finding(s) in {path}\n")
        return 0
    if not args.baseline and not path.is_file():
        sys.stdout.write(_render(args, repo, findings, pages))
        return exit_code(args, findings)
    entries = [e for e in baseline.read(path) if _ours(e.rule, prefixes)]
    named = getattr(args, "named", None)
    if named is not None:
        from kbkit.checks.bearing import bearing

        entries = [e for e in entries if bearing([Finding(e.path, 0, e.rule, "", "")], named)]
    compared = baseline.compare(findings, entries, repo)
    out = _render(args, repo, compared.new, pages)
    summary = {
        "file": str(path),
        "known": len(compared.known),
        "fixed": [e._asdict() for e in compared.fixed],
    }
    if args.format in ("json", "sarif"):
        import json

        document = json.loads(out)
        if args.format == "json":
            document["baseline"] = summary
        else:  # a SARIF run's property bag
            document["runs"][0]["properties"] = {"baseline": summary}
        out = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    else:
        out += (
            f"baseline {path}: {len(compared.known)} known finding(s) not shown, "
            f"{len(compared.fixed)} fixed (removable: kb check --write-baseline)\n"
        )
    sys.stdout.write(out)
    return exit_code(args, compared.new)


def exit_code(args: argparse.Namespace, findings: list[Finding]) -> int:
    """1 when a finding is at least as severe as `--fail-on`, 0 otherwise or with --exit-zero."""
    if args.exit_zero:
        return 0
    errors, warnings = count(findings)
    return 1 if errors or (args.fail_on == WARNING and warnings) else 0


def _render(args: argparse.Namespace, repo: Path, findings: list[Finding], pages: int) -> str:
    if args.format == "sarif":
        from kbkit import __version__
        from kbkit.checks.baseline import fingerprints
        from kbkit.rulebook.docs import sarif_rules

        return sarif(findings, sarif_rules(), __version__, fingerprints(findings, repo))
    color = args.format == "text" and use_color(sys.stdout)
    return render(findings, args.format, "kbkit check", {"pages": pages}, color)


def _ours(rule: str, prefixes: tuple[str, ...]) -> bool:
    """Whether this run's validators report `rule` (kb/ rules come from every run)."""
    return rule.startswith((*prefixes, "kb/"))


def _entries_if_any(path: Path) -> list[Any]:
    from kbkit.checks import baseline

    return baseline.read(path) if path.is_file() else []


def main(argv: Sequence[str] | None = None) -> int:
    """Run both validators."""
    return run(argv, VALIDATORS, "kb check", __doc__ or "")
