"""The crash journal: every page an apply touches, with its bytes before the apply and the
digest of what the apply writes, recorded before the first page write and removed once the
apply finished or was undone.

It lives inside the clone but is never tracked: under `.git/kbkit/` when `.git` is a
folder, else in `.kbkit-journal/` (which ignores itself with its own `.gitignore`). The
clone-wide lock file sits next to it. A journal found by the next curator call means an
apply was interrupted, and it is undone first.

Undoing (a rollback, or the recovery after a crash) puts a page back only when it still
holds exactly what the apply wrote (SHA-256). A page that holds its old bytes needs
nothing; a page that holds anything else (edited since, deleted, a symlink now) is left as
it is and reported with what it holds, and the journal keeps it until a person decides:
`kb curate recover --keep-current` or `--restore-base`. A journal of the wrong shape is a
clear error naming the file, never a guess.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import functools
import json
import os
import stat
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.curator.catalog import sha256
from kbkit.curator.confine import check_folder, linked_part, page_path
from kbkit.curator.errors import KnowledgeCurationError
from kbkit.infra.json_input import loads
from kbkit.infra.jsonl import atomic_write_bytes
from kbkit.infra.state_folder import make_state_folder

JOURNAL = "journal.json"
LOCK_NAME = "curator"
FALLBACK_DIR = ".kbkit-journal"
VERSION = 2
KEEP_CURRENT = "keep-current"  # a person decided: the listed pages stay as they are now
RESTORE_BASE = "restore-base"  # a person decided: the listed pages go back to their base
RESOLUTIONS = (KEEP_CURRENT, RESTORE_BASE)


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


class JournalPage(NamedTuple):
    base: bytes | None  # the page's bytes before the apply (None: the apply creates it)
    written_sha256: str  # SHA-256 of the bytes the apply writes


class Conflict(NamedTuple):
    """A page an undo left as it is, and what it holds instead."""

    document_id: str
    path: str  # repo-relative, e.g. knowledge/general/writing/rules.md
    holds: str  # what the page holds, in words


class RecoveryResult(NamedTuple):
    journal_found: bool
    restored: tuple[str, ...]  # document IDs put back to their base bytes (or removed)
    unchanged: tuple[str, ...]  # document IDs that still had their base bytes
    kept: tuple[str, ...] = ()  # changed since the apply, kept as they are (--keep-current)

    def to_dict(self) -> dict[str, Any]:
        return {
            "journal_found": self.journal_found,
            "restored": list(self.restored),
            "unchanged": list(self.unchanged),
            "kept": list(self.kept),
        }


class RecoveryConflict(KnowledgeCurationError):
    """An undo left pages that changed since the apply as they are (exit 1); the journal
    keeps them until `kb curate recover --keep-current` or `--restore-base`."""

    def __init__(self, message: str, conflicts: tuple[Conflict, ...], restored: tuple[str, ...]):
        super().__init__(message)
        self.conflicts = conflicts
        self.restored = restored


def journal_file(clone: Path) -> Path:
    return state_dir(clone) / JOURNAL


def write_journal(clone: Path, root: str, pages: dict[str, JournalPage]) -> None:
    """Record every page's base bytes and the digest of what the apply writes, atomically."""
    entries = {
        doc: {
            "base64": None if page.base is None else base64.b64encode(page.base).decode("ascii"),
            "base_sha256": None if page.base is None else sha256(page.base),
            "written_sha256": page.written_sha256,
        }
        for doc, page in pages.items()
    }
    blob = json.dumps(
        {"version": VERSION, "knowledge_root": root, "pages": entries}, sort_keys=True
    )
    atomic_write_bytes(journal_file(clone), blob.encode())


