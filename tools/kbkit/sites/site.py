"""What a site module says of a repository it recognises."""

from __future__ import annotations

from typing import Any, NamedTuple


class Site(NamedTuple):
    generator: str  # what builds it, in words ("MkDocs", "a docs/ folder")
    config: str  # the repo-relative file (or folder) that told
    profile: str  # the built-in profile
    root: str  # the knowledge root, repo-relative ("." for the top)
    keys: dict[str, Any]  # policy keys beyond the profile's
    published: tuple[str, ...] = (".md",)  # the page file suffixes it publishes from its root
    elsewhere: tuple[str, ...] = ()  # repo-relative folders it publishes pages from, not read
