"""The crash journal: base bytes of every page an apply touches, written before the first
page write and removed once the validators passed (or the rollback finished).

It lives inside the clone but is never tracked: under `.git/kbkit/` when `.git` is a
folder, else in `.kbkit-journal/` (which ignores itself with its own `.gitignore`). The
clone-wide lock file sits next to it. A journal found by the next curator call means an
apply was interrupted: every page it lists goes back to its base bytes first.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.curator.catalog import sha256
from kbkit.curator.confine import PageBase, check_folder, page_path, restore_link
from kbkit.curator.errors import KnowledgeCurationError
from kbkit.infra.json_input import loads
from kbkit.infra.jsonl import atomic_write_bytes
from kbkit.infra.state_folder import make_state_folder

JOURNAL = "journal.json"
LOCK_NAME = "curator"
FALLBACK_DIR = ".kbkit-journal"


def state_dir(clone: Path) -> Path:
    git = clone / ".git"
    if git.is_dir():
        check_folder(clone, git, "the .git folder")
        folder = git / "kbkit"
        check_folder(clone, folder, "the journal folder .git/kbkit")
        folder.mkdir(exist_ok=True)
        return folder
    folder = clone / FALLBACK_DIR
    check_folder(clone, folder, f"the journal folder {FALLBACK_DIR}")
    return make_state_folder(folder, "kbkit's curator: crash journal and clone lock")


def lock_target(clone: Path) -> Path:
    return state_dir(clone) / LOCK_NAME


class RecoveryResult(NamedTuple):
    journal_found: bool
    restored: tuple[str, ...]  # document IDs put back to their base bytes
    unchanged: tuple[str, ...]  # document IDs that still had their base bytes

    def to_dict(self) -> dict[str, Any]:
        return {
            "journal_found": self.journal_found,
            "restored": list(self.restored),
            "unchanged": list(self.unchanged),
        }


def write_journal(clone: Path, root: str, bases: dict[str, PageBase]) -> None:
    """Record every page's base bytes and symlink (document ID -> base) atomically."""
    entries = {
        doc: {
            "sha256": sha256(base.data),
            "base64": base64.b64encode(base.data).decode("ascii"),
            "link": base.link,
            "absent": base.absent,
        }
        for doc, base in bases.items()
    }
    blob = json.dumps({"version": 1, "knowledge_root": root, "pages": entries}, sort_keys=True)
    atomic_write_bytes(state_dir(clone) / JOURNAL, blob.encode())


def clear_journal(clone: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(state_dir(clone) / JOURNAL)


def restore_pages(
    clone: Path, root: str, bases: dict[str, PageBase]
) -> tuple[list[str], list[str]]:
    """Put every page back as it was: its bytes, or the symlink it was (never followed)."""
    restored, unchanged = [], []
    for doc, base in sorted(bases.items()):
        path = page_path(clone, root, doc)  # refuses a folder swapped for an outside link
        if base.absent:  # a page the apply created: it disappears again
            if path.is_symlink() or path.exists():
                path.unlink()
                restored.append(doc)
            else:
                unchanged.append(doc)
            continue
        if base.link is not None:
            if path.is_symlink() and os.readlink(path) == base.link:
                unchanged.append(doc)
            else:
                restore_link(path, base.link)
                restored.append(doc)
            continue
        try:
            current = None if path.is_symlink() else path.read_bytes()
        except FileNotFoundError:
            current = None
        if current == base.data:
            unchanged.append(doc)
        else:
            atomic_write_bytes(path, base.data)
            restored.append(doc)
    return restored, unchanged


def recover(clone: Path) -> RecoveryResult:
    """Undo an interrupted apply (call with the clone lock held)."""
    path = state_dir(clone) / JOURNAL
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return RecoveryResult(False, (), ())
    try:
        data = loads(raw)
        root = str(data["knowledge_root"])
        bases = {
            str(doc): PageBase(
                base64.b64decode(entry["base64"]), entry.get("link"), entry.get("absent") is True
            )
            for doc, entry in data["pages"].items()
        }
        bad = [d for d, e in data["pages"].items() if sha256(bases[d].data) != e["sha256"]]
        bad += [d for d, b in bases.items() if b.link is not None and not isinstance(b.link, str)]
    except (ValueError, KeyError, TypeError) as exc:
        raise KnowledgeCurationError(
            f"{path}: the crash journal is unreadable ({exc}); restore the pages with git, "
            "then delete the journal"
        ) from exc
    if bad or any(".." in doc.split("/") or doc.startswith("/") for doc in bases):
        raise KnowledgeCurationError(
            f"{path}: the crash journal is corrupt; restore the pages with git, then delete it"
        )
    restored, unchanged = restore_pages(clone, root, bases)
    clear_journal(clone)
    return RecoveryResult(True, tuple(restored), tuple(unchanged))
