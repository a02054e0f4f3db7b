"""One module per generator, one registry, and nothing else that knows a generator by name.

`kbkit.sites` is where a generator's rules live (issue #38): its module answers `kb init`
and the checks through `kbkit.sites.site.Generator`. The code outside it names no generator:
a name in an identifier or a string literal there is a generator's rule written into a
shared module, which is how the next generator, or the next convention of a known one,
came to fail before. Comments and docstrings may name generators as examples. The few
names that are values users write in their policy are listed in `ALLOWED`, each with why.
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

from kbkit.sites import MODULES, detectors, generators, hooks
from kbkit.sites.site import Generator

TOP = Path(__file__).resolve().parents[2]
PACKAGE = TOP / "tools" / "kbkit"
SITES = PACKAGE / "sites"
# generators, and the markdown engines and document parsers only one of them uses
NAMES = re.compile(
    r"hugo|docusaurus|jekyll|docfx|mkdocs|mdbook|sphinx|myst|obsidian|jupyter|kramdown|"
    r"goldmark|markdig|docutils",
    re.IGNORECASE,
)
# (package-relative file, the names it may hold in code): why
ALLOWED: dict[tuple[str, frozenset[str]], str] = {
    (
        "policy/model.py",
        frozenset({"mkdocs", "mdbook", "docfx", "hugo", "sphinx", "jekyll", "docusaurus"}),
    ): ("the built-in profiles' names: users write them in kbkit.yaml (`profile: mkdocs`)"),
    ("pages/anchors.py", frozenset({"mdbook", "docfx", "kramdown"})): (
        "heading slug styles users write in kbkit.yaml (`links.slugs: mdbook`); the slug "
        "algorithms sit below the sites layer because the parse needs them, and the site "
        "module is what chooses the style"
    ),
}


def generator_names_in_code(path: Path) -> list[tuple[int, str]]:
    """(line, token) of every identifier or string literal of `path` that names a
    generator; docstrings and comments left out."""
    text = path.read_text(encoding="utf-8")
    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(text)):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = body[0] if body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                docstrings.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    found = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type not in (tokenize.NAME, tokenize.STRING) or token.start[0] in docstrings:
            continue
        if NAMES.search(token.string):
            found.append((token.start[0], token.string))
    return found


def _allowed(rel: str, token: str) -> bool:
    named = {match.lower() for match in NAMES.findall(token)}
    return any(rel == file and named <= names for file, names in ALLOWED)


def test_no_module_outside_sites_names_a_generator_in_code() -> None:
    outside = [p for p in sorted(PACKAGE.rglob("*.py")) if SITES not in p.parents]
    assert len(outside) > 100  # the walk sees the package
    offenders = [
        f"{path.relative_to(PACKAGE).as_posix()}:{line}: {token[:60]}"
        for path in outside
        for line, token in generator_names_in_code(path)
        if not _allowed(path.relative_to(PACKAGE).as_posix(), token)
    ]
    assert offenders == [], "a generator's rule outside kbkit.sites:\n" + "\n".join(offenders)


def test_the_scan_sees_a_generator_name_in_code_not_in_docstrings(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        '"""MkDocs reads it so."""\n\n'
        "def f(data):\n"
        '    """As Hugo does."""\n'
        "    # Jekyll too\n"
        '    return data.get("nav") if data.get("site_name") else hugo_like(data)\n\n'
        'KEY = "mkdocs.yml"\n',
        encoding="utf-8",
    )
    assert generator_names_in_code(module) == [(6, "hugo_like"), (8, '"mkdocs.yml"')]


def test_every_allowed_name_is_still_there() -> None:
    """An entry of `ALLOWED` that no longer matches anything is dropped, not kept."""
    for file, names in ALLOWED:
        tokens = generator_names_in_code(PACKAGE / file)
        named = {match.lower() for _, token in tokens for match in NAMES.findall(token)}
        assert named == names, file


def test_every_generator_module_is_registered_under_its_own_name() -> None:
    """A module that exports `GENERATOR` and no registry line would never be asked."""
    exporting = sorted(
        path.stem
        for path in SITES.glob("*.py")
        if any(
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "GENERATOR" for t in node.targets)
            for node in ast.parse(path.read_text(encoding="utf-8")).body
        )
    )
    assert sorted(MODULES) == exporting
    assert [g.name for g in generators()] == list(MODULES)
    assert all(isinstance(g, Generator) for g in generators())
    assert all(g.detect is not None or g.detect_later is not None for g in generators())


def test_every_registered_generator_has_its_site_test() -> None:
    """Adding a generator is one module, one registry line, a fixture site and its test."""
    missing = [name for name in MODULES if not (TOP / "tests/sites" / f"test_{name}.py").is_file()]
    assert missing == []


def test_detection_asks_each_configuration_first_then_the_later_ones() -> None:
    names = [f"{d.__module__.rsplit('.', 1)[-1]}.{d.__name__}" for d in detectors()]
    assert names == [
        "mkdocs.detect",
        "mdbook.detect",
        "docfx.detect",
        "docusaurus.detect",
        "hugo.detect",
        "starlight.detect",
        "sphinx.detect",
        "jekyll.detect",
        "mdbook.detect_nested",
        "hugo.detect_nested",
        "obsidian.detect",
        "plain.detect",
    ]


def test_each_registry_line_names_the_hooks_its_generator_has() -> None:
    """A check imports only the modules whose line names the hook it asks: a line that
    leaves one out hides the hook, one that names a hook the module lacks breaks."""
    fields = [f for f in Generator._fields if f not in ("name", "detect", "detect_later")]
    for g in generators():
        assert set(MODULES[g.name]) == {f for f in fields if getattr(g, f) is not None}, g.name


def test_a_hook_lists_the_generators_that_have_it_in_registry_order() -> None:
    readers = list(hooks("read_navigation"))
    assert [r.__module__ for r in readers] == [
        "kbkit.sites.mkdocs",
        "kbkit.sites.docfx",
        "kbkit.sites.docusaurus",
        "kbkit.sites.sphinx",
    ]


def test_a_check_of_a_plain_tree_imports_no_generator_module(tmp_path: Path) -> None:
    """The generator modules are imported when a policy needs one, not with the check."""
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "knowledge/a.md").write_text("# A\n\n[b](b.md)\n", encoding="utf-8")
    (tmp_path / "knowledge/b.md").write_text("# B\n\n[a](a.md)\n", encoding="utf-8")
    assert _imported_by_a_check(tmp_path) == "[]"


def _imported_by_a_check(tmp_path: Path) -> str:
    """The generator modules `kb check` imports in `tmp_path`, as a printed list."""
    code = (
        "import sys\n"
        "from kbkit.__main__ import main\n"
        "try:\n"
        f"    main(['check', '--repo', {str(tmp_path)!r}, '--no-cache', '--exit-zero'])\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[-1] in {list(MODULES)!r} "
        "and m.startswith('kbkit.sites.')), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=tmp_path
    )
    assert done.stderr.strip(), done.stderr
    return done.stderr.strip().splitlines()[-1]


def test_a_check_of_a_mkdocs_site_imports_the_mkdocs_module_alone(tmp_path: Path) -> None:
    """Its navigation and its redirects are the first generator's to answer: the modules
    after it in the registry are not imported."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: x\nnav:\n  - a.md\n  - b.md\n", "utf-8")
    (tmp_path / "docs/a.md").write_text("# A\n\n[b](b.md)\n", encoding="utf-8")
    (tmp_path / "docs/b.md").write_text("# B\n\n[a](a.md)\n", encoding="utf-8")
    (tmp_path / "kbkit.yaml").write_text(
        "version: 1\nextends: mkdocs\nknowledge_root: docs\n"
        "links: {attr_list: false, tabbed: false, inserted_text: false}\n",
        encoding="utf-8",
    )
    assert _imported_by_a_check(tmp_path) == "['kbkit.sites.mkdocs']"