def clear_journal(clone: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(journal_file(clone))


@functools.cache
def _validator() -> Any:
    from jsonschema import Draft202012Validator  # only a journal that exists pays for it

    schema = loads(Path(__file__).with_name("journal.schema.json").read_text("utf-8"))
    return Draft202012Validator(schema)


def _unreadable(path: Path, why: str) -> KnowledgeCurationError:
    return KnowledgeCurationError(
        f"{path}: the crash journal cannot be used ({why}); nothing was restored. Look at "
        "the clone with `git status` and `git diff`, restore the pages with git, then delete "
        "the journal"
    )


def read_journal(clone: Path) -> tuple[Path, str, dict[str, JournalPage]] | None:
    """(file, knowledge root, pages) of the journal, None when there is none; a journal of
    the wrong shape raises KnowledgeCurationError naming the file."""
    path = journal_file(clone)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        raise _unreadable(path, "it is not a regular file")
    try:
        data = loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise _unreadable(path, f"not JSON: {exc}") from exc
    if isinstance(data, dict) and data.get("version") == 1:
        raise _unreadable(
            path,
            "written by an older kbkit, which did not record what the apply wrote, so later "
            "edits cannot be told from the apply's",
        )
    error = next(iter(sorted(_validator().iter_errors(data), key=lambda e: list(e.path))), None)
    if error is not None:
        where = "/".join(map(str, error.absolute_path)) or "the document"
        raise _unreadable(path, f"at {where}: {error.message[:200]}")
    pages: dict[str, JournalPage] = {}
    for doc, entry in data["pages"].items():
        parts = doc.split("/")
        if doc.startswith("/") or ".." in parts or "" in parts:
            raise _unreadable(path, f"{doc!r} is not a document ID inside the knowledge root")
        if (entry["base64"] is None) != (entry["base_sha256"] is None):
            raise _unreadable(path, f"{doc}: base64 and base_sha256 must both be set or null")
        base = None
        if entry["base64"] is not None:
            try:
                base = base64.b64decode(entry["base64"], validate=True)
            except (binascii.Error, ValueError) as exc:
                raise _unreadable(path, f"{doc}: the base is not base64") from exc
            if sha256(base) != entry["base_sha256"]:
                raise _unreadable(path, f"{doc}: the base does not match its SHA-256")
        pages[doc] = JournalPage(base, entry["written_sha256"])
    return path, data["knowledge_root"], pages


# What a page holds when an undo looks at it: its base, what the apply wrote, anything else
# (a person may still put the base back), or something kbkit never writes over.
_BASE, _WRITTEN, _CHANGED, _UNTOUCHABLE = "base", "written", "changed", "untouchable"


def _state(clone: Path, root: str, doc: str, page: JournalPage) -> tuple[str, str]:
    """(what kind of state, what the page holds in words). Never follows a symlink."""
    path = page_path(clone, root, doc)  # refuses a folder swapped for an outside link
    part = linked_part(clone, root, doc)
    if part is not None:
        where = "the page" if part == f"{doc}.md" else f"its folder {part}/"
        return _UNTOUCHABLE, f"{where} is a symlink now; kbkit never writes a symlinked page"
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        if page.base is None:
            return _BASE, "absent, as before the apply"
        return _CHANGED, "it is missing (deleted since the apply)"
    if not stat.S_ISREG(info.st_mode):
        return _UNTOUCHABLE, "it is not a regular file now"
    current = sha256(path.read_bytes())
    if page.base is not None and current == sha256(page.base):
        return _BASE, "its bytes from before the apply"
    if current == page.written_sha256:
        return _WRITTEN, "what the apply wrote"
    before = (
        "did not exist before the apply"
        if page.base is None
        else (f"held {sha256(page.base)[:12]} before the apply")
    )
    return _CHANGED, (
        f"it changed since the apply wrote it: it holds {current[:12]}, not the apply's "
        f"{page.written_sha256[:12]}, and {before}"
    )


def _put_back(clone: Path, root: str, doc: str, page: JournalPage) -> None:
    path = page_path(clone, root, doc)
    if page.base is None:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # a page the apply created disappears again
    else:
        atomic_write_bytes(path, page.base)


def undo(
    clone: Path,
    root: str,
    pages: dict[str, JournalPage],
    *,
    resolve: str | None = None,
    what: str = "the interrupted apply",
) -> RecoveryResult:
    """Put back every page that holds what the apply wrote; leave the others. Clears the
    journal when nothing is left, else keeps the pages left as they are in it and raises
    RecoveryConflict (`resolve`: a person's decision for those pages)."""
    states = {doc: _state(clone, root, doc, page) for doc, page in sorted(pages.items())}
    restored, unchanged, kept, left = [], [], [], []
    for doc, (state, holds) in states.items():
        if state == _BASE:
            unchanged.append(doc)
        elif state == _WRITTEN or (state == _CHANGED and resolve == RESTORE_BASE):
            _put_back(clone, root, doc, pages[doc])
            restored.append(doc)
        elif resolve == KEEP_CURRENT:
            kept.append(doc)
        else:
            left.append(Conflict(doc, f"{root}/{doc}.md", holds))
    if not left:
        clear_journal(clone)
        return RecoveryResult(True, tuple(restored), tuple(unchanged), tuple(kept))
    write_journal(clone, root, {c.document_id: pages[c.document_id] for c in left})
    raise RecoveryConflict(_conflict_message(what, left, restored), tuple(left), tuple(restored))


def _conflict_message(what: str, left: list[Conflict], restored: list[str]) -> str:
    lines = [f"{what} could not be undone everywhere; these pages were left as they are:"]
    lines += [f"  {c.path}: {c.holds}" for c in left]
    if restored:
        lines.append(f"put back as they were before the apply: {', '.join(restored)}")
    lines.append(
        "Look at each page left (`git diff -- PATH` shows the apply's new sections and the "
        "later change), then run `kb curate recover --keep-current` to keep them as they are "
        "now, or `kb curate recover --restore-base` to put them back as they were before the "
        "apply (the later change is lost). Until then every curator command stops here."
    )
    return "\n".join(lines)


def recover(clone: Path, resolve: str | None = None) -> RecoveryResult:
    """Undo an interrupted apply (call with the clone lock held)."""
    found = read_journal(clone)
    if found is None:
        return RecoveryResult(False, (), ())
    _, root, pages = found
    return undo(clone, root, pages, resolve=resolve)
