"""Docusaurus: `docs/` beside `docusaurus.config.*`, with the `public-docs` stance."""

from __future__ import annotations

from pathlib import Path

from kbkit.sites.config import (
    has_pages,
    index_keys,
)
from kbkit.sites.site import Site

PUBLISHED = (".md", ".mdx")  # the page files it builds


def detect(repo: Path) -> Site | None:
    """`docusaurus.config.{js,ts,mjs,cjs}` at the top with pages in `docs/`."""
    for suffix in ("js", "ts", "mjs", "cjs"):
        if (repo / f"docusaurus.config.{suffix}").is_file() and has_pages(repo / "docs"):
            config = f"docusaurus.config.{suffix}"
            return Site(
                "Docusaurus", config, "public-docs", "docs", index_keys(repo / "docs"), PUBLISHED
            )
    return None
