"""The forge URLs a repository's pages use for its own files.

A handbook that GitHub renders often links its own pages by their full address
(`https://github.com/basecamp/handbook/blob/master/how-we-work.md`) instead of a relative
path: GitHub shows the same page either way. Read as external links, such a tree has no
links between its pages at all (every page an orphan, no broken link ever found). The
repository's own address is found in the pages themselves, not in a git remote (an export
has none; a fork's remote names the fork while its pages name the upstream): an
`OWNER/REPO` and branch whose links name at least MIN_FILES files this tree has, and whose
links mostly name such files, is this repository. `kb init` writes the prefixes it finds as
`links.own_urls`, which the link model resolves from the repository's top.

May import: `kbkit.infra`.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from urllib.parse import unquote

from kbkit.infra.lazy_pattern import lazy

MIN_FILES = 3  # files of the tree it links to, before an address is taken for its own
MAX_PAGES = 3000  # pages read to find it: a handbook that links itself does so everywhere
MAX_PAGE_BYTES = 256 * 1024
_FORGE_URL = lazy(
    r"https?://(?:www\.)?github\.com/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/(?:blob|tree)/"
    r"([A-Za-z0-9_.-]+)/([^\s)\"'<>#?\]]*)"
)


def own_urls(repo: Path, pages: list[Path]) -> list[str]:
    """The `blob/` and `tree/` URL prefixes of `repo`'s own files that its `pages` (markdown
    files under it, the first MAX_PAGES read) link to; none when no address qualifies."""
    named: Counter[tuple[str, str, str]] = Counter()
    present: Counter[tuple[str, str, str]] = Counter()
    files: dict[tuple[str, str, str], set[str]] = {}
    for page in pages[:MAX_PAGES]:
        try:  # a symlinked page may lead out of the repository: not read
            if page.is_symlink() or not page.is_file():
                continue
            with open(page, "rb") as handle:
                text = handle.read(MAX_PAGE_BYTES).decode("utf-8", "replace")
        except OSError:
            continue
        if "github.com/" not in text:
            continue
        for found in _FORGE_URL.finditer(text):
            key = (found[1], found[2], found[3])
            path = unquote(found[4]).strip("/")
            named[key] += 1
            if _exists(repo, path):
                present[key] += 1
                files.setdefault(key, set()).add(path)
    chosen = sorted(
        key
        for key, count in named.items()
        if len(files.get(key, ())) >= MIN_FILES and 2 * present[key] >= count
    )
    return [
        f"https://github.com/{owner}/{name}/{kind}/{ref}/"
        for owner, name, ref in chosen
        for kind in ("blob", "tree")
    ]


def _exists(repo: Path, path: str) -> bool:
    """Whether the repository-relative `path` names a file or folder of `repo` (without
    leaving it: no `..`, no absolute path)."""
    parts = [part for part in path.strip("/").split("/") if part]
    if not parts or any(part in (".", "..") for part in parts):
        return False
    return os.path.lexists(os.path.join(repo, *parts))
