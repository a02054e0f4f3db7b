"""Mutation testing of the curator's apply, the intake ledger's fold and lessons selection.

Why: a suite can pass while a refusal branch no test reaches is deleted (issue 37 found the
curator's apply at 55%). A mutant is the module with one small change; the area's own tests
must fail on it ("killed"), else it "survived" and is either a hole to close with a test or
an equivalent change to name with its reason (`benchmarks/results/mutation.md`).

Four operators, on the AST: negate a condition (`if`, `while`, `x if c else y`, a
comprehension's `if`), drop a statement (replace it with `pass`, inside functions), change a
return value (`return x` -> `return None`, a boolean returned negated) and change a constant
(a number +1, a boolean flipped, a string compared or used as a key gets a suffix).
Docstrings and annotations are never mutated.

Cost, on two shared cores: kbkit and the area's test modules are imported once; each mutant
runs in a forked child of that warm process, which swaps the mutated code objects into the
live functions (the function objects keep their identity, so a name another module imported
runs the mutant too) and runs the area's own tests with `-x`, under a timeout of a few times
the unmutated run. Code in a subprocess a test starts (a validator, a worker) runs unmutated.
Mutants are sampled with a fixed seed (`--sample N` per area, `--seed`), so two runs on the
same sources pick the same mutants. `python -m benchmarks.mutation [AREA...] [--sample N]`.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import contextlib
import copy
import io
import json
import os
import random
import signal
import sys
import time
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

PROJECT = Path(__file__).resolve().parents[1]

# area -> (modules mutated, the tests that cover them: the area's own test files)
AREAS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "curator-apply": (
        ("kbkit.curator.apply",),
        (  # fastest first: with -x a killed mutant stops at its first failing test
            "tests/curator/test_apply_after_validation.py",
            "tests/curator/test_apply.py",
            "tests/curator/test_new_page.py",
            "tests/curator/test_gate_modes.py",  # the apply's gate: no new findings, or clean
        ),
    ),
    "intake-ledger": (
        ("kbkit.intake.ledger", "kbkit.intake.ledger_reading"),
        (
            "tests/intake/test_ledger_fold_contracts.py",
            "tests/intake/test_ledger.py",
            "tests/intake/test_union_merge.py",
        ),
    ),
    "lessons-selection": (
        ("kbkit.lessons.selection",),
        (
            "tests/lessons/test_lessons_selection_contracts.py",
            "tests/lessons/test_lessons_selection.py",
            "tests/lessons/test_lessons_across_time.py",
            "tests/lessons/test_lessons_defects.py",  # one finding's two lessons share a slot
        ),
    ),
}

NEGATE, DROP, RETURN, CONSTANT = "negate", "drop", "return", "constant"


class Mutant(NamedTuple):
    module: str
    number: int  # the site's position in the module's walk (stable for the same source)
    operator: str
    line: int
    description: str


class Outcome(NamedTuple):
    mutant: Mutant
    status: str  # killed | survived | timeout | not-installable
    seconds: float


# ---------------------------------------------------------------------------- the mutator


def _docstring(node: ast.AST) -> ast.AST | None:
    body = getattr(node, "body", None)
    if (
        isinstance(body, list)
        and body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        return body[0]
    return None


def _skipped_fields(node: ast.AST) -> set[str]:
    """Fields never walked: annotations (strings under `from __future__ import annotations`)."""
    if isinstance(node, ast.arg):
        return {"annotation"}
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return {"returns", "decorator_list"}
    if isinstance(node, ast.AnnAssign):
        return {"annotation"}
    if isinstance(node, ast.ClassDef):
        return {"bases", "keywords", "decorator_list"}
    return set()


def _sites(tree: ast.Module) -> Iterator[tuple[str, ast.AST, ast.AST | None, str]]:
    """(operator, node, parent, field) of every mutation site, in a stable walk order."""

    def walk(node: ast.AST, in_function: bool, in_class_body: bool) -> Iterator[Any]:
        doc = _docstring(node)
        skip = _skipped_fields(node)
        inner = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for field, value in ast.iter_fields(node):
            if field in skip:
                continue
            children = value if isinstance(value, list) else [value]
            for child in children:
                if not isinstance(child, ast.AST) or child is doc:
                    continue
                if isinstance(child, ast.stmt) and inner and _droppable(child):
                    yield DROP, child, node, field
                if isinstance(child, ast.If | ast.While | ast.IfExp) and inner:
                    yield NEGATE, child, node, field
                if isinstance(child, ast.comprehension):
                    for position in range(len(child.ifs)):
                        yield NEGATE, child, node, f"ifs:{position}"
                if isinstance(child, ast.Return) and child.value is not None:
                    yield RETURN, child, node, field
                if (
                    isinstance(child, ast.Constant)
                    and not (in_class_body and not inner)
                    and _mutable_constant(child, node)
                ):
                    yield CONSTANT, child, node, field
                class_body = in_class_body or isinstance(child, ast.ClassDef)
                yield from walk(child, inner, class_body and not inner)

    yield from walk(tree, False, False)


def _droppable(node: ast.stmt) -> bool:
    if isinstance(node, ast.Pass | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return False
    if isinstance(node, ast.Return) and node.value is not None:
        return False  # "change a return value" already makes it return None
    return not isinstance(node, ast.Import | ast.ImportFrom | ast.Global | ast.Nonlocal)


def _mutable_constant(node: ast.Constant, parent: ast.AST) -> bool:
    value = node.value
    if isinstance(value, bool) or (isinstance(value, int | float) and not isinstance(value, bool)):
        return True
    if isinstance(value, str):
        # a string compared, or a key / index: a message's text is not a behaviour here
        return isinstance(parent, ast.Compare | ast.Subscript | ast.Dict) or (
            isinstance(parent, ast.Call)
            and isinstance(parent.func, ast.Attribute)
            and parent.func.attr in {"get", "startswith", "endswith", "setdefault"}
        )
    return False


def _changed_constant(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    return f"{value}_mutated"


def _describe(operator: str, node: ast.AST) -> str:
    text = ast.unparse(node).split("\n")[0]
    if operator == NEGATE and isinstance(node, ast.If | ast.While | ast.IfExp):
        text = ast.unparse(node.test)
    if operator == NEGATE and isinstance(node, ast.comprehension):
        text = "comprehension if: " + " and ".join(ast.unparse(i) for i in node.ifs)
    if operator == CONSTANT and isinstance(node, ast.Constant):
        text = f"{node.value!r} -> {_changed_constant(node.value)!r}"
    return f"{operator}: {text[:90]}"


def mutants_of(module: str, source: str) -> list[Mutant]:
    tree = ast.parse(source)
    found = []
    for index, (operator, node, _parent, _field) in enumerate(_sites(tree)):
        where = node.iter if isinstance(node, ast.comprehension) else node
        lineno = int(getattr(where, "lineno", 0))
        found.append(Mutant(module, index, operator, lineno, _describe(operator, node)))
    return found


def mutate(source: str, mutant: Mutant) -> ast.Module:
    """The module's tree with the one change `mutant` names."""
    tree = ast.parse(source)
    for index, (operator, node, parent, field) in enumerate(_sites(tree)):
        if index != mutant.number:
            continue
        assert operator == mutant.operator and parent is not None
        if operator == DROP:
            replacement: ast.AST = ast.Pass()
        elif operator == NEGATE and isinstance(node, ast.comprehension):
            position = int(field.split(":")[1])
            node.ifs[position] = ast.UnaryOp(ast.Not(), node.ifs[position])
            return ast.fix_missing_locations(tree)
        elif operator == NEGATE:
            replacement = copy.copy(node)
            replacement.test = ast.UnaryOp(ast.Not(), node.test)  # type: ignore[attr-defined]
        elif operator == RETURN:
            assert isinstance(node, ast.Return) and node.value is not None
            value = node.value
            if isinstance(value, ast.Constant) and value.value is None:
                new_value: ast.expr = ast.Constant(1)
            elif isinstance(value, ast.Constant) and isinstance(value.value, bool):
                new_value = ast.Constant(not value.value)
            else:
                new_value = ast.Constant(None)
            replacement = ast.Return(new_value)
        else:
            assert isinstance(node, ast.Constant)
            replacement = ast.Constant(_changed_constant(node.value))
        _replace(parent, field, node, ast.copy_location(replacement, node))
        return ast.fix_missing_locations(tree)
    raise LookupError(f"{mutant.module}: no site {mutant.number}")


