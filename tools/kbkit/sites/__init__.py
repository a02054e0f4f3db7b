"""Which site generator builds a repository's docs, and the policy that reads them as it does:
one module per generator, one registry.

`kb init` asks `detect_site` before it scaffolds anything: a repository whose docs a
generator builds gets the generator's built-in profile and its docs folder as the knowledge
root, read from the generator's own configuration. Each module has `detect(repo) -> Site |
None`; DETECTORS asks them in order (configuration at the top first, then one folder down,
then a plain `docs/` folder). Adding a generator is one module, one line here, a fixture
site and its test.

May import: `kbkit.pages`, `kbkit.infra`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kbkit.sites import docfx, docusaurus, hugo, jekyll, mdbook, mkdocs, obsidian, plain, sphinx
from kbkit.sites.site import Site

DETECTORS: tuple[Callable[[Path], Site | None], ...] = (
    mkdocs.detect,
    mdbook.detect,
    docfx.detect,
    docusaurus.detect,
    hugo.detect,
    sphinx.detect,
    jekyll.detect,
    mdbook.detect_nested,
    obsidian.detect,
    plain.detect,
)


def detect_site(repo: Path) -> Site | None:
    """The generator that builds `repo`'s docs, or None."""
    for detect in DETECTORS:
        found = detect(repo)
        if found is not None:
            return found
    return None


__all__ = ["Site", "detect_site"]
