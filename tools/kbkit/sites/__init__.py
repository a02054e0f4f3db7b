"""Which site generator builds a repository's docs, and the policy that reads them as it does:
one module per generator, one small interface (`kbkit.sites.site.Generator`), one registry.

`kb init` asks `detect_site` before it scaffolds anything: a repository whose docs a
generator builds gets the generator's built-in profile and its docs folder as the knowledge
root, read from the generator's own configuration. The checks ask `hooks(name)` for what only
one generator knows (its navigation files, its redirects files, its link syntax, its doc ids,
its labels): nothing outside this package knows a generator by name
(`tests/sites/test_registry.py` holds it so).

Adding a generator is one module, one registry line, a fixture site and its oracle test:
the module `kbkit/sites/<name>.py` exports `GENERATOR = Generator("<name>", detect=...)`
with the hooks it needs; `MODULES` below lists it with the names of those hooks (its place
is the order detection asks it in); `tests/sites/test_<name>.py` builds a fixture site with the real generator, where it
installs here, and compares its verdicts with the check's.

May import: `kbkit.pages`, `kbkit.infra`.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from kbkit.sites.config import detecting, version_folders
from kbkit.sites.site import Generator, Site

# the registry: one line per generator module, in the order detection asks them, with the
# hooks its `GENERATOR` has (a check imports only the modules that have the hook it asks)
MODULES: dict[str, tuple[str, ...]] = {
    "mkdocs": ("read_navigation", "read_redirects", "inserts_text"),
    "mdbook": ("read_redirects", "page_includes"),
    "docfx": ("read_navigation", "read_redirects"),
    "docusaurus": ("read_navigation", "doc_id", "url_name"),
    "hugo": ("inserts_text",),
    "starlight": (),
    "sphinx": ("read_navigation", "page_navigation", "labels", "unread_site"),
    "jekyll": ("page_links", "link_names_stem"),
    "obsidian": ("queries",),
    "plain": (),
}
# the configurations `kb init --help` names as examples of what it looks for
CONFIGS_SHOWN = (
    "mkdocs.yml, book.toml, docfx.json, docusaurus.config.*, Hugo's config, conf.py, myst.yml "
    "or astro.config.*"
)


def generator(name: str) -> Generator:
    """The `GENERATOR` of the module `name`, imported now: the modules are imported when
    asked, not with the package (a check reads `kbkit.sites.config` and needs none of them
    unless its policy names a file or an option only a generator reads)."""
    found: Generator = importlib.import_module(f"kbkit.sites.{name}").GENERATOR
    return found


def generators() -> tuple[Generator, ...]:
    """Every generator, in registry order (every module imported)."""
    return tuple(generator(name) for name in MODULES)


def detectors() -> tuple[Callable[[Path], Site | None], ...]:
    """Every generator's `detect`, in the order they are asked: each `detect` in registry
    order, then each `detect_later`."""
    found = generators()
    first = [g.detect for g in found if g.detect is not None]
    return (*first, *(g.detect_later for g in found if g.detect_later is not None))


def hooks(name: str) -> Iterator[Any]:
    """The `name` hooks (a `Generator` field) of the generators that have one, in registry
    order, each module imported when its turn comes: the checks ask each in turn until one
    answers."""
    for module, has in MODULES.items():
        if name in has:
            yield getattr(generator(module), name)


@functools.cache
def every(name: str) -> tuple[Any, ...]:
    """Every generator's `name` hook (`hooks`, all of them), once per process."""
    return tuple(hooks(name))


def unread_site(repo: Path) -> tuple[str, str] | None:
    """(config, what it builds) of a site whose pages kbkit cannot read, or None: asked when
    no generator's site was found, so `kb init` says why it sets up a new tree."""
    with detecting(repo):
        for found in hooks("unread_site"):
            site = found(repo)
            if site is not None:
                return site
    return None


def detect_site(repo: Path) -> Site | None:
    """The generator that builds `repo`'s docs, or None; folders that each hold one version
    of the docs (`v1.2/`, `v1.3/`: copies of the same pages, whatever the generator) are
    its `versions`, unless its module named them."""
    with detecting(repo):
        for detect in detectors():
            found = detect(repo)
            if found is not None:
                if "versions" not in found.keys:
                    versions = version_folders(repo / found.root)
                    if versions:
                        found = found._replace(keys={**found.keys, "versions": versions})
                return found
    return None


__all__ = [
    "CONFIGS_SHOWN",
    "MODULES",
    "unread_site",
    "Generator",
    "Site",
    "detect_site",
    "detectors",
    "every",
    "generator",
    "generators",
    "hooks",
]
