"""MkDocs (and Material): `docs_dir` (default `docs`); attr_list and pymdownx.tabbed ids only
when `markdown_extensions` lists them; text inserted into pages only with the extensions
and plugins that insert it. The configuration is `mkdocs.yml`, else a top-level
`mkdocs*.yml` a site builds with `mkdocs build -f` (one no other inherits; one with a
`site_url` first), read with the files its `INHERIT:` names (the parent's settings, the
child's over them); a top-level `mkdocs*.yml` of `nav:` alone is the navigation of one
without a nav (a build step joins them). `exclude_docs` and the mkdocs-exclude plugin's
globs name files the site does not build (`unpublished`)."""

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


MAX_INHERIT = 10  # how long a chain of INHERIT: files is followed


def detect(repo: Path) -> Site | None:
    """`mkdocs.yml` (or `.yaml`) at the top, else another top-level `mkdocs*.yml`."""
    for name in ("mkdocs.yml", "mkdocs.yaml"):
        if present(repo / name):
            return _site(repo, name, load_config(repo / name))
    configs, navs = {}, []
    for path in sorted([*repo.glob("mkdocs*.yml"), *repo.glob("mkdocs*.yaml")]):
        if present(path):
            data = load_config(path)
            if data.get("site_name"):
                configs[path.name] = data
            elif set(data) == {"nav"}:
                navs.append(path.name)
    inherited = {str(data.get("INHERIT") or "") for data in _own(repo, configs).values()}
    leaves = [name for name in configs if name not in inherited]
    if not leaves:
        return None
    # the one that says where the site is published (`site_url`) over one built to read
    # offline or locally
    name = min(leaves, key=lambda leaf: (not configs[leaf].get("site_url"), leaf))
    site = _site(repo, name, configs[name])
    # a file that holds nothing but `nav:` is the site's navigation, joined to a
    # configuration when the site is built (the configuration has none of its own)
    site.keys["index"] = {"model": "toc", "toc": name}
    if len(navs) == 1 and "nav" not in configs[name]:
        site.keys["index"]["nav_file"] = navs[0]
    site.keys.setdefault("links", {})["redirects"] = name  # mkdocs-redirects' maps
    return site


def _own(repo: Path, configs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each configuration's own settings (without its parents'): what it inherits."""
    return {name: _read(repo / name) for name in configs}


def _read(path: Path) -> dict[str, Any]:
    try:
        data = yaml.load(read_config(path), Loader=TocLoader)  # noqa: S506 - a safe loader
    except YamlLimitError as exc:
        raise over_limits(path, exc) from exc
    except yaml.YAMLError:
        data = None
    return data if isinstance(data, dict) else {}


def load_config(path: Path, data: dict[str, Any] | None = None) -> dict[str, Any]:
    """A MkDocs configuration as MkDocs reads it: its `INHERIT:` file's settings (relative
    to it, followed in turn), deep-merged under its own (`data`: its own, already read)."""
    merged = _read(path) if data is None else data
    seen = {path.resolve()}
    while isinstance(merged.get("INHERIT"), str) and len(seen) <= MAX_INHERIT:
        parent = (path.parent / merged["INHERIT"]).resolve()
        if parent in seen or not present(parent):
            break
        seen.add(parent)
        own = {key: value for key, value in merged.items() if key != "INHERIT"}
        merged, path = _merge(_read(parent), own), parent
    return merged


def _merge(parent: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    """MkDocs' deep merge: mappings merge key by key, anything else the child's wins."""
    out = dict(parent)
    for key, value in child.items():
        old = out.get(key)
        out[key] = (
            _merge(old, value) if isinstance(old, dict) and isinstance(value, dict) else value
        )
    return out


def _site(repo: Path, name: str, data: dict[str, Any]) -> Site:
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
    excluded = excluded_docs(data)
    if excluded:
        keys["unpublished"] = excluded
    return Site("MkDocs", name, "mkdocs", root, keys, PUBLISHED)


def excluded_docs(data: dict[str, Any]) -> list[str]:
    """Gitignore globs (docs_dir paths) of the files the site does not build: MkDocs'
    `exclude_docs` (gitignore lines already) and the mkdocs-exclude plugin's `glob:` list
    (fnmatch patterns: a `*` there crosses folders, as a gitignore glob with a `/` in it
    covers everything below the folders it matches)."""
    globs = [
        line.strip()
        for line in str(data.get("exclude_docs") or "").splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]
    for plugin in data.get("plugins") or ():
        options = plugin.get("exclude") if isinstance(plugin, dict) else None
        if isinstance(data.get("plugins"), dict):
            options = data["plugins"].get("exclude") if plugin == "exclude" else None
        found = options.get("glob") if isinstance(options, dict) else None
        globs += [str(g).strip() for g in found or () if isinstance(g, str) and g.strip()]
    return list(dict.fromkeys(globs))


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
