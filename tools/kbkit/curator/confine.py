"""Confinement: every path the curator reads or writes stays inside the clone.

A knowledge root, a folder on a page's path or the page itself may be a symlink; the
curator follows one only when it lands inside the clone. Anything else is refused with a
`KnowledgeCurationError` whose message starts with the stable reason `escape:`, before any
write. A page that is itself a symlink inside the clone is read through it; the journal
keeps the link so a rollback puts the symlink back, not a copy of its bytes.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from kbkit.curator.errors import KnowledgeCurationError

ESCAPE = "escape"


class PageBase(NamedTuple):
    data: bytes  # the bytes the page reads as
    link: str | None  # the symlink's own target text when the page is a symlink
    absent: bool = False  # the page did not exist (an apply creates it; a rollback removes it)


def _inside(clone: Path, path: Path) -> bool:
    base = os.path.realpath(clone)
    real = os.path.realpath(path)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def escape_error(what: str) -> KnowledgeCurationError:
    return KnowledgeCurationError(f"{ESCAPE}: {what} leaves the clone through a symlink; refused")


def check_folder(clone: Path, folder: Path, what: str) -> None:
    """Refuse a folder (the knowledge root, a page's folder, the journal) outside the clone."""
    if not _inside(clone, folder):
        raise escape_error(what)


def page_path(clone: Path, root: str, document_id: str) -> Path:
    """The page's path in the clone; its folder (and the root) must stay inside the clone."""
    parts = document_id.split("/")
    if not document_id or document_id.startswith("/") or ".." in parts or "" in parts:
        raise KnowledgeCurationError(
            f"{document_id!r}: not a document ID inside the knowledge root"
        )
    check_folder(clone, clone / root, f"the knowledge root {root}/")
    path = clone / root / f"{document_id}.md"
    check_folder(clone, path.parent, f"the folder of {document_id}")
    return path


def page_inside(clone: Path, root: str, document_id: str) -> bool:
    """Whether reading the page stays inside the clone (root, folders and the page itself)."""
    try:
        path = page_path(clone, root, document_id)
    except KnowledgeCurationError:
        return False
    return _inside(clone, path)


def read_page(clone: Path, root: str, document_id: str) -> PageBase:
    """The page's bytes (and link), refused with `escape:` when reading would leave the clone."""
    path = page_path(clone, root, document_id)
    if not _inside(clone, path):
        raise escape_error(f"the page {document_id}")
    link = os.readlink(path) if path.is_symlink() else None
    return PageBase(path.read_bytes(), link)


def restore_link(path: Path, link: str) -> None:
    """Put `path` back as the symlink `link` atomically (a temp link renamed over it)."""
    tmp = path.with_name(f".{path.name}.kbkit-link.tmp")
    if tmp.is_symlink() or tmp.exists():
        tmp.unlink()
    os.symlink(link, tmp)
    os.replace(tmp, path)
