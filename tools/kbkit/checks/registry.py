"""Which validators exist and the per-page analysis the loader caches (the rules themselves:
`kbkit.checks.rules`).

Each validator module has `page_findings(rel, page, policy)` (pure, one page: run
while the tree loads, cached with the page), `tree_findings(tree, context)` (cross-page) and
the declarations `CROSS_PAGE` and `ALWAYS_RERUN` (`kbkit.checks`). The runner
(`kbkit.checks.runner`) runs them; imports go runner -> incremental -> registry.
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

from kbkit.checks import Rerun
from kbkit.pages.page import Page
from kbkit.policy.model import Policy
from kbkit.rulebook.findings import Finding
from kbkit.tree.model import Analysis

PREFIX_BY_VALIDATOR = {"tree": "tree/", "lint": "lint/"}


@functools.cache  # asked once per page while the tree loads: the import machinery costs 2%
def validator_modules() -> dict[str, ModuleType]:
    from kbkit.checks import knowledge_tree, wiki_lint

    return {"tree": knowledge_tree, "lint": wiki_lint}


def analyze_page(rel: str, page: Page, policy: Policy) -> Analysis:
    """Page-local findings and facts of every validator (cached with the page). The
    validators' facts share one flat mapping (their keys differ)."""
    findings: list[Finding] = []
    facts: dict[str, Any] = {}
    for module in validator_modules().values():
        findings.extend(module.page_findings(rel, page, policy))
        facts.update(module.page_facts(rel, page, policy))
    return findings, facts


def always_rerun(names: tuple[str, ...] | None = None) -> list[Rerun]:
    """The declared always-rerun checks of the named validators (None: of all of them)."""
    modules = validator_modules()
    chosen = modules if names is None else {name: modules[name] for name in names}
    return [rerun for module in chosen.values() for rerun in module.ALWAYS_RERUN]
