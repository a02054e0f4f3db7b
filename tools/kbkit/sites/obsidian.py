"""Obsidian: a vault is a folder holding `.obsidian/` (the app's settings), at the top of the
repository or one folder down (`docs/.obsidian/`: a plugin's docs published with Obsidian
Publish). Pages link by name (`[[Page]]`, `[[Page#Heading]]`, `![[image.png]]`) wherever
they sit in the vault, letter case ignored as Obsidian ignores it, and a front matter
`aliases:` name reaches its page too. Obsidian has no navigation file: its file explorer
lists every page, so a page is left out only when no page links to it (`lint/orphan`).
The folders Obsidian Publish leaves out (`.obsidian/publish.json`'s `excluded`) and the
templates folder (the core Templates plugin's `templates.json`, Templater's
`templates_folder`) hold no published pages: they are `unpublished`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kbkit.infra import json_input
from kbkit.sites.config import has_pages, present, read_config
from kbkit.sites.site import Site

SETTINGS = ".obsidian"
PUBLISHED = (".md",)
KEYS: dict[str, dict[str, Any]] = {
    "links": {"wikilinks": True, "case_insensitive": True, "anchors": True, "aliases": True},
    "index": {"model": "none"},
}


def detect(repo: Path) -> Site | None:
    """The vault at the top, else the one folder down with the most pages."""
    if (repo / SETTINGS).is_dir() and has_pages(repo):
        return _site(repo, ".")
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
    return _site(repo, max(vaults, key=lambda item: (item[0], item[1]))[1])


def _site(repo: Path, root: str) -> Site:
    config = f"{root}/{SETTINGS}/" if root != "." else f"{SETTINGS}/"
    keys: dict[str, Any] = {name: dict(value) for name, value in KEYS.items()}
    settings = repo / root / SETTINGS
    folders = [
        *_strings(_json(settings / "publish.json").get("excluded")),
        *_strings(_json(settings / "templates.json").get("folder")),
        *_strings(_json(settings / "plugins/templater-obsidian/data.json").get("templates_folder")),
    ]
    globs = [f"/{f.strip('/')}/" for f in folders if f.strip("/") and ".." not in f.split("/")]
    if globs:
        keys["unpublished"] = list(dict.fromkeys(globs))
    return Site("Obsidian", config, "public-docs", root, keys, PUBLISHED)


def _json(path: Path) -> dict[str, Any]:
    """A settings file of the vault as a mapping ({} when absent or unreadable)."""
    if not present(path):
        return {}
    try:
        data = json_input.loads(read_config(path))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _strings(value: Any) -> list[str]:
    """A setting's folder names: one text, or a list of them."""
    items = value if isinstance(value, list) else [value]
    return [item for item in items if isinstance(item, str)]
