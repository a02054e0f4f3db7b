"""The walk of a knowledge root: every file and folder name, and the stat key of every page.

It is kept apart from the tree model (and imports next to nothing) so that a check can start
it in a forked child (`walk_aside`) while the parent loads the parser.
"""

from __future__ import annotations

import hashlib
import os
import stat
import struct
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.infra.parallel import Aside

UNREADABLE = "kb/unreadable"
SYMLINK_FOLDER = "kb/symlink-folder"


class Problem(NamedTuple):
    """What the walk could not list or follow: a path, the id of the rule it breaks (declared
    with the checks, `kbkit.checks.rules.kb.unreadable`, which makes the finding) and why."""

    path: str  # repo-relative
    rule_id: str
    message: str


StatKey = tuple[int, int, int, int]


def under(root_rel: str) -> str:
    """The prefix of repo-relative paths under a knowledge root: `docs/`, or nothing when
    the root is the repository's top (`.`), so paths read `x.md`, not `./x.md`."""
    return "" if root_rel in ("", ".") else root_rel.strip("/") + "/"


def stat_key(st: os.stat_result) -> StatKey:
    """What identifies a version of a file without reading it (as git's index does)."""
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


# A stat key packed: size, mtime_ns, ctime_ns, inode (mtimes may precede 1970)
PACKED_KEY = struct.Struct("<QqqQ")


def pack_keys(pages: list[str], keys: dict[str, StatKey]) -> bytes:
    return b"".join(PACKED_KEY.pack(*keys[rel]) for rel in pages)


class Walk(NamedTuple):
    files_by_dir: dict[str, list[str]]  # folder -> names of its files
    dirs_by_dir: dict[str, list[str]]  # folder -> names of its sub-folders
    files: list[str]  # every file, root-relative
    problems: list[Problem]  # what could not be listed or followed
    pages: list[str]  # every page (*.md, or the suffixes the walk was given), sorted
    packed_keys: bytes  # their stat keys, PACKED_KEY each (UNKNOWN_KEY: cannot be stat'ed);
    # b"" when the walk took no page stats
    digest: bytes  # walk_digest of the names and problems: equal walks, equal digests


UNKNOWN_KEY: StatKey = (0, 0, 0, 0)


PAGE_SUFFIXES = (".md",)


def walk_root(
    top: Path, root_rel: str, stat_pages: bool = True, suffixes: tuple[str, ...] = PAGE_SUFFIXES
) -> Walk:
    """Collect folders -> files and folders -> sub-folders without following folder symlinks,
    and the stat key of every page (the directory entry's stat, no path lookup of our own).
    stat_pages=False takes no key at all (`packed_keys` is b""): a run with no cache to
    look keys up in takes each page's key as it reads the page (half the walk's time is
    these stats). `suffixes`: the names read as pages (the policy's `pages.extensions`)."""
    keys: dict[str, StatKey] = {}
    problems: list[Problem] = []
    files_by_dir: dict[str, list[str]] = {}
    dirs_by_dir: dict[str, list[str]] = {}
    all_files: list[str] = []
    top_path = str(top)
    stack = [""]
    while stack:
        rel = stack.pop()
        here = os.path.join(top_path, rel) if rel else top_path
        files_here: list[str] = []
        dirs_here: list[str] = []
        files_by_dir[rel] = files_here
        dirs_by_dir[rel] = dirs_here
        try:
            entries = list(os.scandir(here))
        except OSError as exc:
            problems.append(
                Problem(
                    (under(root_rel) + rel).rstrip("/") or ".",
                    UNREADABLE,
                    f"cannot list this folder ({exc.strerror or exc})",
                )
            )
            continue
        for entry in entries:
            # interned: marshal sends it as such, and the folders' lists of names then share
            # one `index.md`, `README.md`, `_index.md` across the tree
            name = sys.intern(entry.name)
            child = f"{rel}/{name}" if rel else name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_link = entry.is_symlink()
            except OSError:
                is_dir = is_link = False
            if is_link:
                try:
                    target_is_dir = stat.S_ISDIR(os.stat(entry.path).st_mode)
                except OSError as exc:
                    problems.append(
                        Problem(
                            under(root_rel) + child,
                            UNREADABLE,
                            f"broken or looping symlink ({exc.strerror or exc})",
                        )
                    )
                    continue
                if target_is_dir:
                    problems.append(
                        Problem(
                            under(root_rel) + child,
                            SYMLINK_FOLDER,
                            "symlinked folder not followed (it could loop)",
                        )
                    )
                    continue
            if is_dir:
                dirs_here.append(name)
                stack.append(child)
                if name.endswith(suffixes):
                    problems.append(
                        Problem(
                            under(root_rel) + child,
                            UNREADABLE,
                            "a folder named like a page; rename it",
                        )
                    )
            else:
                files_here.append(name)
                all_files.append(child)
                if name.endswith(suffixes):
                    if not stat_pages:
                        keys[child] = UNKNOWN_KEY  # (only the names are kept)
                        continue
                    try:
                        keys[child] = stat_key(entry.stat())
                    except OSError:
                        keys[child] = UNKNOWN_KEY
    digest = walk_digest(all_files, files_by_dir, problems)
    pages = sorted(keys)
    packed = pack_keys(pages, keys) if stat_pages else b""
    return Walk(files_by_dir, dirs_by_dir, all_files, problems, pages, packed, digest)


def walk_digest(files: Iterable[str], folders: Iterable[str], problems: Iterable[Any]) -> bytes:
    """Every file and folder name under the root and what the walk could not read."""
    h = hashlib.blake2b(digest_size=16)
    _update_joined(h, sorted(files))
    h.update(b"\0\0")
    _update_joined(h, sorted(folders))
    h.update(b"\0\0")
    h.update(repr([tuple(p) for p in problems]).encode("utf-8", "surrogateescape"))
    return h.digest()


def _update_joined(h: Any, names: list[str], chunk: int = 4096) -> None:
    """`h.update` with the names joined by NULs, a chunk at a time: the same bytes as one
    join, without a string and its encoding of every path at once (2 x 9 MB at 100k pages,
    the peak of a check's memory)."""
    for start in range(0, len(names), chunk):
        if start:
            h.update(b"\0")
        h.update("\0".join(names[start : start + chunk]).encode("utf-8", "surrogateescape"))


def walk_aside(
    top: Path, root_rel: str, stat_pages: bool = True, suffixes: tuple[str, ...] = PAGE_SUFFIXES
) -> Callable[[], Walk]:
    """Walk the tree in a forked child while this process does other work; the returned
    function waits for the walk. Without fork (or if the child fails) the walk runs here."""

    def plain_walk() -> tuple[Any, ...]:
        walk = walk_root(top, root_rel, stat_pages, suffixes)
        return (*walk[:3], [tuple(p) for p in walk.problems], *walk[4:])

    aside = Aside(plain_walk)

    def result() -> Walk:
        by_dir, dirs, files, problems, pages, keys, digest = aside.result()
        return Walk(by_dir, dirs, files, [Problem(*p) for p in problems], pages, keys, digest)

    return result
