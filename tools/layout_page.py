"""The maintainers' map of the repository (docs/maintainers/layout.md), generated from the
package's docstrings and its layer contract.

`python tools/layout_page.py` prints the page; `--write` writes it (`make generate` does).
tests/test_architecture.py keeps the page equal to what this prints, so the map cannot drift
from the code. A checkout-only script: it is not part of the package.
"""

from __future__ import annotations

import ast
import sys
import textwrap
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tools" / "kbkit"
PAGE = ROOT / "docs" / "maintainers" / "layout.md"
WIDTH = 100
COLUMN = 17  # where descriptions start

HEAD = [
    (
        "Makefile  pyproject.toml  setup.py  LICENSE  README.md  CONTRIBUTING.md  mkdocs.yml  action.yml  .pre-commit-config.yaml  .pre-commit-hooks.yaml",
        "",
    ),
    ("knowledge/", "kbkit's own knowledge tree; policy.yaml (taxonomy); the demo's sample"),
    ("intake/", "append-only JSONL ledgers; demo fixtures under intake/samples/"),
    ("docs/", "the documentation site (MkDocs); docs/reference/ and this page are generated"),
    (
        "tools/kbkit/",
        "the package (import name kbkit, CLI `kb`), in layers from the top: each imports only "
        "the layers below it, and siblings joined by | never import each other "
        "(pyproject.toml [tool.importlinter], checked by `make lint` and the tests)",
    ),
]
TAIL = [
    (
        "tools/*.py",
        "checkout-only scripts, not in the package: the shims that run a check from a checkout "
        "without installing kbkit (check_knowledge_tree.py check_wiki_lint.py kb_check.py "
        "kb_intake_check.py), this layout (layout_page.py), the report's screenshot "
        "(report_screenshot.py), `make release` (release.py); setup.py keeps the "
        "checkout-only modules (kbkit.demo, kbkit.shims, kbkit.lessons.demo) out of the wheel",
    ),
    ("tests/", "mirrors tools/kbkit; tests/cases/<checker>/{ok,bad}/ hold example trees"),
    ("benchmarks/", "`make bench`: synthetic trees against named floors"),
]


def layers() -> list[list[str]]:
    """The layer contract's layers, top first, each a list of sibling module names."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for contract in config["tool"]["importlinter"]["contracts"]:
        if contract["type"] == "layers":
            return [[name.strip() for name in layer.split("|")] for layer in contract["layers"]]
    raise SystemExit("pyproject.toml has no layers contract")


def summary(path: Path) -> str:
    """The first paragraph of a module's docstring, on one line."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return " ".join(doc.split("\n\n", 1)[0].split())


def modules_of(folder: Path) -> list[str]:
    """Every module under a package folder, relative to it (`x.py`, `sub/y.py`), and its data
    folders (`profiles/`)."""
    found: list[str] = []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if "__pycache__" in rel.parts:
            continue
        if path.suffix == ".py" and rel.name != "__init__.py":
            found.append(rel.as_posix())
        elif path.is_dir() and not (path / "__init__.py").exists() and path.name != "__pycache__":
            if not any(p.suffix == ".py" for p in path.rglob("*.py")):
                found.append(rel.as_posix() + "/")
        elif rel.name == "__init__.py" and len(rel.parts) > 1:
            found.append(rel.as_posix())
    return found


def entry(name: str, text: str, indent: str) -> list[str]:
    """`name` at `indent`, `text` from COLUMN (or after the name when it is longer), wrapped."""
    lead = f"{indent}{name}"
    lead = lead.ljust(COLUMN) if len(lead) < COLUMN - 1 else lead + "  "
    if not text:
        return [lead.rstrip()]
    return textwrap.wrap(
        text, WIDTH, initial_indent=lead, subsequent_indent=" " * COLUMN, break_on_hyphens=False
    )


def entries() -> list[str]:
    """What the layout lists under tools/kbkit/, as paths relative to it, in its order: each
    layer's packages (`x/`) with their modules (`x/y.py`) and its top-level modules."""
    found = ["__init__.py"]
    for layer in layers():
        for dotted in layer:
            leaf = dotted.split(".", 1)[1]
            if (PACKAGE / leaf).is_dir():
                found += [f"{leaf}/", *(f"{leaf}/{m}" for m in modules_of(PACKAGE / leaf))]
            else:
                found.append(f"{leaf}.py")
    return found


def render() -> str:
    lines: list[str] = []
    for name, text in HEAD:
        lines += entry(name, text, "")
    lines += entry("__init__.py", summary(PACKAGE / "__init__.py"), "  ")
    for layer in layers():
        for dotted in layer:
            leaf = dotted.split(".", 1)[1]
            folder = PACKAGE / leaf
            if folder.is_dir():
                lines += entry(f"{leaf}/", summary(folder / "__init__.py"), "  ")
                lines += textwrap.wrap(
                    "  ".join(modules_of(folder)),
                    WIDTH,
                    initial_indent=" " * COLUMN,
                    subsequent_indent=" " * COLUMN,
                    break_on_hyphens=False,
                )
            else:
                lines += entry(f"{leaf}.py", summary(PACKAGE / f"{leaf}.py"), "  ")
    for name, text in TAIL:
        lines += entry(name, text, "")
    return "\n".join(lines) + "\n"


INTRO = """\
# Package layout

<!-- Generated by `make generate` (tools/layout_page.py) from the package's docstrings and
the layer contract in pyproject.toml; edit those, not this page. -->

Where things live in a kbkit checkout. The package `tools/kbkit/` is built in layers: each
layer imports only the layers below it, and siblings joined by `|` in the contract never
import each other (`[tool.importlinter]` in pyproject.toml, checked by `make lint`).
Library modules are nouns, commands are verbs. Only `kbkit/vcs/git.py` runs git and only
`kbkit/vcs/github.py` talks to GitHub.

```text
"""


def page(block: str) -> str:
    """The whole page around the layout block."""
    return f"{INTRO}{block}```\n"


def main(argv: list[str]) -> int:
    text = page(render())
    if argv == ["--write"]:
        PAGE.parent.mkdir(parents=True, exist_ok=True)
        if not PAGE.is_file() or PAGE.read_text(encoding="utf-8") != text:
            PAGE.write_text(text, "utf-8")
    elif argv:
        print("usage: python tools/layout_page.py [--write]", file=sys.stderr)
        return 2
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
