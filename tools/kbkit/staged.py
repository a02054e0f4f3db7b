"""The commit's tree: a walk narrowed to the files the git index tracks (staged mode).

Hooks check what is committed, not the working tree: an untracked draft page must not block
an unrelated commit, and a staged `_index.md` that links a page left unstaged must fail. The
index is read in pure Python (`kbkit.git_index`); pre-commit already stashes unstaged
changes to tracked files, so the tracked files on disk are the staged ones.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kbkit.errors import UsageError
from kbkit.git_index import GitIndexError, tracked_paths
from kbkit.walk import PACKED_KEY, Walk, walk_digest


def tracked_under(repo: Path, root_rel: str) -> set[str]:
    """Root-relative paths of the files the index tracks under the knowledge root."""
    try:
        found = tracked_paths(repo, f"{root_rel}/")
    except GitIndexError as exc:
        raise UsageError(f"--staged: {exc}") from exc
    if found is None:
        raise UsageError(f"--staged: {repo} is not inside a git repository (no .git found)")
    lead, paths = found
    cut = (len(lead) + 1 if lead else 0) + len(root_rel) + 1
    return {path[cut:] for path in paths}


def committed_walk(walk: Walk, tracked: set[str], root_rel: str) -> Walk:
    """The walk without what the index does not track (files, then folders left empty)."""
    files = [rel for rel in walk.files if rel in tracked]
    folders = {""}
    for rel in files:
        folder = rel.rpartition("/")[0]
        while folder not in folders:
            folders.add(folder)
            folder = folder.rpartition("/")[0]

    def joined(folder: str, name: str) -> str:
        return f"{folder}/{name}" if folder else name

    files_by_dir = {
        folder: [n for n in names if joined(folder, n) in tracked]
        for folder, names in walk.files_by_dir.items()
        if folder in folders
    }
    dirs_by_dir = {
        folder: [n for n in names if joined(folder, n) in folders]
        for folder, names in walk.dirs_by_dir.items()
        if folder in folders
    }
    cut = len(root_rel) + 1
    problems = [p for p in walk.problems if p.path[cut:] in tracked or p.path[cut:] in folders]
    kept = [
        (rel, key)
        for rel, key in zip(walk.pages, PACKED_KEY.iter_unpack(walk.packed_keys), strict=True)
        if rel in tracked
    ]
    pages = [rel for rel, _ in kept]
    packed = b"".join(PACKED_KEY.pack(*key) for _, key in kept)
    digest = walk_digest(files, files_by_dir, problems)
    return Walk(files_by_dir, dirs_by_dir, files, problems, pages, packed, digest)


def staged_walker(walked: Callable[[], Walk], repo: Path, root_rel: str) -> Callable[[], Walk]:
    """Wrap a walk under way (`walk_aside`) so that it yields the commit's tree."""
    tracked = tracked_under(repo, root_rel)
    return lambda: committed_walk(walked(), tracked, root_rel)
