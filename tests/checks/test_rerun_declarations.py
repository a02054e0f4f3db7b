"""Every cross-page check is declared, so the reuse layer cannot keep stale results of one.

A validator's `tree_findings` may call a `*_findings` check only when the module declares it:
in `CROSS_PAGE` (its inputs are inside the per-page digests) or as an `ALWAYS_RERUN` check,
which `tree_findings` reaches only through the declarations (the reuse layer recomputes
exactly those).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from types import ModuleType

import pytest

from kbkit.checks import Rerun
from kbkit.checks.registry import always_rerun, validator_modules
from kbkit.checks.rules import all_rules, family


def called_checks(module: ModuleType) -> set[str]:
    """The names of the `*_findings` functions `tree_findings` calls directly."""
    source = textwrap.dedent(inspect.getsource(module.tree_findings))
    return {
        node.func.id
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id.endswith("_findings")
    }


def undeclared(module: ModuleType) -> set[str]:
    """Checks `tree_findings` calls that neither declaration names."""
    declared = set(module.CROSS_PAGE)
    return {name for name in called_checks(module) if vars(module)[name] not in declared}


@pytest.mark.parametrize("name", sorted(validator_modules()))
def test_every_cross_page_check_is_declared(name: str) -> None:
    module = validator_modules()[name]
    assert called_checks(module), "tree_findings calls no *_findings check: the test is blind"
    assert undeclared(module) == set()


@pytest.mark.parametrize("name", sorted(validator_modules()))
def test_declarations_are_complete(name: str) -> None:
    module = validator_modules()[name]
    rules = set(family(f"{name}/"))
    assert rules, name
    for rerun in module.ALWAYS_RERUN:
        assert isinstance(rerun, Rerun)
        assert rerun.reads.strip()
        for prefix in rerun.rules:  # each names rules of its own validator
            assert any(rule.startswith(prefix) for rule in rules), prefix
    for check, reads in module.CROSS_PAGE.items():
        assert callable(check) and reads.strip()
        # a declared check that tree_findings no longer calls is a stale declaration
        assert check.__name__ in called_checks(module), check.__name__


def test_a_new_undeclared_check_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard itself: a check added to tree_findings without a declaration is caught."""
    from kbkit.checks import knowledge_tree

    source = textwrap.dedent(inspect.getsource(knowledge_tree.tree_findings))
    added = source.replace(
        "    return findings", "    findings.extend(new_findings(tree))\n    return findings"
    )
    fake = ModuleType("fake_validator")
    vars(fake).update(vars(knowledge_tree), new_findings=lambda tree: [])
    monkeypatch.setattr(inspect, "getsource", lambda obj: added)
    assert undeclared(fake) == {"new_findings"}


def test_the_reuse_layer_reads_the_declarations() -> None:
    """The rules a snapshot never stores are exactly the declared always-rerun ones."""
    declared = {rule for rerun in always_rerun() for rule in rerun.rules}
    assert declared == {
        "tree/duplicate-page",
        "tree/local-tracked",
        "tree/entry-too-long",
        "lint/adapter-",
    }
    assert all(any(rule.startswith(p) for rule in all_rules()) for p in declared)