def _replace(parent: ast.AST, field: str, old: ast.AST, new: ast.AST) -> None:
    value = getattr(parent, field)
    if isinstance(value, list):
        value[value.index(old)] = new
    else:
        setattr(parent, field, new)


# ---------------------------------------------------------------- installing a mutant


class NotInstallable(Exception):
    pass


def _function_of(value: Any) -> types.FunctionType | None:
    value = getattr(value, "__wrapped__", value)  # functools.cache and friends
    if isinstance(value, classmethod | staticmethod):
        value = value.__func__
    return value if isinstance(value, types.FunctionType) else None


def _swap(old: Any, new: Any, filename: str) -> bool:
    """Give `old` the code of `new` (same function object, so every reference runs it)."""
    old_f, new_f = _function_of(old), _function_of(new)
    if old_f is None or new_f is None or old_f.__code__.co_filename != filename:
        return False
    try:
        old_f.__code__ = new_f.__code__
    except ValueError as exc:  # a different closure shape
        raise NotInstallable(str(exc)) from exc
    old_f.__defaults__, old_f.__kwdefaults__ = new_f.__defaults__, new_f.__kwdefaults__
    clear = getattr(old, "cache_clear", None)
    if callable(clear):
        clear()
    return True


def install(module: types.ModuleType, tree: ast.Module) -> None:
    """Run the mutated module and move its code into the live module's functions."""
    filename = str(module.__file__)
    namespace: dict[str, Any] = {
        "__name__": module.__name__,
        "__file__": filename,
        "__package__": module.__package__,
        "__builtins__": builtins,
    }
    exec(compile(tree, filename, "exec"), namespace)
    live = vars(module)
    for name, new in namespace.items():
        old = live.get(name)
        if old is new or name.startswith("__"):
            continue
        if _swap(old, new, filename):
            continue
        if isinstance(old, type) and isinstance(new, type) and old.__module__ == module.__name__:
            for attr, value in vars(new).items():
                current = vars(old).get(attr)
                if isinstance(value, property) and isinstance(current, property):
                    _swap(current.fget, value.fget, filename)
                else:
                    _swap(current, value, filename)
            continue
        if _function_of(new) is None and not isinstance(new, type | types.ModuleType):
            live[name] = new  # a module-level constant the module's functions read


