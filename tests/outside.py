"""A folder outside the repository under test, for the boundary tests: a secret in a page
that looks like kbkit's own, and a fingerprint to prove nothing there changed."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

SECRET = "OUTSIDE-SECRET-7f3a9c"  # must never appear in any output
OUTSIDE_PAGE = (
    f"---\ntitle: {SECRET} title\ncreated: 2026-01-01\nupdated: 2026-01-02\ntype: guide\n"
    f"tags: [general]\nsources: []\n---\n\n# {SECRET} heading\n\n"
    f"The text of a file outside the repository: {SECRET}.\n"
)


def victim(tmp_path: Path, name: str = "victim") -> Path:
    """A folder beside the repository holding pages and an index that carry SECRET."""
    folder = tmp_path / name
    (folder / "general").mkdir(parents=True)
    (folder / "secret.md").write_text(OUTSIDE_PAGE)
    (folder / "_index.md").write_text(OUTSIDE_PAGE)
    (folder / "general" / "_index.md").write_text(OUTSIDE_PAGE)
    (folder / "general" / "page.md").write_text(OUTSIDE_PAGE)
    return folder


def fingerprint(folder: Path) -> str:
    """Every entry under `folder`: its name, kind, mode, link target or bytes."""
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        st = os.lstat(path)
        h.update(str(path.relative_to(folder)).encode() + b"\0" + str(st.st_mode).encode())
        if path.is_symlink():
            h.update(os.readlink(path).encode())
        elif path.is_file():
            h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()
