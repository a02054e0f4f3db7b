"""The house rules a reader relies on: no import cycles, thin commands, a true layout map.

The import graph is read from the source (ast), every `import` counted, also those inside
functions (a deferred import still couples the two modules) but not those under
`if TYPE_CHECKING:`.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "tools" / "kbkit"
README = Path(__file__).resolve().parents[1] / "README.md"

# Edges that close a cycle we know of and have not removed yet. Each is listed so that the
# test still fails on any other cycle. (#17 removed the last one, policy_schema ->
# checks.registry: the rule catalogs now live in kbkit.rule_catalog.)
KNOWN_CYCLE_EDGES: set[tuple[str, str]] = set()
MAX_COMMAND_LINES = 200  # argparse options plus wiring; check.py (8 options, baseline) is 187


def module_files() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its __init__)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(inner) for inner in ast.walk(node))
    return skipped


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package modules `name` imports (`from a import b` is a.b when that is a module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    skipped = _type_checking_nodes(tree)
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            for alias in node.names:
                if f"{base}.{alias.name}" in modules:
                    out.add(f"{base}.{alias.name}")
                elif base in modules:
                    out.add(base)
    out.discard(name)
    return out


def import_graph() -> dict[str, set[str]]:
    modules = module_files()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_cycles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_deferred_imports() -> None:
    graph = import_graph()
    assert "kbkit.checks.incremental" in graph["kbkit.checks.runner"]
    assert "kbkit.checks.registry" in graph["kbkit.checks.incremental"]  # one way only
    assert "kbkit.checks.incremental" not in graph["kbkit.checks.registry"]


def test_no_import_cycles() -> None:
    graph = import_graph()
    for source, target in KNOWN_CYCLE_EDGES:
        assert target in graph[source], f"known edge {source} -> {target} is gone: drop it"
        graph[source].discard(target)
    assert cycles(graph) == []


def test_commands_are_thin() -> None:
    sizes = {
        path.name: len(path.read_text(encoding="utf-8").splitlines())
        for path in (PACKAGE / "commands").glob("*.py")
    }
    assert len(sizes) > 10
    assert {name: n for name, n in sizes.items() if n > MAX_COMMAND_LINES} == {}


def layout_names() -> set[str]:
    """The modules (`x.py`) and packages (`x/`) the README's layout block lists under
    tools/kbkit/ (the indented lines after it)."""
    text = README.read_text(encoding="utf-8")
    block = text.split("## Layout", 1)[1].split("```", 2)[1]
    lines = block.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("tools/kbkit/"))
    names: set[str] = set()
    for line in lines[start + 1 :]:
        if not line.startswith("  "):
            break
        listed = re.split(r" {2,}", line.strip(), maxsplit=1)[0]  # the description follows
        names.update(listed.split())
    return names


def test_readme_layout_matches_the_package() -> None:
    listed = layout_names()
    modules = {p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py"}
    packages = {f"{p.name}/" for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    packages |= {f"{p.name}/" for p in PACKAGE.iterdir() if p.is_dir() and any(p.glob("*.yaml"))}
    assert listed - modules - packages == set(), "listed in README but not in the package"
    assert (modules | packages) - listed == set(), "in the package but not in README's layout"


def test_test_hooks_are_named_in_one_place() -> None:
    """Every test-only variable production code reads is named in `kbkit.test_hooks` (which
    tests/conftest.py clears) and nowhere else: the modules that read one import its name."""
    from kbkit import test_hooks

    named = set()
    for path in PACKAGE.rglob("*.py"):
        found = re.findall(r"KBKIT_\w*TEST\w*", path.read_text(encoding="utf-8"))
        assert not found or path.name == "test_hooks.py", f"{path}: {found}"
        named.update(found)
    assert named == set(test_hooks.TEST_HOOKS)


def test_mypy_checks_the_tests_and_its_overrides_name_real_modules() -> None:
    """`make lint` type-checks what `make help` says (the package and the tests), and every
    relaxed module an override names still exists, so a stale exemption is noticed."""
    import tomllib

    root = PACKAGE.parents[1]
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert set(config["files"]) >= {"tools/kbkit", "tests"}
    for override in config["overrides"]:
        for module in override["module"]:
            parts = module.removesuffix(".*").split(".")
            base = root / "tools" if parts[0] == "kbkit" else root
            path = base.joinpath(*parts)
            assert path.is_dir() or path.with_suffix(".py").is_file(), f"{module}: no such module"
