"""Where things live: the repository, its knowledge root, intake folder and caches."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from kbkit.errors import UsageError

INTAKE_DIR = "intake"


def repo_root(repo: str | os.PathLike[str] | None = None) -> Path:
    """The repository that holds `knowledge/` (default: the current directory)."""
    root = Path(repo) if repo is not None else Path.cwd()
    if not root.is_dir():
        raise UsageError(f"--repo {root}: not a directory. Pass the folder that holds knowledge/.")
    return root.absolute()


def intake_root(repo: Path) -> Path:
    """The ledger folder; INTAKE_ROOT overrides it (tests point it at a temp dir)."""
    override = os.environ.get("INTAKE_ROOT")
    return Path(override) if override else repo / INTAKE_DIR


def rel_posix(path: Path, base: Path) -> str:
    """A repo-relative POSIX path for messages and artifacts."""
    try:
        return PurePosixPath(path.relative_to(base)).as_posix()
    except ValueError:
        return path.as_posix()


def document_id(rel_to_knowledge: str) -> str:
    """The document ID of a page: its path under the knowledge root without `.md`."""
    return rel_to_knowledge[:-3] if rel_to_knowledge.endswith(".md") else rel_to_knowledge


STATE_DIR = "state"


def state_root(repo: Path) -> Path:
    """Local, git-ignored state (work clone, artifacts); KBKIT_STATE_ROOT overrides it."""
    override = os.environ.get("KBKIT_STATE_ROOT")
    return Path(override) if override else repo / STATE_DIR
