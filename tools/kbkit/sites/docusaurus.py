"""Docusaurus: `docusaurus.config.{js,ts,mjs,cjs}` at the top or one folder down (`website/`),
with the `docusaurus` profile.

The configuration is JavaScript: it is read as text with tolerant patterns, never run. The
docs folder is the `path:` of the classic preset's `docs: {...}` options (else of the first
`@docusaurus/plugin-content-docs` entry), default `docs` beside the configuration; it is
served under `routeBasePath` (default `docs`): `links.url_map`. `staticDirectories`
(default `static`) are served from the site's root: each of their top-level names is a
`url_map` prefix of its own, so `/img/x.png` names `../static/img/x.png`. Other routes at
the site root (`src/pages`, the blog) are not this tree's: links to them are not checked,
and `kb init` counts their pages as published but not read. `versions.json` lists versions
whose pages live in `versioned_docs/version-<name>/`: the first (latest) is served at the
docs' URL, the others under `<routeBasePath>/<name>/`, the current docs under
`<routeBasePath>/next/`; a link into a version names a file of its folder (its pages are
not read: their own links are not checked). Files and folders whose names start with `_` are partials
(imported, not pages): the profile makes no page an orphan, so they need no link.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

from kbkit.infra import json_input
from kbkit.sites.config import present, read_config
from kbkit.sites.site import Site

NAMES = tuple(f"docusaurus.config.{suffix}" for suffix in ("js", "ts", "mjs", "cjs"))
PUBLISHED = (".md", ".mdx", ".js", ".jsx", ".ts", ".tsx")  # the page files it builds
READ = [".md", ".mdx"]
_DOCS_KEYS = re.compile(r"\b(?:path|routeBasePath|sidebarPath|editUrl|include|exclude)\s*:")
_STRING = r"""(?:'([^'\n]*)'|"([^"\n]*)"|`([^`$\n]*)`)"""


def detect(repo: Path) -> Site | None:
    """The configuration at the top, else one folder down (`website/` first)."""
    found = config_file(repo)
    return _site(repo, found) if found is not None else None


def config_file(repo: Path) -> Path | None:
    for name in NAMES:
        if present(repo / name):
            return repo / name
    below = sorted(
        (path for name in NAMES for path in repo.glob(f"*/{name}")),
        key=lambda path: (path.parent.name != "website", path.parent.name, path.name),
    )
    return below[0] if below else None


def _site(repo: Path, path: Path) -> Site:
    text = _without_comments(read_config(path))
    options = _docs_options(text)
    folder = path.parent
    site = "" if folder == repo else folder.relative_to(repo).as_posix()
    docs = _clean(_value(options, "path") or "docs") or "."
    route = _clean(_value(options, "routeBasePath") or "docs")
    root = posixpath.normpath(posixpath.join(site, docs)) if site else docs
    base = f"/{route}/" if route else "/"
    url_map: dict[str, Any] = {base: "."}
    versions = _versions(folder)
    back = posixpath.relpath(site or ".", root)  # the site's folder, from the docs
    if versions:  # the latest version at the docs' URL, the current docs at next/
        url_map[base] = f"{back}/versioned_docs/version-{versions[0]}"
        url_map[f"{base}next/"] = "."
        for name in versions[1:]:
            url_map[f"{base}{name}/"] = f"{back}/versioned_docs/version-{name}"
    statics = [_clean(s) for s in _strings(text, "staticDirectories")] or ["static"]
    site_files = []
    for static in statics:
        where = folder / static
        if not static or ".." in static.split("/") or not where.is_dir():
            continue
        served = f"{back}/{static}" if back != "." else static
        site_files.append(served)
        for entry in sorted(where.iterdir()):
            if entry.name.startswith("."):
                continue
            prefix = f"/{entry.name}/"
            if prefix != base and not base.startswith(prefix):
                url_map.setdefault(prefix, f"{served}/{entry.name}")
    links: dict[str, Any] = {"url_map": url_map}
    if site_files:
        links["site_files"] = site_files
    keys: dict[str, Any] = {"pages": {"extensions": READ}, "links": links}
    config = path.relative_to(repo).as_posix()
    elsewhere = [
        posixpath.join(site, name) if site else name
        for name in ("src/pages", "versioned_docs")
        if (folder / name).is_dir()
    ]
    return Site("Docusaurus", config, "docusaurus", root, keys, PUBLISHED, tuple(elsewhere))


def _without_comments(text: str) -> str:
    """The configuration without `/* */` and whole-line `//` comments (a commented-out
    `path:` is not the docs folder)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"(?m)^\s*//.*$", "", text)


def _docs_options(text: str) -> str:
    """The text of the docs options: the preset's `docs: {...}` (the first that names a docs
    option: themeConfig has a `docs: {sidebar: ...}` of its own), else the first
    `'@docusaurus/plugin-content-docs', {...}` entry; "" when neither is written."""
    for pattern in (
        r"\bdocs\s*:\s*\{",
        r"""['"]@docusaurus/plugin-content-docs['"]\s*,\s*\{""",
    ):
        for found in re.finditer(pattern, text):
            block = _block(text, found.end() - 1)
            if _DOCS_KEYS.search(_top_level(block)):
                return block
    return ""


def _block(text: str, start: int) -> str:
    """The `{...}` block that opens at `start` (braces counted; strings are not parsed, a
    brace in one may end the block early, which only loses keys)."""
    depth = 0
    for index in range(start, min(len(text), start + 20_000)):
        char = text[index]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[start : index + 1]
    return text[start : start + 20_000]


def _value(options: str, key: str) -> str | None:
    """A string written for `key:` at the block's top level (nested blocks cut out)."""
    top = _top_level(options)
    found = re.search(rf"(?:^|[\s,{{]){key}\s*:\s*{_STRING}", top)
    if found is None:
        return None
    return next(group for group in found.groups() if group is not None)


def _top_level(block: str) -> str:
    """The block's text without its nested `{...}` blocks."""
    out, depth = [], 0
    for char in block[1:-1] if block.startswith("{") else block:
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif depth == 0:
            out.append(char)
    return "".join(out)


def _strings(text: str, key: str) -> list[str]:
    """The strings of an array written for `key: [...]`."""
    found = re.search(rf"\b{key}\s*:\s*\[([^\]]*)\]", text)
    if found is None:
        return []
    return [
        next(group for group in match.groups() if group is not None)
        for match in re.finditer(_STRING, found.group(1))
    ]


def _versions(folder: Path) -> list[str]:
    """The version names of `versions.json` whose `versioned_docs/version-<name>` exists."""
    path = folder / "versions.json"
    if not present(path):
        return []
    try:
        data = json_input.loads(read_config(path))
    except ValueError:
        return []
    names = (
        [str(v) for v in data if isinstance(v, (str, int, float))] if isinstance(data, list) else []
    )
    return [
        name
        for name in names
        if "/" not in name and (folder / "versioned_docs" / f"version-{name}").is_dir()
    ]


def _clean(path: str) -> str:
    cleaned = posixpath.normpath(path.strip().strip("/")) if path.strip().strip("/") else ""
    return "" if cleaned == "." else cleaned
