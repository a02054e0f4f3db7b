"""The house rules a reader relies on: no import cycles, thin commands, a true layout map.

The import graph is read from the source (ast), every `import` counted, also those inside
functions (a deferred import still couples the two modules) but not those under
`if TYPE_CHECKING:`.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "tools" / "kbkit"
ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
LAYOUT_PAGE = ROOT / "docs" / "maintainers" / "layout.md"

# Edges that close a cycle we know of and have not removed yet. Each is listed so that the
# test still fails on any other cycle. (#17 removed the last one, policy_schema ->
# checks.registry: the rule catalogs now live in kbkit.rulebook.catalog.)
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


@pytest.mark.slow
def test_the_graph_sees_deferred_imports() -> None:
    graph = import_graph()
    assert "kbkit.checks.incremental" in graph["kbkit.checks.runner"]
    assert "kbkit.checks.registry" in graph["kbkit.checks.incremental"]  # one way only
    assert "kbkit.checks.incremental" not in graph["kbkit.checks.registry"]


@pytest.mark.slow
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
        if path.name != "registry.py"  # the table of commands, one row each, not a command
    }
    assert len(sizes) > 10
    assert {name: n for name, n in sizes.items() if n > MAX_COMMAND_LINES} == {}


def _layout_module() -> Any:
    spec = importlib.util.spec_from_file_location("layout_page", ROOT / "tools" / "layout_page.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_layout_page_is_generated_from_the_docstrings() -> None:
    """The maintainers' layout page is what tools/layout_page.py makes of the package's
    docstrings and layer contract (regenerate: make generate)."""
    layout = _layout_module()
    text = LAYOUT_PAGE.read_text(encoding="utf-8")
    assert layout.page(layout.render()) == text, (
        "docs/maintainers/layout.md is stale: run make generate"
    )
    assert "tools/kbkit/" in text and "## Layout" not in README.read_text(encoding="utf-8")


def test_the_layout_lists_every_module_once() -> None:
    """The layout lists every module of the package exactly once, and the layer contract
    names every top-level module and package (nothing sits outside a layer)."""
    layout = _layout_module()
    listed = [e for e in layout.entries() if not e.endswith("/")]
    assert len(listed) == len(set(listed)), "listed more than once"
    modules = {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")}
    modules -= {m for m in modules if m.count("/") == 1 and m.endswith("/__init__.py")}
    assert set(listed) == modules
    block = layout.render()
    for entry in layout.entries():
        assert entry.rpartition("/")[2] in block or entry.endswith("/")
    top = {path.stem for path in PACKAGE.glob("*.py")} - {"__init__"}
    top |= {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").is_file()}
    in_layers = {name.split(".")[1] for layer in layout.layers() for name in layer}
    assert top == in_layers, "every top-level module or package belongs to one layer"
    assert len([name for name in top if (PACKAGE / f"{name}.py").is_file()]) <= 12


def test_each_layer_package_says_what_it_may_import() -> None:
    """A layer package's docstring has one `May import:` line, and the layers it names as
    allowed all lie below it in the contract."""
    layout = _layout_module()
    rank = {name: i for i, layer in enumerate(layout.layers()) for name in layer}
    for name in rank:
        init = PACKAGE / name.split(".")[1] / "__init__.py"
        if not init.is_file():
            continue
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        may = [line for line in doc.splitlines() if line.startswith("May import:")]
        assert len(may) == 1, f"{name}: its docstring says what it may import"
        allowed = may[0].split("never")[0]
        named = set(re.findall(r"`(kbkit\.[a-z_]+)`", allowed))
        above = {n for n in named if rank[n] <= rank[name]}
        assert above == set(), f"{name} says it may import {sorted(above)}, not below it"


def lint_imports(cwd: Path, tools: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(tools))
    return subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_the_layer_contracts_hold() -> None:
    done = lint_imports(ROOT, ROOT / "tools")
    assert done.returncode == 0, done.stdout[-3000:]
    assert "0 broken" in done.stdout


@pytest.mark.slow
def test_an_upward_import_breaks_the_contracts(tmp_path: Path) -> None:
    """A copy of the package where the page parser imports the curator fails lint-imports,
    naming the import; so does an import between two siblings of one layer."""
    shutil.copytree(ROOT / "tools" / "kbkit", tmp_path / "tools" / "kbkit",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    native = tmp_path / "tools" / "kbkit" / "pages" / "native.py"
    original = native.read_text(encoding="utf-8")
    native.write_text(original + "\nimport kbkit.curator.apply\n", encoding="utf-8")
    done = lint_imports(tmp_path, tmp_path / "tools")
    assert done.returncode == 1, done.stdout[-3000:]
    assert "kbkit.pages.native -> kbkit.curator.apply" in done.stdout
    native.write_text(original, encoding="utf-8")
    vcs = tmp_path / "tools" / "kbkit" / "vcs" / "git.py"
    vcs.write_text(vcs.read_text(encoding="utf-8") + "\nimport kbkit.rulebook.findings\n")
    done = lint_imports(tmp_path, tmp_path / "tools")
    assert done.returncode == 1 and "kbkit.vcs.git -> kbkit.rulebook.findings" in done.stdout


@pytest.mark.slow
def test_no_product_module_exists_for_tests_only() -> None:
    """No module reads a test-only variable, and every module is reached from an entry point
    (the CLI, the demo, the shims, the public curator, lessons and compat APIs) by imports or
    by the dotted names the package loads lazily; the report never imports the demo."""
    for path in PACKAGE.rglob("*.py"):
        found = re.findall(r"KBKIT_\w*TEST\w*", path.read_text(encoding="utf-8"))
        assert not found, f"{path}: {found}"
    graph = import_graph()
    modules = set(graph)
    for name, path in module_files().items():
        text = path.read_text(encoding="utf-8")
        graph[name] |= {m for m in re.findall(r"kbkit(?:\.[a-z_0-9]+)+", text) if m in modules}
    lessons = PACKAGE / "lessons" / "__init__.py"
    lazily = set(re.findall(r'"(\w+)"', lessons.read_text(encoding="utf-8")))
    graph["kbkit.lessons"] |= {f"kbkit.lessons.{n}" for n in lazily} & modules
    from kbkit.commands.registry import COMMANDS  # each row's module, imported when it runs

    graph["kbkit.commands.registry"] |= {row.module for row in COMMANDS.values()}
    from kbkit.sites import MODULES  # each generator's module, imported when one is asked

    graph["kbkit.sites"] |= {f"kbkit.sites.{name}" for name in MODULES}
    roots = ["kbkit.__main__", "kbkit.demo", "kbkit.shims", "kbkit.curator", "kbkit.lessons",
             "kbkit.compat.infermatrix_v1"]  # fmt: skip
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo += sorted(graph[name])
        parent = name.rpartition(".")[0]
        if parent in modules:
            todo.append(parent)
    assert sorted(modules - seen) == []
    report = [name for name in graph if name.startswith("kbkit.report")]
    assert all("kbkit.demo" not in graph[name] for name in report)


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
