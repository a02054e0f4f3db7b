"""The commit's tree: a walk narrowed to the files the git index tracks (staged mode).

Hooks check what is committed, not the working tree: an untracked draft page must not block
an unrelated commit, and a staged `_index.md` that links a page left unstaged must fail. The
index is read in pure Python (`kbkit.vcs.git_index`; a split or sparse index is listed by
git); pre-commit already stashes unstaged changes to tracked files, so the tracked files on
disk are the staged ones. A tracked file that is not on disk (outside a sparse checkout, or
deleted without the deletion staged) is still in the commit: it joins the walk, and a page's
staged content is read from git into `kbkit.tree.page_file.OVERLAY`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from kbkit.infra.errors import UsageError
from kbkit.tree.page_file import OVERLAY, OVERLAY_KEY
from kbkit.tree.walk import PACKED_KEY, PAGE_SUFFIXES, Walk, under, walk_digest
from kbkit.vcs.git import GitError, staged_blobs
from kbkit.vcs.git_index import GitIndexError, find_git_dir, has_shared_index, tracked_paths


def tracked_under(repo: Path, root_rel: str) -> set[str]:
    """Root-relative paths of the files the index tracks under the knowledge root."""
    found = find_git_dir(repo.absolute())
    if found is None:
        raise UsageError(f"--staged: {repo} is not inside a git repository (no .git found)")
    top, git_dir = found
    lead = repo.absolute().relative_to(top).as_posix()
    prefix = ("" if lead == "." else f"{lead}/") + under(root_rel)
    try:
        data = (git_dir / "index").read_bytes()
    except FileNotFoundError:
        return set()  # a fresh repository tracks nothing yet
    except OSError as exc:
        raise UsageError(f"--staged: cannot read {git_dir / 'index'}: {exc.strerror}") from exc
    fast = (
        None
        if has_shared_index(git_dir)
        else _names_v2(data, prefix.encode("utf-8", "surrogateescape"))
    )
    if fast is not None:
        return fast
    try:
        listed = tracked_paths(repo, under(root_rel))
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
    if len(hits) != data.count(prefix) or any(name.endswith(b"/") for name in hits):
        return None  # (a name ending in / is a sparse index's folder entry)
    return {name.decode("utf-8", "surrogateescape") for name in hits}


def committed_walk(
    walk: Walk,
    tracked: set[str],
    root_rel: str,
    absent: Iterable[str] = (),
    suffixes: tuple[str, ...] = PAGE_SUFFIXES,
) -> Walk:
    """The walk without what the index does not track (files, then folders left empty),
    with the tracked files `absent` from disk added (pages: the names ending in `suffixes`)."""
    absent = sorted(absent)
    if not absent and tracked.issuperset(walk.files):
        return walk  # the usual commit: nothing untracked under the root, nothing to narrow
    if absent:
        walk = _with_absent(walk, absent, suffixes)
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


def _with_absent(walk: Walk, absent: list[str], suffixes: tuple[str, ...]) -> Walk:
    """The walk with files that are not on disk added (as the walk would list them)."""
    files_by_dir = {folder: list(names) for folder, names in walk.files_by_dir.items()}
    dirs_by_dir = {folder: list(names) for folder, names in walk.dirs_by_dir.items()}
    for rel in absent:
        folder, _, name = rel.rpartition("/")
        files_by_dir.setdefault(folder, []).append(name)
        child = folder
        while child:
            parent, _, child_name = child.rpartition("/")
            files_by_dir.setdefault(child, [])
            dirs_by_dir.setdefault(child, [])
            siblings = dirs_by_dir.setdefault(parent, [])
            if child_name in siblings:
                break
            siblings.append(child_name)
            child = parent
    for names in (*files_by_dir.values(), *dirs_by_dir.values()):
        names.sort()
    files = sorted({*walk.files, *absent})
    pages = sorted({*walk.pages, *(rel for rel in absent if rel.endswith(suffixes))})
    size, keys = PACKED_KEY.size, walk.packed_keys
    if keys:  # the walk's keys where it has them, OVERLAY_KEY for pages not on disk
        known = {rel: keys[i * size : (i + 1) * size] for i, rel in enumerate(walk.pages)}
        unknown = PACKED_KEY.pack(*OVERLAY_KEY)
        keys = b"".join(known.get(rel, unknown) for rel in pages)
    return Walk(files_by_dir, dirs_by_dir, files, walk.problems, pages, keys, walk.digest)


def staged_walker(
    walked: Callable[[], Walk],
    repo: Path,
    root_rel: str,
    suffixes: tuple[str, ...] = PAGE_SUFFIXES,
) -> Callable[[], Walk]:
    """Wrap a walk under way (`walk_aside`) so that it yields the commit's tree; a tracked
    page not on disk is read from the index (its staged content)."""
    tracked = tracked_under(repo, root_rel)

    def committed() -> Walk:
        walk = walked()
        absent = tracked.difference(walk.files)
        if absent:
            _stage_overlay(repo, root_rel, {rel for rel in absent if rel.endswith(suffixes)})
        return committed_walk(walk, tracked, root_rel, absent, suffixes)

    return committed


def _stage_overlay(repo: Path, root_rel: str, pages: set[str]) -> None:
    """Put the staged content of `pages` (root-relative, not on disk) into the read overlay."""
    found = find_git_dir(repo.absolute())
    if found is None or not pages:
        return
    top = found[0]
    lead = repo.absolute().relative_to(top).as_posix()
    prefix = ("" if lead == "." else f"{lead}/") + under(root_rel)
    try:
        blobs = staged_blobs(top, prefix, {prefix + rel for rel in pages})
    except GitError as exc:
        raise UsageError(
            f"--staged: cannot read the staged pages that are not on disk: {exc}"
        ) from exc
    folder = str(repo / root_rel)
    for path, data in blobs.items():
        OVERLAY[os.path.join(folder, path[len(prefix) :])] = data
