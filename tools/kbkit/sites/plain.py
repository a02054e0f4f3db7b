"""No generator: markdown that GitHub (or any forge) renders as it is.

The knowledge root is the top-level folder that holds most of the repository's markdown
(`docs/`, `content/`, `handbook/`...): at least PLAIN_SHARE of the pages outside hidden,
vendored and dependency folders, and at least two of them (one in `docs/`). A repository
that is itself the handbook (most of its files are markdown pages, at the top and spread
over its folders, two or more of them other than READMEs) is read whole. A repository that
already has a `knowledge/` folder, or whose markdown is scattered (READMEs beside the
code), gets no site: `kb init` sets up `knowledge/` as before.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from kbkit.sites.config import index_keys
from kbkit.sites.own_urls import own_urls
from kbkit.sites.site import Generator, Site

PLAIN_SHARE = 0.5
SKIPPED = frozenset({"node_modules", "vendor", "third_party", "site-packages", "build", "dist"})
DOCS_NAMES = frozenset({"docs", "doc"})  # a folder named so is docs with one page already
README_NAMES = frozenset({"readme.md", "index.md", "_index.md"})  # a folder's own page
# GitHub shows every markdown page (and a folder's README at the folder's address) inside
# an element whose id is `readme`: `x.md#readme` and `/folder#readme` are found
GITHUB_IDS = {"anchor_ignore": "readme$"}
MAX_COUNTED = 200_000  # a walk stops counting here: the share is settled long before


def detect(repo: Path) -> Site | None:
    """The top-level folder most of the repository's markdown lives in, if one does."""
    if (repo / "knowledge").exists():
        return None
    files = Counter[str]()
    counts = markdown_by_top_folder(repo, files)
    total = sum(counts.values())
    folders = [(n, name) for name, n in counts.items() if name != "."]
    if folders:
        # the folder with the most pages; `docs` first among equals
        count, name = max(folders, key=lambda item: (item[0], item[1] == "docs", item[1]))
        if count >= (1 if name in DOCS_NAMES else 2) and count >= PLAIN_SHARE * total:
            keys = _with_own_urls(repo, name, {**index_keys(repo / name), "links": GITHUB_IDS})
            return Site(f"a {name}/ folder", f"{name}/", "public-docs", name, keys)
    if files["named"] >= 2 and total >= PLAIN_SHARE * files["all"]:
        # GitHub resolves a link that starts with `/` from the repository's top
        # and shows a folder's README.md at the folder's address
        links = {"site_root": ".", "url_folder_pages": ["README.md", "readme.md"], **GITHUB_IDS}
        keys = _with_own_urls(repo, ".", {**index_keys(repo), "links": links})
        return Site("a markdown handbook", "./", "public-docs", ".", keys)
    return None


def _with_own_urls(repo: Path, root: str, keys: dict[str, Any]) -> dict[str, Any]:
    """`keys` with `links.own_urls` when the pages link their own files by GitHub URL
    (`kbkit.sites.own_urls`): GitHub shows the same page at that URL as by a relative link."""
    top = repo / root
    pages = sorted(p for p in top.rglob("*.md") if not _hidden(p.relative_to(top).parts))
    found = own_urls(repo, pages)
    if not found:
        return keys
    return {**keys, "links": {**(keys.get("links") or {}), "own_urls": found}}


def _hidden(parts: tuple[str, ...]) -> bool:
    return any(part.startswith(".") or part in SKIPPED for part in parts[:-1])


def markdown_by_top_folder(repo: Path, files: Counter[str] | None = None) -> Counter[str]:
    """How many `.md` files each top-level folder holds (`.`: the top itself), hidden,
    vendored and dependency folders left out; `files` counts every file walked (`all`) and
    the pages other than READMEs (`named`)."""
    files = Counter() if files is None else files
    counts: Counter[str] = Counter()
    seen = 0
    stack = [repo]
    while stack and seen < MAX_COUNTED:
        folder = stack.pop()
        try:
            entries = list(folder.iterdir())
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name.startswith((".", "_")) and entry.is_dir():
                continue
            if entry.is_symlink():
                continue
            if entry.is_dir():
                if name not in SKIPPED:
                    stack.append(entry)
            else:
                files["all"] += 1
                if name.endswith(".md"):
                    rel = entry.relative_to(repo).parts
                    counts[rel[0] if len(rel) > 1 else "."] += 1
                    files["named"] += name.lower() not in README_NAMES
                    seen += 1
    return counts


GENERATOR = Generator("plain", detect_later=detect)
