"""What a site module says of a repository it recognises, and what it answers the checks.

Each generator's module exports `GENERATOR`, a `Generator`: its name, its `detect` and the
hooks the checks ask about the files and pages only that generator reads. A hook a
generator does not have is None; a hook that is handed something not in its generator's
format answers None, and the next generator of the registry is asked. Hooks take plain
data (paths, parsed YAML, text, `kbkit.pages` pages) and return plain data: this layer sits
below the policy and the tree, so the checks do the resolving and the findings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from kbkit.pages.page import Page

# how a navigation entry names its page (`Navigation.names`)
ROOT_PATH = "root"  # a path from the knowledge root (`/x` the same)
FILE_PATH = "file"  # a path from the navigation file's folder; `/x` a site path
DOC_ID = "id"  # a doc id (`Generator.doc_id`)


class Site(NamedTuple):
    generator: str  # what builds it, in words ("MkDocs", "a docs/ folder")
    config: str  # the repo-relative file (or folder) that told
    profile: str  # the built-in profile
    root: str  # the knowledge root, repo-relative ("." for the top)
    keys: dict[str, Any]  # policy keys beyond the profile's
    published: tuple[str, ...] = (".md",)  # the page file suffixes it publishes from its root
    elsewhere: tuple[str, ...] = ()  # repo-relative folders it publishes pages from, not read
    published_elsewhere: tuple[str, ...] = ()  # the suffixes it publishes there (else `published`)


class NavSource(NamedTuple):
    """A navigation file the policy names, handed to `Generator.read_navigation`."""

    key: str  # the `index:` key that names it: "toc", "toc_files" or "sidebars"
    path: Path  # the file
    data: Any  # its parsed YAML ("toc", "toc_files"), or its text ("sidebars")
    options: Mapping[str, Any]  # the policy's `index:` options
    load: Callable[[str], Any]  # reads another repo-relative YAML file, within the limits


class Navigation(NamedTuple):
    """A navigation file as its generator reads it: the entries as written."""

    entries: tuple[tuple[str, int], ...]  # (entry as written, its line; 0: unknown)
    names: str = ROOT_PATH  # how an entry names its page: ROOT_PATH, FILE_PATH or DOC_ID
    every_page: bool = False  # the site lists every page itself (MkDocs without `nav`)
    unlisted: tuple[str, ...] = ()  # gitignore globs (root-relative) of pages needing no entry
    placed: tuple[str, ...] = ()  # globs of pages the generator lists itself (blog posts)
    nav_pages: str | None = None  # a page of this name in a listed folder lists the folder
    suffixes: tuple[str, ...] = ()  # what an entry written without its suffix may name


class RedirectSource(NamedTuple):
    """A file `links.redirects` names, handed to `Generator.read_redirects`."""

    repo: Path
    path: Path  # the file
    data: Any  # its parsed JSON, YAML or TOML
    keyed: bool  # `links.redirects_key` is set: the mapping is that key's, unless the
    # file's content says it is the generator's own
    load: Callable[[Path], Any]  # reads another redirects file, parsed, within the limits


class Redirects(NamedTuple):
    """A redirects file as its generator reads it (`Generator.read_redirects`)."""

    mapping: Any  # {old: new} as written (the checks hold it to that shape)
    from_repo: bool = False  # old paths are repo-relative (else root-relative or site paths)
    new_from_old: bool = False  # a relative new path is relative to the old one's folder
    files: tuple[Path, ...] = ()  # more files read for it (their redirects in `mapping`)


class Labels(NamedTuple):
    """Names a page defines that links name instead of a path (`links.labels`)."""

    defined: Callable[[Page], tuple[str, ...]]  # the names the page defines, normalised
    normalized: Callable[[str], str]  # a name as written in a link, as the generator keeps it
    element_id: Callable[[str], str]  # the HTML id a name (or a heading's text) is given
    built_in: frozenset[str]  # names of the pages every build writes
    # a link `name:rest` is a URL (or names a file) when `name` is one of these; any other
    # names a label (`(source-files:repository)=`)
    url_schemes: frozenset[str] = frozenset()


class Queries(NamedTuple):
    """The pages a site lists by query instead of by link (`links.queries`): sources are
    (kind, value) pairs, ("folder", path from the vault's top) or ("tag", lower case)."""

    page_sources: Callable[[Page], tuple[tuple[str, str], ...]]  # what a page's queries list
    page_tags: Callable[[Page], tuple[str, ...]]  # the tags a tag source finds a page by
    file_suffix: str  # files that are queries of their own (Obsidian's Bases: `.base`)
    # what such a file (parsed YAML) lists; None: every page
    file_sources: Callable[[Any], tuple[tuple[str, str], ...] | None]
    # whether a page (path from the vault's top, its tags) is one that the sources list
    listed: Callable[[str, tuple[str, ...], set[tuple[str, str]]], bool]
    # a page whose body shows its own front matter: the same template is no copy
    renders_own_fields: Callable[[Page], bool]


class Generator(NamedTuple):
    """A generator: how it is detected, and the hooks the checks ask (None: it has none)."""

    name: str  # the module's name, as the registry lists it
    # its configuration where a generator's sits (at the top, or one folder down): asked
    # first, in registry order
    detect: Callable[[Path], Site | None] | None = None
    # asked after every generator's `detect`, in registry order: a configuration further
    # away, or none but the pages' own look (a vault's links, a folder of markdown)
    detect_later: Callable[[Path], Site | None] | None = None
    # the navigation files named by `index.toc`, `index.toc_files`, `index.sidebars`
    read_navigation: Callable[[NavSource], Navigation | None] | None = None
    # a file `links.redirects` names
    read_redirects: Callable[[RedirectSource], Redirects | None] | None = None
    # the entries a page lists with its own navigation directives: (line, written, a glob)
    page_navigation: Callable[[Page], tuple[tuple[int, str, bool], ...]] | None = None
    # the pages (relative to the page's folder) a page includes (`index.includes`)
    page_includes: Callable[[str], tuple[str, ...]] | None = None
    # link syntax only this generator has (`links.liquid_links`): (path from the source
    # folder, line, as written)
    page_links: Callable[[Page], list[tuple[str, int, str]]] | None = None
    # whether such a link (as written) names its file without the suffix
    link_names_stem: Callable[[str], bool] | None = None
    # a page's doc id from its root-relative path and front matter (`index.sidebars`)
    doc_id: Callable[[str, Any], str] | None = None
    # a file or folder name as its URL names it (`links.number_prefixes`)
    url_name: Callable[[str], str] | None = None
    labels: Labels | None = None  # `links.labels`
    queries: Queries | None = None  # `links.queries`
    # where the page's text pulls in text it does not hold, which may bring headings
    # (`links.inserted_text`): the offsets of those lines
    inserts_text: Callable[[str], tuple[int, ...]] | None = None
    # a site of this generator whose pages kbkit cannot read (Sphinx with reStructuredText
    # alone), said by `kb init` when it sets up a new tree instead: (config, what it builds)
    unread_site: Callable[[Path], tuple[str, str] | None] | None = None


def lines_led_by(text: str, *literals: str) -> list[int]:
    """The offsets of the lines of `text` whose first text after any spaces and tabs is one
    of `literals` (none starting with a space, a tab or a line end): what `(?m)^[ \t]*`
    and the literals find, with each literal found by `str.find`, many times faster."""
    starts = set()
    for literal in literals:
        at = text.find(literal)
        while at >= 0:
            line = text.rfind("\n", 0, at) + 1
            if not text[line:at].strip(" \t"):
                starts.add(line)
            at = text.find(literal, at + 1)
    return sorted(starts)
