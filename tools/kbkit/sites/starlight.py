"""Astro Starlight: `astro.config.*` that uses the `starlight()` integration.

Its pages are `src/content/docs/**/*.{md,mdx}`, each served at its path without the
suffix and with a trailing slash (`en/guides/x.mdx` at `/en/guides/x/`, a folder's
`index.mdx` at the folder), so its links are site paths or resolve from the page's URL,
as Hugo's do; heading ids are github-slugger's (rehype-slug). A site with locales keeps
one folder per language beside the default one, and a page a language lacks is served
from the default language's (Starlight's fallback): a link into `/de/x/` finds `de/x.mdx`,
else `en/x.mdx`. The sidebar is the site's own code (`astro.sidebar.ts`), so no page is
checked for a navigation entry.

May import: `kbkit.infra`, `kbkit.sites` siblings.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from kbkit.sites.config import present, read_config
from kbkit.sites.site import Generator, Site

NAMES = tuple(f"astro.config.{suffix}" for suffix in ("mjs", "ts", "js", "mts", "cjs"))
ROOT = "src/content/docs"
PUBLISHED = (".md", ".mdx")
_STARLIGHT = re.compile(r"\bstarlight\s*\(")
_DEFAULT_LOCALE = re.compile(r"""\bdefaultLocale\s*:\s*['"]([\w-]+)['"]""")
_LOCALE_FOLDER = re.compile(r"^[a-z]{2,3}(?:-[a-z0-9]{2,8})*$", re.IGNORECASE)


def detect(repo: Path) -> Site | None:
    config = next((repo / name for name in NAMES if present(repo / name)), None)
    if config is None or not _STARLIGHT.search(read_config(config)):
        return None
    if not (repo / ROOT).is_dir():
        return None
    text = read_config(config)
    links: dict[str, Any] = {
        "site_root": ".",
        "extensions": {"": [".md", ".mdx"]},
        "relative_from": "url",
        "url_folder_pages": ["index.md", "index.mdx"],
        "attr_list": False,
    }
    found = _DEFAULT_LOCALE.search(text)
    if found is not None:
        default = found[1]
        locales = sorted(
            child.name
            for child in (repo / ROOT).iterdir()
            if child.is_dir()
            and child.name != default
            and _LOCALE_FOLDER.match(child.name)
            and _has_pages(child)
        )
        if locales and (repo / ROOT / default).is_dir():
            links["url_map"] = {f"/{name}/": [name, default] for name in locales}
            links["url_map"][f"/{default}/"] = default
    if (repo / "public").is_dir():  # served at the site's root (`/tutorial/x.png`)
        links["site_files"] = ["../../../public"]
    keys = {
        "pages": {"extensions": list(PUBLISHED)},
        "links": links,
        "index": {"model": "none"},
    }
    return Site("Astro Starlight", config.name, "hugo", ROOT, keys, PUBLISHED)


def _has_pages(folder: Path) -> bool:
    return any(next(folder.rglob(f"*{suffix}"), None) is not None for suffix in PUBLISHED)


GENERATOR = Generator("starlight", detect=detect)
