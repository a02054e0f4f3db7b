"""Reading one page file of a knowledge root, and only what is safe to read.

A page is read only when it is a regular file inside the root (a symlink to a page of the
same root is fine) and at most `limit` bytes long. A FIFO would block the read forever, a
device (`/dev/zero`) never ends, a symlink out of the root would echo someone else's file
into findings, and a huge page costs seconds and gigabytes on every run: each is refused
from its `stat` alone, before anything is opened or read.
"""

from __future__ import annotations

import os
import stat

from kbkit.walk import StatKey, stat_key

_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}


class PageRefused(Exception):
    """A page that is not read; `key` lets a cache keep the verdict until the file changes."""

    def __init__(self, message: str, key: StatKey, size: int) -> None:
        super().__init__(message)
        self.message = message
        self.key = key
        self.size = size


def read_page_file(
    top: str, rel: str, limit: int, top_name: str = "the knowledge root"
) -> tuple[bytes, StatKey]:
    """The bytes of `top/rel` and its stat key (taken before the read), or PageRefused.
    OSError passes through (a missing or unreadable file, a symlink loop)."""
    path = os.path.join(top, rel)
    st = os.lstat(path)
    linked = stat.S_ISLNK(st.st_mode)
    if linked:
        st = os.stat(path)  # the target's key, as the walk took it
        if not inside(top, path):
            raise PageRefused(
                f"a symlink that leaves {top_name}; not followed (link to a file inside "
                "it, or move the file in)",
                stat_key(st),
                0,
            )
    _refuse_by_stat(st, limit)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not linked:
        flags |= getattr(os, "O_NOFOLLOW", 0)  # swapped for a symlink since the lstat: refuse
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(fd)
        _refuse_by_stat(st, limit)  # the file opened may not be the one stat'ed
        data = handle.read(limit + 1)
    if len(data) > limit:  # it grew after the fstat
        raise PageRefused(_too_large(len(data), limit, "at least "), stat_key(st), len(data))
    return data, stat_key(st)


def _refuse_by_stat(st: os.stat_result, limit: int) -> None:
    if not stat.S_ISREG(st.st_mode):
        kind = _KINDS.get(stat.S_IFMT(st.st_mode), "not a regular file")
        raise PageRefused(f"{kind}, not a regular file; not read", stat_key(st), 0)
    if st.st_size > limit:
        raise PageRefused(_too_large(st.st_size, limit), stat_key(st), st.st_size)


def _too_large(size: int, limit: int, prefix: str = "") -> str:
    return (
        f"{prefix}{size} bytes, over the read limit of {limit} bytes (limits.read_bytes); "
        "not read: split the page"
    )


def inside(top: str, path: str) -> bool:
    """Does `path`, every symlink resolved, stay inside the folder `top` (also resolved)?"""
    root = os.path.realpath(top)
    target = os.path.realpath(path)
    return target == root or target.startswith(root.rstrip(os.sep) + os.sep)
