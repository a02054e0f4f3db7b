"""Which validators exist, and the one entry point that runs them on a repository.

Each validator module has `RULES`, `page_findings(rel, page, policy)` (pure, one page: run
while the tree loads, cached with the page) and `tree_findings(tree, context)` (cross-page).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from types import ModuleType
from typing import Any

from kbkit.checks import Context, Rule, run_checkers
from kbkit.findings import Finding
from kbkit.page import Page
from kbkit.policy import Policy
from kbkit.tree import Analysis, LoadOptions, Tree, load_tree

PREFIX_BY_VALIDATOR = {"tree": "tree/", "lint": "lint/"}


def validator_modules() -> dict[str, ModuleType]:
    from kbkit.checks import knowledge_tree, wiki_lint

    return {"tree": knowledge_tree, "lint": wiki_lint}


def all_rules() -> dict[str, Rule]:
    from kbkit.checks import SUPPRESSION_INVALID, SUPPRESSION_UNUSED, UNREADABLE

    rules: dict[str, Rule] = {}
    for module in validator_modules().values():
        rules.update(module.RULES)
    for rule in (SUPPRESSION_UNUSED, SUPPRESSION_INVALID, UNREADABLE):
        rules[rule.id] = rule
    return rules


def analyze_page(rel: str, page: Page, policy: Policy) -> Analysis:
    """Page-local findings and facts of every validator (cached with the page). The
    validators' facts share one flat mapping (their keys differ)."""
    findings: list[Finding] = []
    facts: dict[str, Any] = {}
    for module in validator_modules().values():
        findings.extend(module.page_findings(rel, page, policy))
        facts.update(module.page_facts(rel, page, policy))
    return findings, facts


def load_for_checks(repo: Path, policy: Policy, use_cache: bool = False) -> Tree:
    """The tree as the validators read it: summaries, facts and page-local findings only."""
    options = LoadOptions(analyze=analyze_page, use_cache=use_cache, keep_pages=False)
    return load_tree(repo, policy, options)


def run_validators(
    repo: Path, policy: Policy, names: tuple[str, ...], today: date, use_cache: bool = True
) -> tuple[list[Finding], int]:
    """Load the tree once and run the named validators; returns (findings, pages checked)."""
    tree = load_for_checks(repo, policy, use_cache)
    findings = check_tree(tree, names, today)
    if names == ("lint",):
        from kbkit.checks import wiki_lint

        return findings, len(wiki_lint.scope(tree))  # the pages lint checked
    return findings, sum(1 for rel in tree.summaries if tree.in_roots(rel))


def check_tree(tree: Tree, names: tuple[str, ...], today: date) -> list[Finding]:
    """Run the named validators on a loaded tree (page-level findings come from the load)."""
    modules = validator_modules()
    prefixes = tuple(PREFIX_BY_VALIDATOR[name] for name in names)
    page_level = [
        finding
        for findings in tree.analysis.values()
        for finding in findings
        if finding.rule_id.startswith(prefixes)
    ]
    checkers = {name: modules[name].tree_findings for name in names}
    return run_checkers(tree, checkers, Context(today), page_level)
