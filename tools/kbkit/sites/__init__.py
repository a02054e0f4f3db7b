"""Which site generator builds a repository's docs, and the policy that reads them as it does:
one module per generator, one registry.

`kb init` asks `detect_site` before it scaffolds anything: a repository whose docs a
generator builds gets the generator's built-in profile and its docs folder as the knowledge
root, read from the generator's own configuration. Each module has `detect(repo) -> Site |
None`; `detectors()` asks them in order (configuration at the top first, then one folder down,
then a plain `docs/` folder). Adding a generator is one module, one line here, a fixture
site and its test.

May import: `kbkit.pages`, `kbkit.infra`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kbkit.sites.config import version_folders
from kbkit.sites.site import Site


def detectors() -> tuple[Callable[[Path], Site | None], ...]:
    """Every generator's `detect`, in the order they are asked. The modules are imported
    here, not with the package: a check reads `kbkit.sites.config` and needs none of them."""
    from kbkit.sites import docfx, docusaurus, hugo, jekyll, mdbook, mkdocs, obsidian, plain, sphinx

    return (
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
    """The generator that builds `repo`'s docs, or None; folders that each hold one version
    of the docs (`v1.2/`, `v1.3/`: copies of the same pages, whatever the generator) are
    its `versions`, unless its module named them."""
    for detect in detectors():
        found = detect(repo)
        if found is not None:
            if "versions" not in found.keys:
                versions = version_folders(repo / found.root)
                if versions:
                    found = found._replace(keys={**found.keys, "versions": versions})
            return found
    return None


__all__ = ["Site", "detect_site"]