# ---------------------------------------------------------------------- running mutants


def _pytest_args(tests: tuple[str, ...]) -> list[str]:
    return [
        *(str(PROJECT / t) for t in tests if (PROJECT / t).exists()),
        "-x",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-m",
        "not stress and not e2e and not corpus",
        f"--rootdir={PROJECT}",
    ]


def _run_child(work: Callable[[], int], timeout: float) -> tuple[str, float]:
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: its own process group, so a timeout kills what it started
        code = 3
        try:
            os.setpgid(0, 0)
            if not os.environ.get("KBKIT_MUTATION_SHOW"):  # set it to see the tests' output
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 1)
                os.dup2(null, 2)
            code = work()
        except NotInstallable:
            code = 100
        except BaseException:
            code = 3
        finally:
            os._exit(code)
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() - started > timeout:
            for target in (-pid, pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(target, signal.SIGKILL)
            os.waitpid(pid, 0)
            return "timeout", time.monotonic() - started
        time.sleep(0.02)
    seconds = time.monotonic() - started
    code = os.waitstatus_to_exitcode(status)
    if code == 0:
        return "survived", seconds
    if code == 100:
        return "not-installable", seconds
    return "killed", seconds


def run_area(
    area: str,
    sample: int | None,
    seed: int,
    log: Callable[[str], None] = lambda line: print(line, flush=True),
    only: set[int] | None = None,
) -> list[Outcome]:
    import importlib

    import pytest

    modules, tests = AREAS[area]
    args = _pytest_args(tests)
    for name in modules:
        importlib.import_module(name)
    # Collect here, in the warm parent: the test modules and conftests are imported once
    # and every child finds them in sys.modules.
    with contextlib.redirect_stdout(io.StringIO()):
        pytest.main([*args, "--collect-only"])
    status, baseline = _run_child(lambda: int(pytest.main(args)), 1800)
    if status != "survived":
        raise SystemExit(f"{area}: the unmutated tests do not pass ({status}); fix them first")
    timeout = max(3 * baseline, baseline + 15)
    log(f"{area}: tests pass unmutated in {baseline:.1f}s; per-mutant timeout {timeout:.0f}s")
    every = [
        m
        for name in modules
        for m in mutants_of(name, Path(str(sys.modules[name].__file__)).read_text())
    ]
    chosen = every
    if sample is not None and sample < len(every):
        chosen = sorted(random.Random(f"{seed}:{area}").sample(every, sample))
    if only is not None:
        chosen = [m for m in chosen if m.number in only]
    log(f"{area}: {len(every)} mutants, running {len(chosen)}")
    outcomes = []
    for mutant in chosen:
        module = sys.modules[mutant.module]
        tree = mutate(Path(str(module.__file__)).read_text(), mutant)

        def work(module: types.ModuleType = module, tree: ast.Module = tree) -> int:
            install(module, tree)
            return int(pytest.main(args))

        status, seconds = _run_child(work, timeout)
        outcomes.append(Outcome(mutant, status, seconds))
        log(
            f"  {status:9} {seconds:5.1f}s {mutant.module}:{mutant.line} #{mutant.number} "
            f"{mutant.description}"
        )
    return outcomes


def score(outcomes: list[Outcome]) -> tuple[int, int]:
    """(killed, total): a timeout counts as killed; a mutant that cannot be installed in a
    live process (a changed closure) counts in neither."""
    counted = [o for o in outcomes if o.status != "not-installable"]
    return sum(o.status != "survived" for o in counted), len(counted)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mutation")
    parser.add_argument("areas", nargs="*", help=f"any of {', '.join(AREAS)} (default: all)")
    parser.add_argument("--sample", type=int, default=None, help="mutants per area (seeded)")
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--json", type=Path, help="write every outcome here")
    parser.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    parser.add_argument("--only", help="comma-separated mutant numbers (#N of --list) to run")
    args = parser.parse_args(argv)
    areas = args.areas or list(AREAS)
    unknown = [a for a in areas if a not in AREAS]
    if unknown:
        parser.error(f"unknown area {unknown[0]!r}; known: {', '.join(AREAS)}")
    if args.list:
        import importlib

        for area in areas:
            for name in AREAS[area][0]:
                path = Path(str(importlib.import_module(name).__file__))
                for m in mutants_of(name, path.read_text()):
                    print(f"{area} {m.module}:{m.line} #{m.number} {m.description}")
        return 0
    results: dict[str, list[Outcome]] = {}
    for area in areas:
        only = {int(n) for n in args.only.split(",")} if args.only else None
        results[area] = run_area(area, args.sample, args.seed, only=only)
    print("\narea               killed/total  score  survived")
    for area, outcomes in results.items():
        killed, total = score(outcomes)
        survived = [o for o in outcomes if o.status == "survived"]
        rate = f"{100 * killed / total:.0f}%" if total else "-"
        print(f"{area:18} {killed:>6}/{total:<6} {rate:>5}  {len(survived)}")
        for o in survived:
            print(
                f"    {o.mutant.module}:{o.mutant.line} #{o.mutant.number} {o.mutant.description}"
            )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    area: [
                        {**o.mutant._asdict(), "status": o.status, "seconds": round(o.seconds, 2)}
                        for o in outcomes
                    ]
                    for area, outcomes in results.items()
                },
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
