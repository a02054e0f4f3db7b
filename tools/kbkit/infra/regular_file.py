"""Opening a file someone else named or put in the tree: only a regular file, and never by
opening something else first.

Opening a FIFO for reading waits for a writer (forever, when there is none); a character
device such as `/dev/zero` never ends, and opening some devices does something by itself
(a watchdog, a tape rewinding). So the path is `stat`ed first and anything but a regular
file is refused before it is opened. The open itself is non-blocking and its `fstat` checked
again, so a file swapped for a FIFO between the two calls is refused too instead of hanging.
A symlink is followed (whether it may point outside the repository is the confinement
rule's question, not this module's).
"""

from __future__ import annotations

import errno
import os
import stat

KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}
_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)


class NotRegularFile(OSError):
    """A path that names a FIFO, a device, a socket or a folder; it was not opened. An
    OSError, so a reader that treats unreadable files as absent treats these alike."""

    def __init__(self, path: str | os.PathLike[str], kind: str) -> None:
        super().__init__(errno.EINVAL, f"{kind}, not a regular file", str(path))
        self.kind = kind


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words ("a FIFO")."""
    return KINDS.get(stat.S_IFMT(mode), "not a regular file")


def check_regular(path: str | os.PathLike[str]) -> os.stat_result:
    """The stat of `path` (symlinks followed) when it is a regular file, else NotRegularFile.
    A missing file raises FileNotFoundError as usual."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise NotRegularFile(path, kind_of(st.st_mode))
    return st


def open_regular(path: str | os.PathLike[str]) -> int:
    """A file descriptor for reading the regular file `path` (see the module docstring)."""
    check_regular(path)
    fd = os.open(path, _FLAGS)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # replaced between the stat and the open
            raise NotRegularFile(path, kind_of(st.st_mode))
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular_bytes(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """The bytes of the regular file `path`: all of them, or at most `limit` + 1 (so that a
    caller can tell a file over its limit)."""
    with os.fdopen(open_regular(path), "rb") as handle:
        return handle.read() if limit is None else handle.read(limit + 1)


def read_regular_text(path: str | os.PathLike[str]) -> str:
    """`Path(path).read_text("utf-8")` (universal newlines, UnicodeDecodeError when it is no
    UTF-8) for the regular file `path` only."""
    with open(open_regular(path), encoding="utf-8") as handle:
        return handle.read()
