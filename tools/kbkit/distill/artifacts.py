"""Per-batch artifacts under `state/artifacts/knowledge-intake/<day>/<batch>/`.

prompt, schema, raw reply, validation, apply result, validator transcript and commit id:
everything a reviewer or a debugging session needs to see what one model call did.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from kbkit.infra import clock
from kbkit.infra.jsonl import atomic_write_text
from kbkit.infra.paths import BATCH_ARTIFACTS as ARTIFACTS


def batch_folder(state_dir: Path, day: str, batch_id: str) -> Path:
    return state_dir / ARTIFACTS / day / batch_id


def new_batch_id(state_dir: Path, day: str, sources: list[str]) -> str:
    """`<day>T<HHMMSS>Z-<hash of the sources>`, unique among the day's artifact folders."""
    digest = hashlib.sha256("\n".join(sources).encode()).hexdigest()[:8]
    base = f"{day}T{clock.now().strftime('%H%M%S')}Z-{digest}"
    candidate, n = base, 1
    while batch_folder(state_dir, day, candidate).exists():
        n += 1
        candidate = f"{base}-{n}"
    return candidate


class Artifacts:
    """Writes one batch's files atomically; a dry run writes nothing."""

    def __init__(self, folder: Path, dry_run: bool):
        self.folder = folder
        self.dry_run = dry_run

    def write(self, name: str, content: Any) -> None:
        if self.dry_run:
            return
        if not isinstance(content, str):
            content = json.dumps(content, indent=2, ensure_ascii=False) + "\n"
        atomic_write_text(self.folder / name, content)

    def shown(self) -> Path | None:
        """The folder, or None in a dry run (nothing was written there)."""
        return None if self.dry_run else self.folder
