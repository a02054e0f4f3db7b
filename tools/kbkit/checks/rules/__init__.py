"""The rules of `kb check`, one family per folder (`tree/`, `lint/`, `kb/`): each rule is
declared once (`kbkit.rulebook.rule.Rule`) in its family's `__init__.py`, and the family's
modules hold the checks that report it.

This module is the registry: one line per family. Everything said about rules is made
from it: `kb rules`, `kb rule ID`, the policy schema's list of rule ids and the rule reference
page (`kbkit.checks.rules.reference`), SARIF's rule metadata, and each finding's severity
(`kbkit.checks.scopes.apply_severities`). The declarations import nothing of the checks, so
the engine and the checks both read them without an import cycle.
"""

from __future__ import annotations

import functools
from types import ModuleType

from kbkit.checks.rules import kb, lint, tree
from kbkit.rulebook.rule import Rule
from kbkit.rulebook.rule import unknown_rule as _unknown_rule

FAMILIES: tuple[ModuleType, ...] = (tree, lint, kb)  # one line per family


@functools.cache
def all_rules() -> dict[str, Rule]:
    """Every rule by id, in declaration order."""
    return {rule.id: rule for family in FAMILIES for rule in family.RULES}


def family(prefix: str) -> dict[str, Rule]:
    """The rules whose ids start with `prefix` (`tree/`, `lint/`, `kb/`)."""
    return {rule_id: rule for rule_id, rule in all_rules().items() if rule_id.startswith(prefix)}


def unknown_rule(typed: str) -> str:
    """The words for a rule id no validator has: `unknown rule 'x': did you mean 'y'?`."""
    return _unknown_rule(typed, list(all_rules()))
