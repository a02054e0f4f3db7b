"""Promote well-supported lessons to intake events of kind `lesson`.

The daily distill can then propose them as rules; a human merging that PR is the adoption
step, never this command.

Rows go through the intake ledger (`kbkit.intake.ledger.record_events`), which appends an
event `{source_kind: "lesson", source_id, repo: null, title, summary, recorded_at}` and its
`pending` status row under the ledger's own lock and skips keys already recorded, so
promotion is idempotent and safe beside concurrent recorders.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.infra.jsonl import iter_rows
from kbkit.intake.ledger import append_status, load_events, load_status, record_events
from kbkit.lessons.extraction import utc_now
from kbkit.lessons.fold import LessonRow, live_support
from kbkit.lessons.rendering import flatten
from kbkit.lessons.store import LessonStore

SOURCE_KIND = "lesson"


class Promotion(NamedTuple):
    lesson_id: str
    support: int
    title: str
    summary: str


def plan_promotions(store: LessonStore, intake: Path, min_support: int) -> list[Promotion]:
    """Live lessons with evidence from at least `min_support` distinct tasks, not yet recorded
    as events (several rows from one task count once)."""
    state = store.state()
    present = {
        state.lesson_id(str(row.get("source_id")))  # an earlier version's id counts as its lesson
        for row in iter_rows(intake / "events.jsonl")
        if row.get("source_kind") == SOURCE_KIND
    }
    plans = []
    for lid, support in sorted(live_support(state).items()):
        if support.distinct < min_support or lid in present or lid not in state.lessons:
            continue
        row = LessonRow(*state.lessons[lid])
        scope = ", ".join(
            f"{k}={v}" for k, v in (("company", row.company), ("category", row.category)) if v
        )
        tasks = sorted(set(support.tasks))
        title = flatten(f"Lesson ({row.kind}, {row.cue}): {row.action}", 200)
        summary = flatten(
            f"{row.action}. Support: {len(tasks)} task(s) "
            f"({', '.join(tasks[:10])}{', ...' if len(tasks) > 10 else ''}), "
            f"{support.rows} evidence row(s); "
            f"scope: {scope or 'generic'}; lesson {lid}.",
            2000,
        )
        plans.append(Promotion(lid, support.distinct, title, summary))
    return plans


def promote(store: LessonStore, intake: Path, min_support: int) -> list[Promotion]:
    """Record one intake event (and its pending status row) per promoted lesson."""
    with store.lock():
        plans = plan_promotions(store, intake, min_support)
        now = utc_now()
        events: list[dict[str, Any]] = [
            {
                "source_kind": SOURCE_KIND,
                "source_id": plan.lesson_id,
                "repo": None,
                "title": plan.title,
                "summary": plan.summary,
                "recorded_at": now,
            }
            for plan in plans
        ]
        result = record_events(intake, events)
    added = {source_id for _, source_id in result.added}
    return [plan for plan in plans if plan.lesson_id in added]


def withdraw_promotions(
    intake: Path, lessons: set[str], reason: str, aliases: Mapping[str, str] | None = None
) -> list[str]:
    """Pending `lesson` events of these lessons leave the queue: status `shadowed`, reason.

    Called when evidence behind a lesson is forgotten: its promotion cites that evidence
    (task ids, support), so it must not reach a rule proposal. Published ones are history.
    """
    if not lessons:
        return []
    status = load_status(intake)
    withdrawn = []
    for key in load_events(intake):
        if key[0] != SOURCE_KIND or (aliases or {}).get(key[1], key[1]) not in lessons:
            continue
        current = status.get(key)
        if current is not None and current.get("state") != "pending":
            continue
        raw = current.get("attempts", 0) if current else 0
        attempts = raw if type(raw) is int and raw >= 0 else 0
        append_status(
            intake, key[0], key[1], "shadowed", attempts=attempts, previous=current, reason=reason
        )
        withdrawn.append(key[1])
    return withdrawn
