"""Obsidian: a vault is a folder holding `.obsidian/` (the app's settings), at the top of the
repository or one folder down (`docs/.obsidian/`: a plugin's docs published with Obsidian
Publish). Pages link by name (`[[Page]]`, `[[Page#Heading]]`, `![[image.png]]`) wherever
they sit in the vault, letter case ignored as Obsidian ignores it, and a front matter
`aliases:` name reaches its page too. Obsidian has no navigation file: its file explorer
lists every page, so a page is left out only when no page links to it (`lint/orphan`).
The folders Obsidian Publish leaves out (`.obsidian/publish.json`'s `excluded`) and the
templates folder (the core Templates plugin's `templates.json`, Templater's
`templates_folder`) hold no published pages: they are `unpublished`. Pages a Dataview query or a Base lists are not orphans either
(`links.queries`, `kbkit.sites.vault_queries`)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kbkit.sites import vault_queries
from kbkit.sites.config import has_pages, read_json, read_sample
from kbkit.sites.plain import SKIPPED
from kbkit.sites.site import Generator, Queries, Site

SETTINGS = ".obsidian"
PUBLISHED = (".md",)
KEYS: dict[str, dict[str, Any]] = {
    "links": {
        "wikilinks": True,
        "case_insensitive": True,
        "anchors": True,
        "aliases": True,
    },
    "index": {"model": "none"},
}


def detect(repo: Path) -> Site | None:
    """The vault at the top, else the one folder down with the most pages, else a vault
    whose `.obsidian/` is not committed (it is per user: many vaults ignore it) but whose
    pages link by name (`[[Page]]`, which no forge renders) more than by path."""
    if (repo / SETTINGS).is_dir() and has_pages(repo):
        return _site(repo, ".")
    found = _vault_below(repo)
    if found is None and not (repo / "knowledge").exists() and _links_by_name(repo):
        return _site(repo, ".", "[[wikilinks]]")
    return found


MAX_SAMPLED = 400  # pages read to tell a vault by its links
MAX_SAMPLE_BYTES = 256 * 1024  # of each
# What `(?<!`)\[\[[^\]\n]+\]\]` and `\]\((?![a-z]+:|#)[^)\s]+\)` find, counted in one pass
# (`_count`): a run of `[` or `](` with no end was read to the line's end from each start
_WIKILINK_NAME = re.compile(r"[^\]\n]*")
_PATH_TARGET = re.compile(r"[^)\s]*")
_NOT_A_PATH = re.compile(r"[a-z]+:|#")


def _links_by_name(repo: Path) -> bool:
    """Whether most linking pages (a sample) link by `[[name]]` rather than `](path)`."""
    by_name = by_path = 0
    for page in _sample(repo):
        text = read_sample(page, MAX_SAMPLE_BYTES)
        if text is None:
            continue
        names, paths = wikilink_count(text), path_link_count(text)
        by_name += names > paths
        by_path += paths > names
    return by_name >= 5 and by_name > 2 * by_path


def wikilink_count(text: str) -> int:
    """`[[name]]` links not right after a backtick."""
    return _count(text, "[[", _WIKILINK_NAME, "]]", lambda text, at: text[at - 1 : at] != "`")


def path_link_count(text: str) -> int:
    """`](path)` links to no web address and no fragment alone."""
    return _count(
        text, "](", _PATH_TARGET, ")", lambda text, at: not _NOT_A_PATH.match(text, at + 2)
    )


def _count(
    text: str, lead: str, run: re.Pattern[str], close: str, allowed: Callable[[str, int], bool]
) -> int:
    """How many times `lead`, a non-empty `run` and `close` follow each other, counted as
    `findall` counts them (`allowed(text, start)`: what the pattern asks before its start
    or after its lead). A start whose run does not close skips the run: every later start in
    it ends its run at the same character."""
    count = 0
    position = 0
    while (start := text.find(lead, position)) >= 0:
        if not allowed(text, start):
            position = start + 1
            continue
        body = start + len(lead)
        found = run.match(text, body)  # a `*` run: always found
        end = found.end() if found is not None else body
        if end > body and text.startswith(close, end):
            count += 1
            position = end + len(close)
        else:
            position = max(end, start + 1)
    return count


def _sample(repo: Path) -> list[Path]:
    """Up to MAX_SAMPLED pages, folders in name order, hidden and dependency folders left
    out (a walk that stops early: a large repository is not read whole)."""
    out: list[Path] = []
    for folder, names, files in os.walk(repo):
        names[:] = sorted(n for n in names if not n.startswith(".") and n not in SKIPPED)
        out.extend(Path(folder) / f for f in sorted(files) if f.endswith(".md"))
        if len(out) >= MAX_SAMPLED:
            break
    return out[:MAX_SAMPLED]


def _vault_below(repo: Path) -> Site | None:
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


def _site(repo: Path, root: str, told: str = "") -> Site:
    config = told or (f"{root}/{SETTINGS}/" if root != "." else f"{SETTINGS}/")
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
    if _uses_queries(repo / root, settings):
        keys["links"]["queries"] = True  # a vault without them pays nothing for them
    return Site("Obsidian", config, "public-docs", root, keys, PUBLISHED)


def _uses_queries(vault: Path, settings: Path) -> bool:
    """Whether the vault lists pages by query (`links.queries`): it holds a Base (`.base`),
    or has the Dataview plugin enabled, or a sampled page holds a Dataview query."""
    if _has_base(vault):
        return True
    enabled = read_json(settings / "community-plugins.json")
    if isinstance(enabled, list) and "dataview" in enabled:
        return True
    for page in _sample(vault):
        text = read_sample(page, MAX_SAMPLE_BYTES)
        if text is None:
            continue
        if "```dataview" in text or "`= " in text or "`$=" in text:
            return True
    return False


def _has_base(vault: Path) -> bool:
    """Whether the vault holds a Base (`.base`), hidden and dependency folders left out (a
    walk that stops at the first one)."""
    for _, names, files in os.walk(vault):
        names[:] = [n for n in names if not n.startswith(".") and n not in SKIPPED]
        if any(name.endswith(".base") for name in files):
            return True
    return False


def _json(path: Path) -> dict[str, Any]:
    """A settings file of the vault as a mapping ({} when absent or unreadable)."""
    data = read_json(path)
    return data if isinstance(data, dict) else {}


def _strings(value: Any) -> list[str]:
    """A setting's folder names: one text, or a list of them."""
    items = value if isinstance(value, list) else [value]
    return [item for item in items if isinstance(item, str)]


QUERIES = Queries(
    page_sources=vault_queries.page_sources,
    page_tags=vault_queries.page_tags,
    file_suffix=".base",
    file_sources=vault_queries.base_sources,
    listed=vault_queries.listed,
    renders_own_fields=vault_queries.renders_own_fields,
)
GENERATOR = Generator("obsidian", detect_later=detect, queries=QUERIES)
