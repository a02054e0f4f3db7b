"""One check run as the check commands make it: the repository, its policy, the findings.

The command starts the walk in a forked child before it imports this package
(`kbkit.commands.check.start`), and this process loads the policy, the validators and the
parser meanwhile; `--staged` narrows it to the
commit's tree. The findings come back sorted, link findings with their columns
(`kbkit.checks.columns`), and in staged mode a link to a page that is on disk but not added
says so.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from kbkit.infra import clock
from kbkit.infra.errors import UsageError
from kbkit.rulebook.findings import Finding, sort_findings

if TYPE_CHECKING:
    from kbkit.policy.model import Policy
    from kbkit.tree.walk import Walk


def parse_today(value: str | None) -> date:
    if value is None:
        return clock.today()
    from kbkit.checks.rules.lint.fields import parse_date

    today = parse_date(value)
    if today is None:
        raise UsageError(f"--today {value!r}: expected a real date written YYYY-MM-DD")
    return today


class CheckOptions(NamedTuple):
    """What the check commands' options ask of a run: `--today`, `--policy`, `--staged`,
    `--no-cache`."""

    today: str | None = None  # YYYY-MM-DD (None: today, from kbkit.infra.clock)
    policy: str | None = None  # a built-in profile or a policy file (None: the repository's)
    staged: bool = False
    no_cache: bool = False


class Started(NamedTuple):
    """A check begun by the command before it imports this package: the repository and the
    walk already running in a child under the usual root (`kbkit.commands.check.start`)."""

    repo: Path
    guess: str | None  # the root the walk was started under (None: none started)
    walked: Callable[[], Walk] | None
    stat_pages: bool


def check_repo(
    args: CheckOptions, validators: tuple[str, ...], started: Started
) -> tuple[Path, Policy, list[Finding], int]:
    """Run the validators on the repository the options name: (repo, policy, findings with
    their columns, pages checked)."""
    from kbkit.tree.walk import PAGE_SUFFIXES, walk_aside

    repo, guess, walked, stat_pages = started
    today = parse_today(args.today)  # (its import is most of what the walk runs beside)
    from kbkit.policy.model import load_policy

    policy = load_policy(repo, args.policy)
    if not args.policy:
        from kbkit.policy.model import defaults_note

        sys.stderr.write(defaults_note(policy))
    suffixes = policy.page_suffixes
    if guess != policy.knowledge_root or suffixes != PAGE_SUFFIXES:
        if walked is not None:
            walked()  # the wrong folder (or pages of other suffixes): let the child finish
        top = repo / policy.knowledge_root
        walked = (
            walk_aside(top, policy.knowledge_root, stat_pages, suffixes) if top.is_dir() else None
        )
    if args.staged and walked is not None:
        from kbkit.tree.staged import staged_walker

        walked = staged_walker(walked, repo, policy.knowledge_root, suffixes)
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
    from kbkit.checks.rules.tree.links import link_parts

    out = []
    for finding in findings:
        parts = link_parts(finding) if finding.rule_id == "tree/link-broken" else None
        if parts is not None and parts.target and (repo / parts.target).exists():
            hint = f"{parts.target} is on disk but not tracked: `git add` it (or fix the link)"
            finding = finding._replace(message=f"broken link '{parts.written}': {hint}")
        out.append(finding)
    return out
