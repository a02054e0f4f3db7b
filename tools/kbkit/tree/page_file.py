"""Reading one page file of a knowledge root, and only what is safe to read.

A page is read only when it is a regular file inside the root (a symlink to a page of the
same root is fine) and at most `limit` bytes long. A FIFO would block the read forever, a
device (`/dev/zero`) never ends, a symlink out of the root would echo someone else's file
into findings, and a huge page costs seconds and gigabytes on every run: each is refused
from its `stat` before a byte is read. A symlink is resolved and its target checked before
it is opened; a file in the tree itself is opened without following links and without
blocking, and refused by its `fstat` (one system call less per page than stat-then-open).
"""

from __future__ import annotations

import errno
import os
import stat

from kbkit.infra.boundary import within
from kbkit.tree.walk import StatKey, stat_key

_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}


# Page contents read instead of the disk, by path (`os.path.join(top, rel)`): the staged
# content of a page the checkout does not have (`kbkit.tree.staged`: a sparse checkout, a
# deletion not staged) or an editor's unsaved buffer (`kb lsp`). Such a read has the stat key
# OVERLAY_KEY, which no file has, so no cache ever keeps it. Set before any fork (parse
# helpers inherit it); empty in every other run, which then pays one truth test per page.
OVERLAY: dict[str, bytes] = {}
OVERLAY_KEY: StatKey = (0, 0, 0, 0)


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
    if OVERLAY:
        data = OVERLAY.get(path)
        if data is not None:
            if len(data) > limit:
                raise PageRefused(_too_large(len(data), limit), OVERLAY_KEY, len(data))
            return data, OVERLAY_KEY
    try:
        # O_NOFOLLOW: a symlink fails here and takes the checked path below; O_NONBLOCK: a
        # FIFO opens at once (and is then refused by its fstat) instead of waiting for a writer.
        fd = os.open(path, _FLAGS | _NOFOLLOW)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.EMLINK) or not _NOFOLLOW:
            raise
        fd = _open_link(top, path, limit, top_name)
    try:
        st = os.fstat(fd)
        _refuse_by_stat(st, limit)
        data = _read_at_most(fd, st.st_size, limit)
    finally:
        os.close(fd)
    if len(data) > limit:  # it grew after the fstat
        raise PageRefused(_too_large(len(data), limit, "at least "), stat_key(st), len(data))
    return data, stat_key(st)


_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _open_link(top: str, path: str, limit: int, top_name: str) -> int:
    """Open a symlinked page whose target stays inside `top` and is a small regular file."""
    st = os.stat(path)  # the target's key, as the walk took it; a loop raises OSError
    if not inside(top, path):
        raise PageRefused(
            f"a symlink that leaves {top_name}; not followed (link to a file inside "
            "it, or move the file in)",
            stat_key(st),
            0,
        )
    _refuse_by_stat(st, limit)  # never open a device or a FIFO behind a link
    return os.open(path, _FLAGS)


_GROWTH_READ = 1 << 16  # bytes asked for per read past the stat'ed size


def _read_at_most(fd: int, size: int, limit: int) -> bytes:
    """The file's bytes up to limit + 1: one read of the stat'ed size plus one byte (a file
    that has not grown ends inside it), then, when it has grown since the fstat, small reads
    until the end. `os.read(fd, n)` allocates n bytes before it reads: asking for the rest
    of the limit (1 MiB by default) cost a memory map and unmap per page, 0.16 s of CPU on a
    10k-page cold check."""
    asked = min(size, limit) + 1
    data = os.read(fd, asked)
    if len(data) < asked:
        return data  # a regular file's read comes back short only at its end: no second read
    parts = [data]
    total = len(data)
    while data and total <= limit:
        data = os.read(fd, min(limit + 1 - total, _GROWTH_READ))
        if data:
            parts.append(data)
            total += len(data)
    return parts[0] if len(parts) == 1 else b"".join(parts)


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
    """Does `path`, every symlink resolved, stay inside the folder `top` (also resolved)?
    The repository boundary's one rule (`kbkit.infra.boundary`)."""
    return within(top, path)
