"""mdBook: `[book] src` of `book.toml` (default `src`), at the top or one folder down.

What the checks ask of it: `book.toml`'s `[output.html.redirect]` table (`read_redirects`: a
new path relative to the old one's folder) and the pages a page pulls in with
`{{#include}}` (`page_includes`). Its navigation, `SUMMARY.md`, is a page whose links list
the book: the checks read it as any page's links."""

from __future__ import annotations

import posixpath
import tomllib
from pathlib import Path
from typing import Any

from kbkit.infra.lazy_pattern import lazy
from kbkit.sites.config import (
    present,
    read_config,
)
from kbkit.sites.site import Generator, Redirects, RedirectSource, Site

# `{{#include path}}`, `{{#include path:anchor}}`, `{{#rustdoc_include path:1:3}}`; a
# backslash before the braces writes the directive as text
_INCLUDE = lazy(r"(?<!\\)\{\{#(?:include|rustdoc_include)[ \t]+([^\s:}]+)")


def detect(repo: Path) -> Site | None:
    """`book.toml` at the top."""
    return _book(repo, repo / "book.toml") if present(repo / "book.toml") else None


def detect_nested(repo: Path) -> Site | None:
    """A book one folder down (`guide/book.toml`, `docs/book.toml`): asked after the
    generators whose configuration sits at the top."""
    books = sorted(repo.glob("*/book.toml"))
    return _book(repo, books[0]) if books else None


def _book(repo: Path, path: Path) -> Site:
    """The book whose `book.toml` is `path`: its `[book] src` folder, from the book's own."""
    try:
        data = tomllib.loads(read_config(path))
    except ValueError:
        data = {}
    book: dict[str, Any] = data["book"] if isinstance(data.get("book"), dict) else {}
    src = str(book.get("src") or "src").strip("/") or "."
    folder = path.parent.relative_to(repo).as_posix()
    root = posixpath.normpath(posixpath.join(folder, src))
    config = path.relative_to(repo).as_posix()
    # the profile reads the redirects of a book.toml at the top
    keys = {} if folder == "." else {"links": {"redirects": config}}
    return Site("mdBook", config, "mdbook", root, keys)


def read_redirects(source: RedirectSource) -> Redirects | None:
    """`book.toml`'s `[output.html.redirect]` table (unless `links.redirects_key` names the
    mapping)."""
    if source.keyed or source.path.suffix != ".toml":
        return None
    data = source.data
    table = ((data.get("output") or {}).get("html") or {}).get("redirect") or {}
    return Redirects(table, new_from_old=True)


def page_includes(text: str) -> tuple[str, ...]:
    """The `.md` files (relative to the page's folder) the page includes with mdBook's
    directives, once each."""
    if "{{#" not in text:
        return ()
    found = (match[1] for match in _INCLUDE.finditer(text) if match[1].endswith(".md"))
    return tuple(dict.fromkeys(found))


GENERATOR = Generator(
    "mdbook",
    detect=detect,
    detect_later=detect_nested,
    read_redirects=read_redirects,
    page_includes=page_includes,
)
