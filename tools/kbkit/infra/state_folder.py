"""Folders kbkit keeps derived state in (parse cache, lessons fold cache): each one ignores
itself with its own `.gitignore`, so nothing in it is ever committed."""

from __future__ import annotations

from pathlib import Path

from kbkit.infra.jsonl import atomic_write_text


def make_state_folder(folder: Path, note: str) -> Path:
    """Create `folder` (and its parents) with a `.gitignore` that ignores everything in it;
    `note` (one line) tells a reader what the folder holds. The `.gitignore` is written
    atomically (a killed writer never leaves half of it) but not synced to disk: a cold
    `kb check` of a fresh clone paid two fsyncs for it, a tenth of its fixed cost. A file a
    power cut left empty or torn ignores nothing, and the next call writes it again. Raises
    OSError as mkdir does."""
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    if not _ignores_all(ignore):
        atomic_write_text(ignore, f"# {note}\n*\n", durable=False)
    return folder


def _ignores_all(ignore: Path) -> bool:
    try:
        return "*" in ignore.read_text("utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return False
