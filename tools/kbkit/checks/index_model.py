"""Where a page is registered (T2-T6): the policy's `index:` model (issue #12).

- `index-page` (default): each folder's `_index.md` links its pages and child indexes.
- `toc`: the site's navigation lists every page. `index.toc` names one table of contents:
  a markdown page under the knowledge root (mdBook's `SUMMARY.md`: its links), `mkdocs.yml`
  (`nav:`; without a `nav` every page is listed, as mkdocs lists them) or a Jupyter Book
  `_toc.yml` (`file:` and `root:` entries, the extension implied: `.md`, `.ipynb`, `.Rmd`...;
  `glob:` entries place the pages they match); paths in those two are
  knowledge-root paths (mkdocs' `docs_dir`). `index.toc_files` names files that are DocFX
  tables of contents wherever they sit under the knowledge root (`toc.yml`: nested
  `items`, `href` and `topicHref` relative to the file; `toc.md`: its links); such a file
  covers the pages of its folder and below, and a page no table of contents covers is not
  checked. With `index.toctree`, the entries of every page's MyST `{toctree}` directives
  (document names relative to the page, `/x` from the knowledge root, `:glob:` patterns)
  list pages as Sphinx's navigation does; the `toctree` fact keeps them. Unlisted pages are `tree/page-unregistered` (except pages matching
  `index.unlisted` or mkdocs' `not_in_nav`, and pages a generator lists in navigation it
  builds itself: `index.placed`, the posts of Material's blog plugin), a page
  listed twice in one file `tree/page-registered-twice`, an entry of a YAML table of
  contents that names nothing `tree/link-broken`. Entries (and placed pages) count as links
  to their pages (`lint/orphan`), and a table of contents that is a page is no orphan.
- `parent`: each page names its parent page in a frontmatter key (`index.parent_key`), a
  link target resolved like any other (site-root, extensions, redirects); a page without
  one, or whose parent names no page, is `tree/page-unregistered`.
- `none`: nothing is registered; orphans (no inbound link) are all that is checked.

Tables of contents are read from the file system, so their digest keys the result
snapshot (`toc_digest`), like the redirects files.
"""

from __future__ import annotations

import hashlib
import posixpath
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from kbkit.checks.rules.tree import LINK_BROKEN, PAGE_REGISTERED_TWICE, PAGE_UNREGISTERED
from kbkit.infra.config_file import read_config_bytes
from kbkit.infra.errors import UsageError
from kbkit.infra.lazy_pattern import lazy
from kbkit.pages import myst
from kbkit.pages.page import Page
from kbkit.pages.page_summary import is_absolute
from kbkit.policy.model import Policy
from kbkit.policy.toc_yaml import load_toc
from kbkit.rulebook.findings import Finding, quote
from kbkit.sites.config import TocLoader
from kbkit.tree.model import Tree

INDEX_PAGE, TOC, PARENT, NONE = "index-page", "toc", "parent", "none"
MAX_TOC_BYTES = 4 * 1024 * 1024
# what a Jupyter Book `_toc.yml` entry written without its extension may name
BOOK_SUFFIXES = (".md", ".ipynb", ".Rmd", ".myst", ".rst")


def model(policy: Policy) -> str:
    return str((policy.data.get("index") or {}).get("model") or INDEX_PAGE)


def parent_fact(page: Page, policy: Policy) -> tuple[str, int] | None:
    """(parent as written, line of the key) for the `parent` model, else None."""
    if model(policy) != PARENT:
        return None
    key = str(policy.data["index"].get("parent_key") or "parent")
    value = page.meta.get(key)
    if not isinstance(value, str) or not value.strip():
        return ("", 0)
    from kbkit.checks.rules.lint.fields import key_line

    return (value.strip(), key_line(page, key))


def registration_findings(tree: Tree, pages: list[str]) -> list[Finding]:
    """T3/T4 under the `toc` or `parent` model for the root-relative `pages`."""
    kind = model(tree.policy)
    if kind == TOC:
        return _toc_findings(tree, pages)
    if kind == PARENT:
        return _parent_findings(tree, pages)
    return []


class Entry(NamedTuple):
    target: str  # root-relative as resolved against the file's folder ("" for none)
    line: int
    written: str  # the href as written
    site: bool  # a site-root href (`/x`), resolved through the link model's site options


