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
from kbkit.infra.lazy_pattern import lazy
from kbkit.sites.config import (
    TocLoader,
    over_limits,
    present,
    read_config,
)
from kbkit.sites.site import (
    Generator,
    Navigation,
    NavSource,
    Redirects,
    RedirectSource,
    Site,
    lines_led_by,
)

PUBLISHED = (".md", ".markdown", ".mdown", ".mkdn", ".mkd")  # the page files it builds
# Python-Markdown's `extra` and PyMdown's `pymdownx.extra` load attr_list (and more) too
BUNDLES = {"extra": ("attr_list",), "pymdownx.extra": ("attr_list",)}


MAX_INHERIT = 10  # how long a chain of INHERIT: files is followed
# what a nav entry written without its suffix may name (as the checks did before the
# navigation readers moved here, for any table of contents: MkDocs itself adds none)
NAV_SUFFIXES = (".md", ".ipynb", ".Rmd", ".myst", ".rst")


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


def read_navigation(source: NavSource) -> Navigation | None:
    """`index.toc` naming a MkDocs configuration (`nav:`, or `site_name:` and no `nav`: every
    page listed): its `INHERIT:` parents' settings under its own, and `index.nav_file`'s
    `nav:` when it has none (a build step joins them); `not_in_nav` globs need no entry; the
    posts Material's blog plugin lists are placed; literate-nav's nav pages list folders."""
    data = source.data
    if source.key != "toc":
        return None
    if isinstance(data, dict) and isinstance(data.get("INHERIT"), str):
        data = load_config(source.path, data)  # mkdocs' parent settings
    nav_file = source.options.get("nav_file")
    if nav_file and isinstance(data, dict) and "nav" not in data:
        nav = source.load(str(nav_file))  # joined to it at build time
        data = {**data, "nav": nav.get("nav") if isinstance(nav, dict) else None}
    if not (isinstance(data, dict) and ("nav" in data or "site_name" in data)):
        return None
    written: list[str] = []
    _nav_entries(data.get("nav"), written)
    return Navigation(
        entries=tuple((entry, getattr(entry, "line", 0)) for entry in written),
        every_page="nav" not in data or data["nav"] is None,  # mkdocs lists every page then
        unlisted=tuple(_not_in_nav(data)),
        placed=tuple(_blog_posts(data)),
        nav_pages=_literate_nav_file(data),
        suffixes=NAV_SUFFIXES,
    )


def _nav_entries(node: Any, out: list[str]) -> None:
    if isinstance(node, str):
        if "://" not in node:
            out.append(node)
    elif isinstance(node, list):
        for item in node:
            _nav_entries(item, out)
    elif isinstance(node, dict):
        for value in node.values():
            _nav_entries(value, out)


def _literate_nav_file(data: dict[str, Any]) -> str | None:
    """The `nav_file` of the literate-nav plugin (None: the plugin is not on): a nav entry
    that names a folder (or, with no `nav`, the docs folder itself) takes its nav from the
    folder's nav file, a page whose links list the section, and whose own folder links do
    the same one level down."""
    for plugin in data.get("plugins") or ():
        if isinstance(plugin, str) and plugin == "literate-nav":
            return "SUMMARY.md"
        if isinstance(plugin, dict) and "literate-nav" in plugin:
            options = plugin["literate-nav"]
            options = options if isinstance(options, dict) else {}
            return str(options.get("nav_file") or "SUMMARY.md")
    return None


def _not_in_nav(data: dict[str, Any]) -> list[str]:
    """mkdocs' `not_in_nav` globs (gitignore syntax)."""
    lines = [line.strip() for line in str(data.get("not_in_nav") or "").splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def _blog_posts(data: dict[str, Any]) -> list[str]:
    """The posts Material's blog plugin lists on the blog's index and archive pages."""
    out = []
    for plugin in data.get("plugins") or ():
        options: Any
        if isinstance(plugin, str):
            name, options = plugin, {}
        elif isinstance(plugin, dict) and plugin:
            name, options = next(iter(plugin.items()))
        else:
            continue
        if str(name).split("/")[-1] == "blog":
            options = options if isinstance(options, dict) else {}
            blog = str(options.get("blog_dir") or "blog").strip("/")
            posts = str(options.get("post_dir") or "{blog}/posts").replace("{blog}", blog)
            out.append(f"/{posts.strip('/')}/**/*.md")
    return out


def read_redirects(source: RedirectSource) -> Redirects | None:
    """`mkdocs.yml` (or the `mkdocs*.yml` the site builds with): the mkdocs-redirects
    plugin's `redirect_maps` (paths of the docs folder), its `INHERIT:` parents' plugins
    too. A file read by `links.redirects_key` is not read so."""
    path, data = source.path, source.data
    if source.keyed or not (path.name.startswith("mkdocs") and path.suffix in (".yml", ".yaml")):
        return None
    if isinstance(data, dict) and isinstance(data.get("INHERIT"), str):
        data = load_config(path, data)  # the plugins its parent lists
    return Redirects(_redirect_maps(data))


def _redirect_maps(data: Any) -> dict[str, Any]:
    for plugin in (data.get("plugins") or []) if isinstance(data, dict) else []:
        if isinstance(plugin, dict) and isinstance(plugin.get("redirects"), dict):
            return dict(plugin["redirects"].get("redirect_maps") or {})
    return {}


# a snippet (`--8<-- "x.md"`), mkdocstrings (`::: package.module`) or mkdocs-click
# (`::: mkdocs-click`): text a plugin or an extension puts into the page
_INSERTED = lazy(r"[ \t]*(?:--8<--|::: \S)")  # from a line's start
# a snippet of a file that is no markdown (an image, source code): it inserts no headings
_SOURCE_SNIPPET = lazy(
    r"[ \t]*-{1,}8<-{1,}[ \t]+(['\"])[^'\"\n]+\."
    r"(?!(?:md|markdown|mdown|mkd|mkdn|txt|html?)\b)[A-Za-z0-9]+(?::[^'\"\n]*)?\1"
)


def inserts_text(text: str) -> tuple[int, ...]:
    """The lines of the page that insert markdown, with its headings (a snippet of source
    code or an image brings none)."""
    if "--8<--" not in text and ":::" not in text:
        return ()
    return tuple(
        start
        for start in lines_led_by(text, "--8<--", "::: ")
        if _INSERTED.match(text, start) and not _SOURCE_SNIPPET.match(text, start)
    )


GENERATOR = Generator(
    "mkdocs",
    detect=detect,
    read_navigation=read_navigation,
    read_redirects=read_redirects,
    inserts_text=inserts_text,
)
