"""The mutation tool (`benchmarks.mutation`): its four operators and the in-place install.

Fast checks on a small module of its own; the runs over kbkit's areas are `make stress`.
"""

from __future__ import annotations

import ast
import sys
import types
from pathlib import Path

import pytest
from benchmarks.mutation import AREAS, install, mutants_of, mutate, score

SOURCE = '''"""Docstring: never mutated."""

from __future__ import annotations

LIMIT = 3
RANK = {"low": 0, "high": 1}


def check(value: int, name: str = "x") -> bool:
    """Also never mutated."""
    if value > LIMIT:
        raise ValueError("too big")
    total = [v for v in range(value) if v % 2]
    return name == "ok" or bool(total)


class Box:
    size: int = 5

    def grow(self) -> int:
        return RANK["high"] + 1
'''


def _module(tmp_path: Path, name: str) -> types.ModuleType:
    path = tmp_path / f"{name}.py"
    path.write_text(SOURCE)
    module = types.ModuleType(name)
    module.__file__ = str(path)
    exec(compile(SOURCE, str(path), "exec"), vars(module))
    sys.modules[name] = module
    return module


def test_every_operator_finds_its_sites_and_nothing_in_docstrings_or_annotations() -> None:
    found = mutants_of("sample", SOURCE)
    text = "\n".join(m.description for m in found)
    assert "Docstring" not in text and "never mutated" not in text
    assert {m.operator for m in found} == {"negate", "drop", "return", "constant"}
    assert "negate: value > LIMIT" in text
    assert "negate: comprehension if: v % 2" in text
    assert "drop: raise ValueError('too big')" in text
    assert "return: return name == 'ok' or bool(total)" in text
    assert "constant: 3 -> 4" in text and "constant: 'high' -> 'high_mutated'" in text
    assert "constant: 'too big'" not in text  # a message is not behaviour
    assert "constant: 5 -> 6" not in text  # a class field default: not installable live
    assert [m.number for m in found] == list(range(len(found)))
    assert mutants_of("sample", SOURCE) == found  # stable: the seeded sample depends on it


def test_each_mutant_compiles_and_changes_the_tree() -> None:
    original = ast.dump(ast.parse(SOURCE))
    for mutant in mutants_of("sample", SOURCE):
        tree = mutate(SOURCE, mutant)
        compile(tree, "sample.py", "exec")
        assert ast.dump(tree) != original, mutant


def test_install_swaps_code_into_the_live_functions(tmp_path: Path) -> None:
    module = _module(tmp_path, "kbkit_mutation_sample")
    try:
        check, grow = module.check, module.Box.grow  # references held elsewhere
        assert check(1) is False and grow(module.Box()) == 2
        by_text = {m.description: m for m in mutants_of(module.__name__, SOURCE)}
        install(module, mutate(SOURCE, by_text["return: return name == 'ok' or bool(total)"]))
        assert check(1) is None  # the old reference runs the mutant
        install(module, mutate(SOURCE, by_text["constant: 1 -> 2"]))
        assert grow(module.Box()) == 3
        install(module, mutate(SOURCE, by_text["constant: 3 -> 4"]))
        assert module.LIMIT == 4 and check(4) is True  # unmutated, 4 > 3 raises
    finally:
        del sys.modules["kbkit_mutation_sample"]


def test_every_area_names_existing_modules_and_tests() -> None:
    project = Path(__file__).resolve().parents[2]
    for modules, tests in AREAS.values():
        for name in modules:
            assert (project / "tools" / (name.replace(".", "/") + ".py")).is_file(), name
        for test in tests:
            assert (project / test).is_file(), test


@pytest.mark.parametrize(
    ("statuses", "expected"),
    [
        (["killed", "survived", "timeout", "not-installable"], (2, 3)),
        ([], (0, 0)),
    ],
)
def test_score_counts_timeouts_as_killed(statuses: list[str], expected: tuple[int, int]) -> None:
    from benchmarks.mutation import Mutant, Outcome

    mutant = Mutant("m", 0, "drop", 1, "drop: x")
    assert score([Outcome(mutant, s, 0.0) for s in statuses]) == expected
