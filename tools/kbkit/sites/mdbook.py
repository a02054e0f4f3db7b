"""mdBook: `[book] src` of `book.toml` (default `src`), at the top or one folder down."""

from __future__ import annotations

import posixpath
import tomllib
from pathlib import Path
from typing import Any

from kbkit.sites.config import (
    present,
    read_config,
)
from kbkit.sites.site import Site


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
