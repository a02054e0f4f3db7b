"""No generator: markdown that GitHub (or any forge) renders as it is."""

from __future__ import annotations

from pathlib import Path

from kbkit.sites.config import (
    has_pages,
    index_keys,
)
from kbkit.sites.site import Site


def detect(repo: Path) -> Site | None:
    """A `docs/` folder with pages and no `knowledge/`: GitHub renders the markdown."""
    if has_pages(repo / "docs") and not (repo / "knowledge").exists():
        return Site("a docs/ folder", "docs/", "public-docs", "docs", index_keys(repo / "docs"))
    return None