class Toc(NamedTuple):
    path: str  # repo-relative, for findings
    rel: str | None  # root-relative when the file is a page of the tree
    folder: str  # the root-relative folder it covers ("" = the whole tree)
    entries: tuple[Entry, ...]
    every_page: bool  # mkdocs.yml without `nav`: every page is listed
    unlisted: tuple[str, ...]  # gitignore globs (root-relative) of pages that need no entry
    placed: tuple[str, ...] = ()  # globs of pages a plugin lists itself (blog posts)


_LAST: list[Any] = [None, []]  # the tree the tables below were read for, and them


def tocs(tree: Tree) -> list[Toc]:
    """Every table of contents of the `toc` model (read once per loaded tree)."""
    if model(tree.policy) != TOC:
        return []
    if _LAST[0] is tree:
        return list(_LAST[1])
    index = tree.policy.data.get("index") or {}
    found: list[Toc] = []
    toc = index.get("toc")
    if toc:
        data = None if str(toc).endswith(".md") else _read_yaml(tree.repo / str(toc))
        if isinstance(data, dict) and isinstance(data.get("INHERIT"), str):
            from kbkit.sites.mkdocs import load_config

            data = load_config(tree.repo / str(toc), data)  # mkdocs' parent settings
        main = _toc_file(tree, str(toc), data)
        navs = _literate_navs(tree, main, data)
        if navs and main.every_page:  # a nav file at the top lists the pages instead
            main = main._replace(every_page=False)
        found.extend((main, *navs))
    names = set(map(str, index.get("toc_files") or ()))
    if names:
        for rel in sorted(tree.files):
            if rel.rsplit("/", 1)[-1] in names:
                found.append(_docfx_toc(tree, rel))
    if index.get("toctree"):
        found.extend(_toctrees(tree))
    _LAST[:] = [tree, found]
    return list(found)


def _toc_file(tree: Tree, toc: str, data: Any) -> Toc:
    """The one table of contents `index.toc` names (`data`: the YAML file's contents)."""
    if toc.endswith(".md"):
        rel = posixpath.normpath(toc)
        summary = tree.summaries.get(rel)
        if summary is None:
            raise UsageError(f"index.toc {toc!r}: no such page under {tree.root}/")
        entries = tuple(
            Entry(target, line, written, False) for target, line, written in summary.links
        )
        site = tree.facts.get(rel, {}).get("site_links", ())
        entries += tuple(Entry(target, line, written, True) for target, line, written in site)
        return Toc(tree.repo_path(rel), rel, "", entries, False, ())
    written: list[str] = []
    unlisted: list[str] = []
    placed: list[str] = []
    every = False
    if isinstance(data, dict) and ("nav" in data or "site_name" in data):
        every = "nav" not in data or data["nav"] is None  # mkdocs lists every page then
        _mkdocs_nav(data.get("nav"), written)
        unlisted = _not_in_nav(data)
        placed = _blog_posts(data)
    else:
        _book_files(data, written)
        placed = [f"/{glob.strip('/')}" for glob in _book_globs(data, [])]
    listed: list[Entry] = []
    for entry in written:
        rel = posixpath.normpath(entry.lstrip("/"))
        if rel not in tree.files:  # Jupyter Book leaves the extension out
            rel = next((rel + s for s in BOOK_SUFFIXES if rel + s in tree.files), rel)
        listed.append(Entry("" if rel == "." else rel, getattr(entry, "line", 0), entry, False))
    return Toc(toc, None, "", tuple(listed), every, tuple(unlisted), tuple(placed))


def _literate_navs(tree: Tree, main: Toc, data: Any) -> list[Toc]:
    """The navigation files of mkdocs-literate-nav: a nav entry that names a folder (or, with
    no `nav`, the docs folder itself) takes its nav from the folder's `nav_file` (default
    SUMMARY.md), a page whose links list the section, and whose own folder links do the same
    one level down."""
    nav_file = _literate_nav_file(data) if isinstance(data, dict) else None
    if nav_file is None:
        return []
    folders = [entry.target for entry in main.entries if entry.target in tree.folders]
    if main.every_page:
        folders = [""]
    out: list[Toc] = []
    seen: set[str] = set()
    while folders:
        folder = folders.pop(0)
        rel = posixpath.join(folder, nav_file) if folder else nav_file
        if rel in seen or rel not in tree.summaries:
            continue
        seen.add(rel)
        table = _docfx_toc(tree, rel)  # a page's links as entries
        out.append(table)
        folders.extend(entry.target for entry in table.entries if entry.target in tree.folders)
    return out


