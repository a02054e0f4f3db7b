"""The two test tiers: `make test` runs the fast one, `make test-all` adds the tests marked
`slow` (real gh, pre-commit, venvs, chromium, the LSP client, crash loops, simulations).

The Makefile's `-m` expressions are read by pytest's own parser and tried on every mix of
the registered markers, so a tier that loses tests, or keeps none, fails here in a moment,
without collecting the whole suite."""

from __future__ import annotations

import itertools
import re
import tomllib
from pathlib import Path

import pytest
from _pytest.mark.expression import Expression

PROJECT = Path(__file__).resolve().parents[1]
MAKEFILE = PROJECT / "Makefile"


def registered_markers() -> list[str]:
    config = tomllib.loads((PROJECT / "pyproject.toml").read_text("utf-8"))
    return [line.split(":", 1)[0] for line in config["tool"]["pytest"]["ini_options"]["markers"]]


def make_variables() -> dict[str, str]:
    found = {}
    for line in MAKEFILE.read_text("utf-8").splitlines():
        match = re.fullmatch(r"([A-Z_]+) *[:?]?= *(.*)", line)
        if match:
            found[match[1]] = match[2].strip()
    return found


def marks_of(target: str) -> list[str]:
    """The `-m` expression of each pytest command in a target's recipe, variables expanded."""
    lines = MAKEFILE.read_text("utf-8").splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith(f"{target}:"))
    recipe = itertools.takewhile(lambda line: line.startswith("\t"), lines[start + 1 :])
    variables = make_variables()
    expressions = []
    for line in recipe:
        while match := re.search(r"\$\(([A-Z_]+)\)", line):
            line = line.replace(match[0], variables[match[1]])
        options = line.partition("-m pytest")[2]
        expressions += [
            quoted or bare for quoted, bare in re.findall(r"-m (?:'([^']*)'|(\S+))", options)
        ]
    assert expressions, f"make {target} runs no pytest with -m"
    return expressions


def selects(expression: str, marks: set[str]) -> bool:
    """Whether `pytest -m EXPRESSION` keeps a test carrying these marks."""

    def carries(name: str, /, **_: str | int | bool | None) -> bool:
        return name in marks

    return Expression.compile(expression).evaluate(carries)


def every_mix() -> list[set[str]]:
    names = registered_markers()
    return [
        set(mix) for size in range(len(names) + 1) for mix in itertools.combinations(names, size)
    ]


def test_the_slow_marker_is_registered_beside_stress() -> None:
    assert {"slow", "stress"} <= set(registered_markers())


def test_make_test_all_runs_every_test_but_the_stress_runs() -> None:
    (everything,) = marks_of("test-all")
    for marks in every_mix():
        assert selects(everything, marks) == ("stress" not in marks), (everything, marks)


def test_make_test_leaves_out_exactly_the_slow_tier() -> None:
    (fast,) = marks_of("test")
    for marks in every_mix():
        assert selects(fast, marks) == ("stress" not in marks and "slow" not in marks), marks
    assert marks_of("test-dates") == [fast, fast]
    assert marks_of("stress") == ["stress"]


def test_a_test_without_the_mark_is_in_the_fast_tier(request: pytest.FixtureRequest) -> None:
    """This test carries no mark: nothing (a conftest hook, a file mark) may move it."""
    (fast,) = marks_of("test")
    marks = {mark.name for mark in request.node.iter_markers()}
    assert "slow" not in marks and selects(fast, marks)


def test_the_slow_tier_holds_tests_and_ci_runs_both_tiers() -> None:
    marked = [
        p
        for p in (PROJECT / "tests").rglob("test_*.py")
        if "pytest.mark.slow" in p.read_text("utf-8")
    ]
    assert len(marked) >= 10
    steps = (PROJECT / ".ci" / "run").read_text("utf-8").splitlines()
    assert "make test-all" in steps and "make test" not in steps
