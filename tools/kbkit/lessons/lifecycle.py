"""Lesson life cycle: candidate -> adopted -> retired, as appended transitions.

`transitions.jsonl` holds one row per change `{lesson, state, reason, at}`; the last row of
a lesson is its state (a lesson without one is a `candidate`). Nothing is edited. Only
candidates are selected: an adopted lesson is carried by the rule its promotion became, a
retired one was withdrawn by an owner.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kbkit.infra.errors import InputError, UsageError
from kbkit.infra.jsonl import append_rows
from kbkit.intake.ledger import load_events, load_status
from kbkit.lessons.extraction import utc_now
from kbkit.lessons.store import LessonStore

STATES = ("candidate", "adopted", "retired")
PROMOTION_KIND = "lesson"  # kbkit.lessons.promotion.SOURCE_KIND


def current_state(store_state: Any, lesson: str) -> str:
    """The lesson's state in a fold (`candidate` when it never changed)."""
    row = store_state.lifecycle.get(lesson)
    return str(row[0]) if row else "candidate"


def transition(
    store: LessonStore, lessons: list[str], state: str, reason: str
) -> list[dict[str, Any]]:
    """Append a transition for each lesson not already in `state`; return the rows written."""
    if state not in STATES:
        raise UsageError(f"unknown lesson state {state!r}; use one of {', '.join(STATES)}")
    if state == "retired" and not reason.strip():
        raise UsageError("retiring a lesson needs --reason (it is kept in transitions.jsonl)")
    with store.lock():
        folded = store.state()
        rows = []
        for lesson in lessons:
            if lesson not in folded.lessons:
                raise InputError("no such lesson in lessons.jsonl", path=lesson)
            if current_state(folded, lesson) == state:
                continue
            rows.append({"lesson": lesson, "state": state, "reason": reason, "at": utc_now()})
        append_rows(store.log("transitions"), rows)
    return rows


def published_promotions(intake: Path) -> list[str]:
    """Lesson ids whose promotion event reached `published` (its rule PR went out)."""
    status = load_status(intake)
    return sorted(
        key[1]
        for key in load_events(intake)
        if key[0] == PROMOTION_KIND and (status.get(key) or {}).get("state") == "published"
    )
