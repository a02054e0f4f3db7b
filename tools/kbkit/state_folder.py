"""Folders kbkit keeps derived state in (parse cache, lessons fold cache): each one ignores
itself with its own `.gitignore`, so nothing in it is ever committed."""

from __future__ import annotations

from pathlib import Path


def make_state_folder(folder: Path, note: str) -> Path:
    """Create `folder` (and its parents) with a `.gitignore` that ignores everything in it;
    `note` (one line) tells a reader what the folder holds. Raises OSError as mkdir does."""
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text(f"# {note}\n*\n")
    return folder
