"""Which validators exist, and the one entry point that runs them on a repository.

Each validator module has `RULES`, `page_findings(rel, page, policy)` (pure, one page: run
while the tree loads, cached with the page) and `tree_findings(tree, context)` (cross-page).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from types import ModuleType
from typing import Any

from kbkit.checks import Context, Rule, Run, checker_run, finish
from kbkit.findings import Finding
from kbkit.page import Page
from kbkit.policy import Policy
from kbkit.tree import Analysis, LoadOptions, Tree, Walk, load_tree

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


def load_for_checks(
    repo: Path, policy: Policy, use_cache: bool = False, walk: Walk | None = None
) -> Tree:
    """The tree as the validators read it: summaries, facts and page-local findings only."""
    options = LoadOptions(analyze=analyze_page, use_cache=use_cache, keep_pages=False)
    return load_tree(repo, policy, options, walk)


def run_validators(
    repo: Path,
    policy: Policy,
    names: tuple[str, ...],
    today: date,
    use_cache: bool = True,
    walked: Callable[[], Walk] | None = None,
) -> tuple[list[Finding], int]:
    """Load the tree once and run the named validators; returns (findings, pages checked).
    With the cache, a run whose changes cannot affect cross-page results reuses the previous
    run's (`kbkit.checks.incremental`); `walked` is a walk of the tree already under way
    (`kbkit.walk.walk_aside`)."""
    if not use_cache:
        tree = load_for_checks(repo, policy, walk=walked() if walked else None)
        return check_tree(tree, names, today), checked_pages(tree, names)
    from kbkit.checks import incremental

    started_ns = time.time_ns()
    reused = incremental.try_reuse(repo, policy, names, today, started_ns, walked)
    if isinstance(reused, incremental.Reused):
        return reused.findings, reused.pages
    walks = [reused] if reused is not None else []
    del reused  # handed over (popped) so that the load can release the walk before it parses
    tree = load_for_checks(repo, policy, use_cache=True, walk=walks.pop() if walks else None)
    run = validator_run(tree, names, today)
    pages = checked_pages(tree, names)
    incremental.save(tree, names, today, run, pages, started_ns)
    return finish(run, policy), pages


def checked_pages(tree: Tree, names: tuple[str, ...]) -> int:
    if names == ("lint",):
        from kbkit.checks import wiki_lint

        return len(wiki_lint.scope(tree))  # the pages lint checked
    return sum(1 for rel in tree.summaries if tree.in_roots(rel))


def validator_run(tree: Tree, names: tuple[str, ...], today: date) -> Run:
    """Run the named validators on a loaded tree, before suppressions apply (page-level
    findings come from the load)."""
    modules = validator_modules()
    prefixes = tuple(PREFIX_BY_VALIDATOR[name] for name in names)
    local: dict[str, list[Finding]] = {}
    for rel, findings in tree.analysis.items():
        mine = [finding for finding in findings if finding.rule_id.startswith(prefixes)]
        if mine:
            local[rel] = mine
    checkers = {name: modules[name].tree_findings for name in names}
    return checker_run(tree, checkers, Context(today), local)


def check_tree(tree: Tree, names: tuple[str, ...], today: date) -> list[Finding]:
    """Run the named validators on a loaded tree."""
    return finish(validator_run(tree, names, today), tree.policy)