def _literate_nav_file(data: dict[str, Any]) -> str | None:
    """The `nav_file` of the literate-nav plugin (None: the plugin is not on)."""
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


def _mkdocs_nav(node: Any, out: list[str]) -> None:
    if isinstance(node, str):
        if "://" not in node:
            out.append(node)
    elif isinstance(node, list):
        for item in node:
            _mkdocs_nav(item, out)
    elif isinstance(node, dict):
        for value in node.values():
            _mkdocs_nav(value, out)


def _book_files(node: Any, out: list[str]) -> None:
    if isinstance(node, dict):
        for key in ("root", "file"):
            if isinstance(node.get(key), str):
                out.append(node[key])
        for value in node.values():
            if isinstance(value, (list, dict)):
                _book_files(value, out)
    elif isinstance(node, list):
        for item in node:
            _book_files(item, out)


def _book_globs(node: Any, out: list[str]) -> list[str]:
    """The `glob:` patterns of a Jupyter Book `_toc.yml`."""
    if isinstance(node, dict):
        if isinstance(node.get("glob"), str):
            out.append(node["glob"])
        for value in node.values():
            if isinstance(value, (list, dict)):
                _book_globs(value, out)
    elif isinstance(node, list):
        for item in node:
            _book_globs(item, out)
    return out


def toctree_fact(rel: str, page: Page, policy: Policy) -> tuple[tuple[str, int, str, bool], ...]:
    """(target, line, entry as written, a glob) for the entries of the page's `{toctree}`
    directives, targets root-relative (`/x` from the root), when `index.toctree` is on."""
    if not (policy.data.get("index") or {}).get("toctree") or "toctree" not in page.text:
        return ()
    folder = posixpath.dirname(rel)
    out = []
    for line, written, glob in myst.toctree_entries(page):
        joined = written.lstrip("/") if written.startswith("/") else posixpath.join(folder, written)
        target = posixpath.normpath(joined) if joined else ""
        out.append(("" if target == "." else target, line, written, glob))
    return tuple(out)


def _toctrees(tree: Tree) -> list[Toc]:
    """The pages whose `{toctree}` directives list pages (the `toctree` fact), each a table
    of contents of the whole tree: a page none lists is unregistered, as Sphinx warns."""
    out = []
    for rel in sorted(tree.facts):
        entries = tree.facts[rel].get("toctree", ())
        if not entries:
            continue
        listed = tuple(
            Entry(t, line, written, False) for t, line, written, glob in entries if not glob
        )
        globs = tuple(f"/{t}" for t, _, _, glob in entries if glob)
        out.append(Toc(tree.repo_path(rel), None, "", listed, False, (), globs))
    return out


def _docfx_toc(tree: Tree, rel: str) -> Toc:
    """A DocFX table of contents at root-relative `rel` (toc.yml or toc.md)."""
    folder = posixpath.dirname(rel)
    if rel.endswith(".md"):
        summary = tree.summaries.get(rel)
        links = summary.links if summary is not None else ()
        entries = tuple(Entry(target, line, written, False) for target, line, written in links)
        site = tree.facts.get(rel, {}).get("site_links", ())
        entries += tuple(Entry(target, line, written, True) for target, line, written in site)
        return Toc(tree.repo_path(rel), rel, folder, entries, False, ())
    data = _read_yaml(tree.repo / tree.repo_path(rel))
    hrefs: list[str] = []
    _docfx_items(data, hrefs)
    entries_list = []
    for href in hrefs:
        if "://" in href or href.startswith(("mailto:", "//", "xref:", "#")):
            continue
        path = href.split("#", 1)[0].split("?", 1)[0]
        if not path:
            continue
        site = path.startswith("/")
        if site or is_absolute(path):
            target = path
        else:
            joined = posixpath.normpath(posixpath.join(folder, path))
            target = "" if joined == "." else joined
        entries_list.append(Entry(target, getattr(href, "line", 0), str(href), site))
    return Toc(tree.repo_path(rel), None, folder, tuple(entries_list), False, ())


