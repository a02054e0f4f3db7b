"""Where things live: the repository, its knowledge root, intake folder and caches."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from kbkit.infra import boundary, settings
from kbkit.infra.errors import UsageError
from kbkit.infra.regular_file import NotRegularFile, check_regular

INTAKE_DIR = "intake"
# Distill's per-batch files, under the state folder (written by kbkit.distill.artifacts,
# read by the report).
BATCH_ARTIFACTS = Path("artifacts") / "knowledge-intake"
# The knowledge PRs as GitHub showed them to distill's last run in review mode (number, url,
# open / merged / closed, day, rule IDs), under the state folder (written by
# kbkit.distill.pr_snapshot, read by the report, which is offline).
KNOWLEDGE_PRS = Path("knowledge-prs.json")


REPO_HELP = (
    "the repository root (default: found upwards from the current directory: the nearest "
    "folder holding knowledge/policy.yaml or kbkit.yaml, else the git work tree's top)"
)

# What marks a repository root, nearest first (as git, ruff and pre-commit look upwards).
ROOT_MARKERS = ("knowledge/policy.yaml", "kbkit.yaml")


def repo_root(repo: str | os.PathLike[str] | None = None) -> Path:
    """The repository: `--repo` as given, else found upwards from the current directory."""
    if repo is None:
        return find_repo_root(Path.cwd())
    root = Path(repo)
    if not root.is_dir():
        raise UsageError(f"--repo {root}: not a directory. Pass the folder that holds knowledge/.")
    return root.absolute()


def find_repo_root(start: Path) -> Path:
    """The nearest folder holding a root marker, or else the git work tree's top; the walk
    stops at the git top so a repository never picks up a folder above it."""
    start = start.absolute()
    for folder in (start, *start.parents):
        if any((folder / marker).is_file() for marker in ROOT_MARKERS):
            return folder
        if (folder / ".git").exists():
            return folder
    raise UsageError(
        f"no repository found: looked for {' or '.join(ROOT_MARKERS)} or a .git in {start} "
        "and every folder above it; run the command inside your repository, run `kb init` "
        "there, or pass --repo DIR"
    )


def intake_root(repo: Path) -> Path:
    """The ledger folder; KBKIT_INTAKE_ROOT overrides it (tests point it at a temp dir). The
    repository's own `intake/` must stay inside it (`kbkit.infra.boundary`): a committed
    symlink out would have the ledgers read and appended elsewhere."""
    override = settings.value("KBKIT_INTAKE_ROOT")
    if override:
        return Path(override)
    hint = _MOVED % "KBKIT_INTAKE_ROOT"
    boundary.confine(repo, repo / INTAKE_DIR, "the intake folder", hint=hint)
    return repo / INTAKE_DIR


# (a folder kept elsewhere on purpose is named by its variable, which the repository cannot set)
_MOVED = "to keep it elsewhere, set %s instead of linking it"


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
    override = settings.value("KBKIT_STATE_ROOT")
    if override:
        return Path(override)
    hint = _MOVED % "KBKIT_STATE_ROOT"
    boundary.confine(repo, repo / STATE_DIR, "the state folder", hint=hint)
    return repo / STATE_DIR


def named_file(path: str | os.PathLike[str], hint: str) -> Path:
    """A file the user named on the command line; a missing one, or a FIFO or a device (which
    would block or never end; `-` is how to pass standard input), is a usage error (exit 2)."""
    file = Path(path)
    if file.is_dir():
        raise UsageError(f"{file}: is a directory; {hint}")
    if not file.exists():
        raise UsageError(f"{file}: no such file; {hint}")
    try:
        check_regular(file)  # a FIFO or a device is refused here, never opened
    except NotRegularFile as exc:
        raise UsageError(f"{file}: {exc.kind}, not a regular file; {hint}") from exc
    except OSError:
        pass  # unreadable: the reader says why
    return file


def named_folder(path: str | os.PathLike[str], hint: str) -> Path:
    """A folder the user named on the command line; a missing one is a usage error (exit 2)."""
    folder = Path(path)
    if not folder.is_dir():
        raise UsageError(
            f"{folder}: {'not a directory' if folder.exists() else 'no such folder'}; {hint}"
        )
    return folder
