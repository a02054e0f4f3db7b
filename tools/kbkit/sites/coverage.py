"""How much of what a site publishes kbkit reads: said by `kb init`, so a check never covers
the wrong thing silently."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import NamedTuple

from kbkit.sites.plain import markdown_by_top_folder
from kbkit.sites.site import Site

READ = ".md"  # the pages kbkit reads


class Coverage(NamedTuple):
    read: int  # the pages kbkit reads under the root
    unread: dict[str, int]  # page suffix -> pages the site publishes that kbkit does not read
    elsewhere: int  # markdown pages of the repository outside the root (no generator only)
    other: dict[str, int] = {}  # noqa: RUF012 - page suffix -> pages published from other folders


def coverage(repo: Path, site: Site) -> Coverage:
    """Count the pages under the site's root by suffix (hidden folders left out)."""
    read = tuple((site.keys.get("pages") or {}).get("extensions") or (READ,))
    counts = _pages(repo / site.root, site.published + read)
    unread = {s: n for s, n in sorted(counts.items()) if s not in read and n}
    other: Counter[str] = Counter()
    for folder in site.elsewhere:
        other.update(_pages(repo / folder, site.published_elsewhere or site.published))
    elsewhere = 0
    if site.config.endswith("/") and site.root != ".":  # the forge renders every markdown page
        by_folder = markdown_by_top_folder(repo)
        elsewhere = sum(n for name, n in by_folder.items() if name != site.root)
    return Coverage(sum(counts[s] for s in read), unread, elsewhere, dict(sorted(other.items())))


def _pages(top: Path, suffixes: tuple[str, ...]) -> Counter[str]:
    """Files under `top` by page suffix (hidden files and folders left out)."""
    counts: Counter[str] = Counter()
    if top.is_dir():
        for path in top.rglob("*"):
            rel = path.relative_to(top).parts
            if any(part.startswith(".") for part in rel) or not path.is_file():
                continue
            suffix = path.suffix if path.suffix in suffixes else path.suffix.lower()
            if suffix in suffixes:
                counts[suffix] += 1
    return counts


def read_suffixes(site: Site) -> list[str]:
    return list((site.keys.get("pages") or {}).get("extensions") or (READ,))


def words(site: Site, found: Coverage) -> str:
    """`kb init`'s line on what it chose and what that covers."""
    root = "the top folder" if site.root == "." else f"{site.root}/"
    text = f"{site.generator}, {site.config}: {found.read} page(s) under {root}"
    if found.unread:
        listed = ", ".join(f"{n} {suffix}" for suffix, n in found.unread.items())
        total = found.read + sum(found.unread.values())
        text += (
            f"; {site.generator} publishes {total} page(s) there and kbkit reads the "
            f"{found.read} {'/'.join(read_suffixes(site))} one(s): not read {listed}"
        )
    if found.other:
        listed = ", ".join(f"{n} {suffix}" for suffix, n in found.other.items())
        places = ", ".join(f"{folder}/" for folder in site.elsewhere)
        text += f"; not read either: {sum(found.other.values())} page(s) in {places} ({listed})"
    if found.elsewhere:
        text += f"; {found.elsewhere} markdown page(s) elsewhere in the repository are not checked"
    return f"{text}, profile {site.profile}"
