"""Evidence-gated lessons from closed tasks: extraction, store, selection, rendering, usage.

Library entry points, importable from here (loaded on first use, so `kb lessons show` pays
only for what it touches):
- `extract(task)`: the lessons of one task record (pure; validates the record);
- `LessonStore.for_repo(repo).add([extract(task), ...])`: record them, idempotently;
- `select_lessons(task)`: what the task would see, ranked and within budget;
- `bundle_prompts(task, planner, worker)`: the final prompts per `KBKIT_LESSONS`.

May import: `kbkit.intake` and the layers below it, except the knowledge tree's (a contract); never `kbkit.curator`.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "extract": "kbkit.lessons.extraction",
    "LessonStore": "kbkit.lessons.store",
    "select_lessons": "kbkit.lessons.selection",
    "bundle_prompts": "kbkit.lessons.usage",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'kbkit.lessons' has no attribute {name!r}")