def _docfx_items(node: Any, out: list[str]) -> None:
    if isinstance(node, dict):
        for key in ("href", "topicHref", "homepage"):
            if isinstance(node.get(key), str) and node[key].strip():
                out.append(node[key])
        for key in ("items", "children"):
            if key in node:
                _docfx_items(node[key], out)
    elif isinstance(node, list):
        for item in node:
            _docfx_items(item, out)


def toc_targets(tree: Tree) -> set[str]:
    """The pages the tables of contents list (resolved under the link options), and the
    tables that are pages themselves: inbound links for `lint/orphan`."""
    from kbkit.checks.link_model import Resolver

    resolver = Resolver(tree)
    tables = tocs(tree)
    out: set[str] = set()
    placed = _placed(tables, tree.policy)
    if placed:
        out.update(_matching(tree, placed))
    out.update(pages_placed_by_pages(tree))
    for toc in tables:
        if toc.rel is not None:
            out.add(toc.rel)
        for entry in toc.entries:
            found = _resolve(resolver, entry)
            if found is not None:
                out.add(found)
    return out


def every_page_listed(tree: Tree) -> bool:
    """mkdocs.yml without `nav`: navigation lists every page, so none is an orphan."""
    return any(toc.every_page for toc in tocs(tree))


def _resolve(resolver: Any, entry: Entry) -> str | None:
    if entry.site:
        from kbkit.checks.link_model import site_candidates

        candidates = site_candidates(resolver.model, entry.target)
        if candidates is None:
            return None
        return resolver.site_target(candidates[0], entry.written)
    return resolver.target(entry.target)


def _toc_findings(tree: Tree, pages: list[str]) -> list[Finding]:
    from kbkit.checks.link_model import Resolver, site_candidates

    resolver = Resolver(tree)
    tables = tocs(tree)
    listed: set[str] = pages_placed_by_pages(tree)
    findings: list[Finding] = []
    for toc in tables:
        counts: Counter[str] = Counter()
        for entry in toc.entries:
            if entry.site and site_candidates(resolver.model, entry.target) is None:
                continue  # another part of the site
            found = _resolve(resolver, entry)
            if found is None:
                if toc.rel is None:  # a page's broken links are reported as links already
                    findings.append(_broken_entry(tree, toc, entry))
                continue
            listed.add(found)
            if found.endswith(".md") and found in tree.summaries:
                counts[found] += 1
                if counts[found] == 2:
                    findings.append(
                        PAGE_REGISTERED_TWICE.at(
                            toc.path,
                            entry.line,
                            f"{found} is already listed in {toc.path}: keep one entry",
                        )
                    )
    if any(toc.every_page for toc in tables):
        return findings
    unlisted = _unlisted_spec(tables, tree.policy)
    own = {toc.rel for toc in tables}
    covers = sorted(((toc.folder, toc.path) for toc in tables), key=lambda c: -len(c[0]))
    for rel in pages:
        if rel in listed or rel in own:
            continue
        if unlisted is not None and unlisted.match_file(rel):
            continue
        where = next(
            (path for folder, path in covers if not folder or rel.startswith(folder + "/")), None
        )
        if where is None:
            continue  # no table of contents covers this folder
        findings.append(
            PAGE_UNREGISTERED.at(
                tree.repo_path(rel), 0, f"not listed in {where}: add one entry for this page there"
            )
        )
    return findings


# `{{#include path}}`, `{{#include path:anchor}}`, `{{#rustdoc_include path:1:3}}`; a
# backslash before the braces writes the directive as text
_INCLUDE = lazy(r"(?<!\\)\{\{#(?:include|rustdoc_include)[ \t]+([^\s:}]+)")


def include_fact(rel: str, page: Page, policy: Policy) -> tuple[str, ...]:
    """The pages (root-relative `.md` paths) the page includes with mdBook's directives,
    when `index.includes` is on: a page fact, as the page's links are."""
    if not (policy.data.get("index") or {}).get("includes") or "{{#" not in page.text:
        return ()
    folder = posixpath.dirname(rel)
    found = (
        posixpath.normpath(posixpath.join(folder, match[1]))
        for match in _INCLUDE.finditer(page.text)
        if match[1].endswith(".md")
    )
    return tuple(dict.fromkeys(found))


def is_redirect(page: Page, policy: Policy) -> bool:
    """Whether the page's frontmatter makes it a redirect (`index.redirect_keys`)."""
    keys = (policy.data.get("index") or {}).get("redirect_keys") or ()
    data = page.frontmatter.data
    return isinstance(data, dict) and any(str(key) in data for key in keys)


