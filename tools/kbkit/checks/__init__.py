"""The engine the rules run in: one tree model, one registry shape, one suppression pass.

The rules live in `kbkit.checks.rules` (declared once per family, checked in the family's
modules). Each validator module (`knowledge_tree`, `wiki_lint`) composes its family's checks:
page-local `page_findings` and `page_facts`, and a cross-page
`tree_findings(tree, context)` that reads page summaries and facts only. It declares its
cross-page checks: `CROSS_PAGE` (check -> what it reads; all of it inside the per-page
digests and the snapshot's namespace) and `ALWAYS_RERUN` (`Rerun`: the checks that read
outside them, which a reused run recomputes).

May import: `kbkit.tree`, `kbkit.policy`, `kbkit.sites`, `kbkit.pages`, `kbkit.rulebook`, `kbkit.vcs`, `kbkit.infra`.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable
from datetime import date
from typing import NamedTuple

from kbkit.checks.rules.kb import RULES as KB_RULES
from kbkit.checks.rules.kb import SUPPRESSION_INVALID, SUPPRESSION_UNUSED, UNREADABLE
from kbkit.pages.page_summary import WHOLE_FILE
from kbkit.policy.model import Policy
from kbkit.rulebook.findings import ERROR, WARNING, Finding, sort_findings
from kbkit.rulebook.rule import Rule
from kbkit.tree.model import Tree


class Context(NamedTuple):
    today: date


Fingerprints = list[tuple[str, bytes]]  # (root-relative page, body fingerprint), sorted


class Rerun(NamedTuple):
    """A cross-page check whose inputs the per-page digests leave out: a run that reuses the
    previous results (`kbkit.checks.incremental`) recomputes it, and never stores its findings."""

    rules: tuple[str, ...]  # the rule ids (or id prefixes) it reports
    reads: str  # what it reads that the digests do not cover
    check: Callable[[Tree, Fingerprints], list[Finding]]


class Suppression(NamedTuple):
    path: str
    line: int  # line of the comment
    target_line: int  # the line it covers (WHOLE_FILE: every line of the page)
    rule_id: str
    reason: str
    folder: str = ""  # a kb-disable-file on a folder's index page covers the folder too


def suppressions(tree: Tree, only: str | None = None) -> tuple[list[Suppression], list[Finding]]:
    """Every kb-disable-next-line comment of the tree (or of the page `only`), and findings
    for malformed ones."""
    found: list[Suppression] = []
    problems: list[Finding] = []
    index_page = str(tree.policy.data["index_page"])
    pages = tree.summaries.items() if only is None else [(only, tree.summaries[only])]
    for rel, summary in pages:
        for line, target, rule_id, reason in summary.suppressions:
            path = tree.repo_path(rel)
            if not rule_id or not reason:
                problems.append(
                    SUPPRESSION_INVALID.at(
                        path,
                        line,
                        "write `<!-- kb-disable-next-line RULE-ID: reason -->` or "
                        "`<!-- kb-disable-file RULE-ID: reason -->`; "
                        "both the rule id and a reason are required",
                    )
                )
                continue
            folder = ""
            if target == WHOLE_FILE and posixpath.basename(rel) == index_page:
                folder = posixpath.dirname(path)
            found.append(Suppression(path, line, target, rule_id, reason, folder))
    return found, problems


def apply_suppressions(
    entries: list[Suppression],
    problems: list[Finding],
    findings: Iterable[Finding],
    prefixes: tuple[str, ...],
) -> list[Finding]:
    """Drop suppressed findings; report unused suppressions for the validators that ran and
    malformed ones (`problems`). A `kb-disable-file` comment covers every finding of its rule
    on its page and, on a folder's index page, the findings reported on the folder itself."""
    by_key: dict[tuple[str, int, str], Suppression] = {}
    for s in entries:
        by_key[(s.path, s.target_line, s.rule_id)] = s
        if s.folder:
            by_key.setdefault((s.folder, WHOLE_FILE, s.rule_id), s)
    used: set[Suppression] = set()
    kept: list[Finding] = []
    for finding in findings:
        hit = by_key.get((finding.path, finding.line, finding.rule_id)) or by_key.get(
            (finding.path, WHOLE_FILE, finding.rule_id)
        )
        if hit is None:
            kept.append(finding)
        else:
            used.add(hit)
    from kbkit.checks.rules import all_rules, unknown_rule

    known = all_rules()
    for entry in entries:
        if entry.rule_id not in known:  # a typo: it could never suppress anything
            kept.append(
                SUPPRESSION_INVALID.at(
                    entry.path,
                    entry.line,
                    f"{unknown_rule(entry.rule_id)} in this suppression comment",
                )
            )
        elif entry not in used and entry.rule_id.startswith(prefixes):
            where = (
                "in this file"
                if entry.target_line == WHOLE_FILE
                else f"on line {entry.target_line}"
            )
            kept.append(
                SUPPRESSION_UNUSED.at(
                    entry.path,
                    entry.line,
                    f"nothing to suppress: no {entry.rule_id} finding {where}",
                )
            )
    kept.extend(problems)
    return kept


Checker = Callable[[Tree, Context], list[Finding]]


class Run(NamedTuple):
    """A validator run before suppressions apply: what a result snapshot stores."""

    prefixes: tuple[str, ...]  # rule-id prefixes of the validators that ran
    local: dict[str, list[Finding]]  # page-local findings of those validators, by page
    cross: list[Finding]  # walk problems, unreadable pages and the cross-page findings
    suppressions: list[Suppression]
    invalid: list[Finding]  # malformed suppressions


def checker_run(
    tree: Tree,
    checkers: dict[str, Checker],
    context: Context,
    local: dict[str, list[Finding]] | None = None,
) -> Run:
    """Run the named checkers on one tree."""
    walk_rules = {rule.id: rule for rule in KB_RULES}  # the walk reports kbkit's own rules
    cross = [walk_rules[p.rule_id].at(p.path, 0, p.message) for p in tree.problems]
    cross.extend(
        UNREADABLE.at(tree.repo_path(rel), 0, summary.error)
        for rel, summary in tree.summaries.items()
        if summary.error is not None
    )
    for checker in checkers.values():
        cross.extend(checker(tree, context))
    prefixes = tuple(f"{name}/" for name in checkers)
    entries, invalid = suppressions(tree)
    return Run(prefixes, local or {}, cross, entries, invalid)


def finish(run: Run, policy: Policy | None = None) -> list[Finding]:
    """The run's findings with suppressions, then the policy's severities applied, in report
    order (suppressions apply across all validators that ran)."""
    from kbkit.checks.scopes import apply_severities

    findings = [*run.cross, *(f for found in run.local.values() for f in found)]
    kept = apply_suppressions(run.suppressions, run.invalid, findings, run.prefixes)
    return sort_findings(apply_severities(kept, policy))


__all__ = [
    "ERROR",
    "WARNING",
    "Checker",
    "Context",
    "Fingerprints",
    "Rerun",
    "Rule",
    "Run",
    "checker_run",
    "finish",
]
