"""MkDocs (and Material): `docs_dir` (default `docs`); attr_list and pymdownx.tabbed ids only
when `markdown_extensions` lists them; text inserted into pages only with the extensions
and plugins that insert it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from kbkit.infra.bounded_yaml import YamlLimitError
from kbkit.sites.config import (
    TocLoader,
    over_limits,
    present,
    read_config,
)
from kbkit.sites.site import Site

PUBLISHED = (".md", ".markdown", ".mdown", ".mkdn", ".mkd")  # the page files it builds
# Python-Markdown's `extra` and PyMdown's `pymdownx.extra` load attr_list (and more) too
BUNDLES = {"extra": ("attr_list",), "pymdownx.extra": ("attr_list",)}


def detect(repo: Path) -> Site | None:
    """`mkdocs.yml` (or `.yaml`) at the top."""
    for name in ("mkdocs.yml", "mkdocs.yaml"):
        if present(repo / name):
            return _site(repo, name)
    return None


def _site(repo: Path, name: str) -> Site:
    try:
        data = yaml.load(read_config(repo / name), Loader=TocLoader)  # noqa: S506 - a safe loader
    except YamlLimitError as exc:
        raise over_limits(repo / name, exc) from exc
    except yaml.YAMLError:
        data = None
    data = data if isinstance(data, dict) else {}
    root = str(data.get("docs_dir") or "docs").strip("/") or "."
    extensions = markdown_extensions(data.get("markdown_extensions"))
    keys: dict[str, Any] = {}
    links = {}
    if "attr_list" not in extensions:
        links["attr_list"] = False
    if "pymdownx.tabbed" not in extensions:
        links["tabbed"] = False
    plugins = {
        str(next(iter(p)) if isinstance(p, dict) and p else p) for p in data.get("plugins") or ()
    }
    if (
        not {"pymdownx.snippets", "mkdocs-click", "mkautodoc"} & extensions
        and "mkdocstrings" not in plugins
    ):
        links["inserted_text"] = False  # no page can pull in text (and headings)
    if links:
        keys["links"] = links
    return Site("MkDocs", name, "mkdocs", root, keys, PUBLISHED)


def markdown_extensions(listed: Any) -> set[str]:
    """The Python-Markdown extensions `markdown_extensions` loads, by short name: an entry
    may be a name or a one-key mapping of its options, and a built-in one may be written
    with its module path (`markdown.extensions.attr_list`); a bundle (`extra`) loads its
    members too."""
    found: set[str] = set()
    for item in listed if isinstance(listed, list) else ():
        name = str(next(iter(item)) if isinstance(item, dict) and item else item)
        name = name.removeprefix("markdown.extensions.")
        found.add(name)
        found.update(BUNDLES.get(name, ()))
    return found
