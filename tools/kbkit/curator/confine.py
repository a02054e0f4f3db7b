"""Confinement: every path the curator reads or writes stays inside the clone, and no
symlinked rule page is ever written.

A knowledge root or a folder on a page's path may be a symlink; the curator follows one
for reading only when it lands inside the clone (the rule of `kbkit.infra.boundary`, which
every command shares; the curator keeps its own error and reasons). Anything else is refused with a
`KnowledgeCurationError` whose message starts with the stable reason `escape:`, before any
write.

The one rule for symlinked pages (README, "Curator"): a rule page that is a symlink, or
that sits in a folder below the knowledge root that is one, is never written, neither over
the link nor through it. The catalog leaves it out, validation rejects a row for it as
`symlink`, apply refuses with `symlink:` before any write, and a rollback or a crash
recovery that finds a symlink where it would restore a page leaves it as it is and says so.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from kbkit.curator.errors import KnowledgeCurationError
from kbkit.infra.boundary import within

ESCAPE = "escape"
SYMLINK = "symlink"


def _inside(clone: Path, path: Path) -> bool:
    return within(clone, path)  # the repository boundary's one rule


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


def linked_part(clone: Path, root: str, document_id: str) -> str | None:
    """The first part of the page's path below the knowledge root that is a symlink (a
    folder, or the page itself), as a path relative to the root; None when there is none."""
    top = clone / root
    parts = f"{document_id}.md".split("/")
    for depth in range(1, len(parts) + 1):
        rel = "/".join(parts[:depth])
        try:
            if stat.S_ISLNK(os.lstat(top / rel).st_mode):
                return rel
        except OSError:
            return None  # the rest of the path does not exist: nothing is linked
    return None


def symlink_message(document_id: str, part: str) -> str:
    what = "the page" if part == f"{document_id}.md" else f"its folder {part}/"
    return (
        f"{document_id}: {what} is a symlink; kbkit never writes a symlinked rule page "
        "(propose the rule for the page the link points to)"
    )


def read_page(clone: Path, root: str, document_id: str) -> bytes:
    """The page's bytes, refused with `escape:` when reading would leave the clone."""
    path = page_path(clone, root, document_id)
    if not _inside(clone, path):
        raise escape_error(f"the page {document_id}")
    return path.read_bytes()


def writable_page(clone: Path, root: str, document_id: str) -> Path:
    """The path of a page the curator may write: inside the clone (else `escape:`) and with
    no symlink on its path below the knowledge root (else `symlink:`)."""
    path = page_path(clone, root, document_id)
    if not _inside(clone, path):
        raise escape_error(f"the page {document_id}")
    part = linked_part(clone, root, document_id)
    if part is not None:
        raise KnowledgeCurationError(f"{SYMLINK}: {symlink_message(document_id, part)}")
    return path
