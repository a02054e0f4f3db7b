"""Obsidian: a vault is a folder holding `.obsidian/` (the app's settings), at the top of the
repository or one folder down (`docs/.obsidian/`: a plugin's docs published with Obsidian
Publish). Pages link by name (`[[Page]]`, `[[Page#Heading]]`, `![[image.png]]`) wherever
they sit in the vault, letter case ignored as Obsidian ignores it, and a front matter
`aliases:` name reaches its page too. Obsidian has no navigation file: its file explorer
lists every page, so a page is left out only when no page links to it (`lint/orphan`)."""

from __future__ import annotations

from pathlib import Path

from kbkit.sites.config import has_pages
from kbkit.sites.site import Site

SETTINGS = ".obsidian"
PUBLISHED = (".md",)
KEYS = {
    "links": {"wikilinks": True, "case_insensitive": True, "anchors": True, "aliases": True},
    "index": {"model": "none"},
}


def detect(repo: Path) -> Site | None:
    """The vault at the top, else the one folder down with the most pages."""
    if (repo / SETTINGS).is_dir() and has_pages(repo):
        return _site(".")
    vaults = []
    try:
        folders = sorted(p for p in repo.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return None
    for folder in folders:
        if (folder / SETTINGS).is_dir() and has_pages(folder):
            vaults.append((sum(1 for _ in folder.rglob("*.md")), folder.name))
    if not vaults:
        return None
    return _site(max(vaults, key=lambda item: (item[0], item[1]))[1])


def _site(root: str) -> Site:
    config = f"{root}/{SETTINGS}/" if root != "." else f"{SETTINGS}/"
    keys = {name: dict(value) for name, value in KEYS.items()}
    return Site("Obsidian", config, "public-docs", root, keys, PUBLISHED)
