"""The commit's tree: a walk narrowed to the files the git index tracks (staged mode).

Hooks check what is committed, not the working tree: an untracked draft page must not block
an unrelated commit, and a staged `_index.md` that links a page left unstaged must fail. The
index is read in pure Python (`kbkit.vcs.git_index`); pre-commit already stashes unstaged
changes to tracked files, so the tracked files on disk are the staged ones.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from kbkit.infra.errors import UsageError
from kbkit.tree.walk import PACKED_KEY, Walk, walk_digest
from kbkit.vcs.git_index import GitIndexError, find_git_dir, tracked_paths


def tracked_under(repo: Path, root_rel: str) -> set[str]:
    """Root-relative paths of the files the index tracks under the knowledge root."""
    found = find_git_dir(repo.absolute())
    if found is None:
        raise UsageError(f"--staged: {repo} is not inside a git repository (no .git found)")
    top, git_dir = found
    lead = repo.absolute().relative_to(top).as_posix()
    prefix = ("" if lead == "." else f"{lead}/") + f"{root_rel}/"
    try:
        data = (git_dir / "index").read_bytes()
    except FileNotFoundError:
        return set()  # a fresh repository tracks nothing yet
    except OSError as exc:
        raise UsageError(f"--staged: cannot read {git_dir / 'index'}: {exc.strerror}") from exc
    fast = _names_v2(data, prefix.encode("utf-8", "surrogateescape"))
    if fast is not None:
        return fast
    try:
        listed = tracked_paths(repo, f"{root_rel}/")
    except GitIndexError as exc:
        raise UsageError(f"--staged: {exc}") from exc
    _, paths = listed or ("", [])
    return {path[len(prefix) :] for path in paths}


# In a version-2 index (git's default) every path is stored whole, NUL-terminated, right after
# its 16-bit flags, whose high byte is 0 for a stage-0 entry of a path shorter than 256 bytes.
# So one regex finds the paths under a prefix in about 2 ms at 10k entries, where the
# entry-by-entry parse takes about 15 ms (a tenth of the hook's budget). Every occurrence of
# the prefix must be such a hit: a prefix inside a longer path (`docs/knowledge/...`), a long
# path, a conflicted entry or a random match in binary fields makes the counts differ, and
# the full parser decides. Versions 3 and 4 (extended flags, compressed paths) take it too.
def _names_v2(data: bytes, prefix: bytes) -> set[str] | None:
    """Paths under `prefix` (prefix removed) of a version-2 index, or None when the quick
    reading is not certain (then the full parser decides)."""
    if len(data) < 12 or data[:4] != b"DIRC" or data[4:8] != b"\0\0\0\2":
        return None
    anchored = re.compile(b"(?s)\\x00." + re.escape(prefix) + b"([^\\x00]*)\\x00")
    hits = anchored.findall(data)
    if len(hits) != data.count(prefix):
        return None
    return {name.decode("utf-8", "surrogateescape") for name in hits}


def committed_walk(walk: Walk, tracked: set[str], root_rel: str) -> Walk:
    """The walk without what the index does not track (files, then folders left empty)."""
    if tracked.issuperset(walk.files):
        return walk  # the usual commit: nothing untracked under the root, nothing to narrow
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
    kept = [i for i, rel in enumerate(walk.pages) if rel in tracked]
    pages = [walk.pages[i] for i in kept]
    size, keys = PACKED_KEY.size, walk.packed_keys  # b"" from a walk without page stats
    packed = b"".join(keys[i * size : (i + 1) * size] for i in kept)
    digest = walk_digest(files, files_by_dir, problems)
    return Walk(files_by_dir, dirs_by_dir, files, problems, pages, packed, digest)


def staged_walker(walked: Callable[[], Walk], repo: Path, root_rel: str) -> Callable[[], Walk]:
    """Wrap a walk under way (`walk_aside`) so that it yields the commit's tree."""
    tracked = tracked_under(repo, root_rel)
    return lambda: committed_walk(walked(), tracked, root_rel)
