"""Which findings bear on named pages or folders: `kb check PATH...` and the editor.

A whole-tree run (from the cache: a warm run costs a fraction of the cold one) is narrowed to
the findings on the named paths (a folder names everything below it) and the link findings
elsewhere whose target is a named page: a link into a named page whose heading was renamed
is that page's problem too, as is a link to a named page that no longer exists. Pre-commit
keeps the whole tree (`--staged`): only a whole-tree run sees a deleted page still linked.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable, Sequence
from pathlib import Path

from kbkit.checks.rules.tree.links import link_parts
from kbkit.infra.errors import UsageError
from kbkit.rulebook.findings import Finding


def named_paths(repo: Path, raw: Sequence[str], cwd: Path | None = None) -> list[str]:
    """Repo-relative POSIX paths of the PATH arguments (relative to `cwd`, as a shell gives
    them); "" names the whole repository. A path outside the repository is a usage error."""
    cwd = cwd or Path.cwd()
    top = Path(os.path.realpath(repo))
    named = []
    for value in raw:
        given = Path(value)
        # relative to where the command runs, as a shell completes it; else (`--repo DIR`
        # given from elsewhere) relative to the repository
        tries = [given] if given.is_absolute() else [cwd / given, top / given]
        rel = next(filter(None, (_inside(top, path) for path in tries)), None)
        if rel is None:
            raise UsageError(
                f"{value}: outside the repository {repo}; name a page or folder inside it"
            )
        named.append("" if rel == "." else rel)
    return named


def _inside(top: Path, path: Path) -> str | None:
    try:
        return Path(os.path.realpath(path)).relative_to(top).as_posix()
    except ValueError:
        return None


def missing(repo: Path, named: Iterable[str]) -> list[str]:
    """The named paths that name nothing on disk (only links to them can be reported)."""
    return [rel for rel in named if rel and not (repo / rel).exists()]


def bearing(findings: Iterable[Finding], named: Sequence[str]) -> list[Finding]:
    """The findings on a named path (or below a named folder) and the link findings whose
    target is one, in the order given."""
    if "" in named:
        return list(findings)
    wanted = set(named)
    folders = tuple(f"{rel}/" for rel in named)

    def inside(path: str) -> bool:
        return path in wanted or path.startswith(folders)

    kept = []
    for finding in findings:
        if inside(finding.path):
            kept.append(finding)
            continue
        parts = link_parts(finding)
        if parts is not None and parts.target and inside(posixpath.normpath(parts.target)):
            kept.append(finding)
    return kept


def pages_named(repo: Path, named: Sequence[str]) -> int:
    """How many markdown pages the named paths hold (a file, or the pages below a folder)."""
    count = 0
    for rel in dict.fromkeys(named):
        path = repo / rel
        if path.is_file():
            count += rel.endswith(".md")
        elif path.is_dir():
            for _, dirs, files in os.walk(path):
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                count += sum(1 for name in files if name.endswith(".md"))
    return count
