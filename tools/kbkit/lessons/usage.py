"""Modes (off / shadow / inject), the usage log, and the prompt bundle.

`KB_LESSONS` (or, when unset, `ARTEX_RSI_LESSONS`) decides what a consideration does:
- off (default): no selection, no log, prompts unchanged;
- shadow: select and log what would have been shown, prompts unchanged;
- inject: select, log, and append the block after the planner and worker prompts.
The block is appended after the fully rendered prompt, so no prompt edit can remove it.
With `assign="hash"` in inject mode, a task's arm (shadow or inject) is a stable hash of its
id, so a team can compare the two arms fairly while lessons are on. Shadow mode never
injects, whatever the assignment: random assignment to an inject arm needs `inject`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, NamedTuple

from kbkit.infra.clock import timestamp as utc_now  # extraction's clock, without its imports
from kbkit.infra.errors import UsageError
from kbkit.lessons.conflicts import Withheld
from kbkit.lessons.redaction import clean_scope, scope_key
from kbkit.lessons.rendering import render_block
from kbkit.lessons.selection import SelectedLesson, lesson_scope, select_lessons
from kbkit.lessons.store import LessonStore

MODES = ("off", "shadow", "inject")
ENV_VARS = ("KB_LESSONS", "ARTEX_RSI_LESSONS")
ASSIGNMENTS = ("none", "hash")
_OFF_ALIASES = {"", "off", "0", "false", "no", "none"}


class Bundle(NamedTuple):
    mode: str  # the effective mode for this task
    assign: str
    lessons: list[SelectedLesson]
    block: str  # '' unless lessons were injected
    planner: str
    worker: str
    withheld: tuple[Withheld, ...] = ()  # contradicted lessons left out, with why

    def to_dict(self) -> dict[str, Any]:
        data = {
            "mode": self.mode,
            "assign": self.assign,
            "block": self.block,
            "lessons": [lesson.to_dict() for lesson in self.lessons],
        }
        if self.withheld:
            data["withheld"] = [note.to_dict() for note in self.withheld]
        return data


def lesson_mode(environ: Mapping[str, str] | None = None) -> str:
    """The configured mode; an unknown value is a configuration error, never a guess."""
    env = os.environ if environ is None else environ
    for name in ENV_VARS:
        if name in env:
            value = env[name].strip().lower()
            if value in _OFF_ALIASES:
                return "off"
            if value in MODES:
                return value
            raise UsageError(f"{name}={env[name]!r}: expected one of off, shadow, inject")
    return "off"


def hash_arm(task_id: str) -> str:
    """Stable 50/50 assignment of a task to shadow or inject."""
    import hashlib  # only a hashed assignment needs it (OpenSSL's start-up: ~3 ms)

    digest = hashlib.sha256(f"kbkit-lessons-arm\x00{task_id}".encode()).digest()
    return "inject" if digest[0] % 2 else "shadow"


def append_block(prompt: str, block: str) -> str:
    """The final prompt: the rendered prompt, a blank line, then the block."""
    if not block:
        return prompt
    return f"{prompt.rstrip()}\n\n{block}\n"


def bundle_prompts(
    task: dict[str, Any],
    planner: str,
    worker: str,
    *,
    store: LessonStore | None = None,
    mode: str | None = None,
    assign: str = "none",
    scope: str | None = None,
    as_of: str | None = None,
    out: str | None = None,
) -> Bundle:
    """Consider lessons for a task and return the final planner and worker prompts.

    `scope` is the client-isolation setting (see `kbkit.lessons.selection`). `out` is the
    folder the caller writes the bundle to (`kb lessons bundle --out`): the usage row
    names it, so `kb lessons forget --purge` can rewrite it later.
    """
    if assign not in ASSIGNMENTS:
        raise UsageError(f"assign={assign!r}: expected one of {', '.join(ASSIGNMENTS)}")
    configured = lesson_mode() if mode is None else mode
    if configured not in MODES:
        raise UsageError(f"mode={configured!r}: expected one of off, shadow, inject")
    if configured == "off":
        return Bundle("off", assign, [], "", planner, worker)
    # only inject mode may randomise into the inject arm: shadow promises no prompt changes
    effective = (
        hash_arm(str(task["id"])) if assign == "hash" and configured == "inject" else configured
    )
    store = store if store is not None else LessonStore.for_repo()
    scope = lesson_scope(scope)
    withheld: list[Withheld] = []
    lessons = select_lessons(task, store, scope=scope, as_of=as_of, withheld=withheld)
    row: dict[str, Any] = {
        "task": str(task["id"]),
        "company": clean_scope(task.get("company")),
        "category": clean_scope(task.get("category")),
        "company_key": scope_key(task.get("company")),
        "category_key": scope_key(task.get("category")),
        "lessons": [lid for lesson in lessons for lid in lesson.ids()],
        "mode": effective,
        "assign": assign,
        "scope": scope,
        "at": utc_now(),
    }
    if out is not None:
        row["bundle"] = out
    if withheld:  # the note shadow (and inject) mode leaves: who was left out, and why
        row["withheld"] = [note.to_dict() for note in withheld]
    store.record_usage(row)
    notes = tuple(withheld)
    if effective != "inject" or not lessons:
        return Bundle(effective, assign, lessons, "", planner, worker, notes)
    block = render_block(lesson.line for lesson in lessons)
    return Bundle(
        effective,
        assign,
        lessons,
        block,
        append_block(planner, block),
        append_block(worker, block),
        notes,
    )