def pages_placed_by_pages(tree: Tree) -> set[str]:
    """The pages other pages place: those some page includes (`include_fact`) and those
    that are redirects (the `redirect` fact): they need no entry and count as linked."""
    placed = {rel for rel, facts in tree.facts.items() if facts.get("redirect")}
    placed.update(
        target
        for facts in tree.facts.values()
        for target in facts.get("includes", ())
        if target in tree.summaries
    )
    return placed


def _matching(tree: Tree, globs: tuple[str, ...]) -> list[str]:
    import pathspec

    spec = pathspec.GitIgnoreSpec.from_lines(globs)
    return [rel for rel in tree.summaries if spec.match_file(rel)]


def _placed(tables: list[Toc], policy: Policy) -> tuple[str, ...]:
    """Globs of the pages navigation the site generates lists (`index.placed`, blog posts)."""
    globs = [*map(str, (policy.data.get("index") or {}).get("placed") or ())]
    for toc in tables:
        globs.extend(toc.placed)
    return tuple(globs)


def _unlisted_spec(tables: list[Toc], policy: Policy) -> Any:
    globs = [*map(str, (policy.data.get("index") or {}).get("unlisted") or ())]
    globs.extend(_placed(tables, policy))
    for toc in tables:
        globs.extend(toc.unlisted)
    if not globs:
        return None
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(globs)


def _broken_entry(tree: Tree, toc: Toc, entry: Entry) -> Finding:
    shown = tree.repo_path(entry.target) if not entry.site else entry.written
    return LINK_BROKEN.at(
        toc.path,
        entry.line,
        f"table of contents entry {quote(entry.written)}: nothing at {shown}; fix the path "
        "or remove the entry",
    )


def _read_yaml(path: Path) -> Any:
    data = read_config_bytes(path, MAX_TOC_BYTES, "the table of contents")
    text = data.decode("utf-8", "replace")
    read, value = load_toc(text)  # the common shape, without PyYAML's Python constructors
    if read:
        return value
    try:  # TocLoader has the YAML limits (aliases, integers) of kbkit.infra.bounded_yaml
        return yaml.load(text, Loader=TocLoader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        raise UsageError(f"{path}: invalid table of contents YAML ({exc})") from exc


def _parent_findings(tree: Tree, pages: list[str]) -> list[Finding]:
    from kbkit.checks.link_model import Resolver, is_site_link, link_model

    resolver = Resolver(tree)
    site_root = link_model(tree.policy).site_root
    key = str(tree.policy.data["index"].get("parent_key") or "parent")
    findings = []
    for rel in pages:
        written, line = tree.facts[rel].get("parent", ("", 0))
        if not written:
            findings.append(
                PAGE_UNREGISTERED.at(
                    tree.repo_path(rel), 0, f"no `{key}:` key: name the page this one belongs under"
                )
            )
            continue
        path = written.split("#", 1)[0].split("?", 1)[0]
        if is_site_link(path) and site_root is not None:
            target = posixpath.normpath(posixpath.join(site_root or ".", path.lstrip("/")))
        else:
            target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), path))
        target = "" if target == "." else target
        if resolver.target(target) is None:
            findings.append(
                PAGE_UNREGISTERED.at(
                    tree.repo_path(rel), line, f"`{key}: {written}` names no page: fix the parent"
                )
            )
    return findings


def toc_digest(tree: Tree) -> bytes:
    """The digest of every YAML table of contents (the result snapshot must know them: the
    tree's walk knows their names, not their bytes)."""
    if model(tree.policy) != TOC:
        return b""
    index = tree.policy.data.get("index") or {}
    paths = []
    toc = index.get("toc")
    if toc and not str(toc).endswith(".md"):
        paths.append(tree.repo / str(toc))
    names = set(map(str, index.get("toc_files") or ()))
    if names:
        paths.extend(
            tree.repo / tree.repo_path(rel)
            for rel in sorted(tree.files)
            if rel.rsplit("/", 1)[-1] in names and not rel.endswith(".md")
        )
    digest = hashlib.blake2b(digest_size=16)
    for path in paths:
        digest.update(read_config_bytes(path, MAX_TOC_BYTES, "the table of contents"))
        digest.update(b"\0")
    return digest.digest()
