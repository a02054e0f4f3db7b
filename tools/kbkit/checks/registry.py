"""Which validators exist, and the one entry point that runs them on a repository."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from kbkit.checks import Checker, Context, Rule, run_checkers
from kbkit.findings import Finding
from kbkit.policy import Policy
from kbkit.tree import load_tree


def checkers() -> dict[str, Checker]:
    from kbkit.checks import knowledge_tree, wiki_lint

    return {"tree": knowledge_tree.run, "lint": wiki_lint.run}


def all_rules() -> dict[str, Rule]:
    from kbkit.checks import (
        SUPPRESSION_INVALID,
        SUPPRESSION_UNUSED,
        UNREADABLE,
        knowledge_tree,
        wiki_lint,
    )

    rules = {**knowledge_tree.RULES, **wiki_lint.RULES}
    rules[SUPPRESSION_UNUSED.id] = SUPPRESSION_UNUSED
    rules[SUPPRESSION_INVALID.id] = SUPPRESSION_INVALID
    rules[UNREADABLE.id] = UNREADABLE
    return rules


def run_validators(
    repo: Path, policy: Policy, names: tuple[str, ...], today: date, use_cache: bool = True
) -> tuple[list[Finding], int]:
    """Load the tree once and run the named validators; returns (findings, pages checked)."""
    tree = load_tree(repo, policy)
    available = checkers()
    selected = {name: available[name] for name in names}
    findings = run_checkers(tree, selected, Context(today))
    if names == ("lint",):
        from kbkit.checks import wiki_lint

        return findings, len(wiki_lint.scope(tree))  # the pages lint checked
    return findings, sum(1 for rel in tree.pages if tree.in_roots(rel))
