"""Which lessons a task sees, in which order.

Visibility depends on the client-isolation scope (`--scope`, `KB_LESSONS_SCOPE`):
- `company`: only lessons of the task's own company;
- `company+generic` (default, safe for multi-client use): the task's company, plus lessons
  that name no company at all (generic, or scoped by category only);
- `open`: also other companies' lessons of the task's category.
A lesson of another company is never shown to a task unless the scope is `open`; names
compare case-insensitively. Ranking, first key first:
1. scope tier: same company and category (0) > same company (1) > same category (2) >
   generic (3);
2. kind: positive > negative > caution;
3. support (live evidence rows), higher first;
4. recency (latest evidence time), newer first;
5. lesson id, for a total order.
A lesson whose evidence includes the task itself is never shown to it, a lesson without
live evidence is never shown at all, and at most 8 lessons / 1800 rendered characters are.

A lesson that would push the block past the budget ends the selection (lower-ranked lessons
never jump the queue). The ranked view (`kbkit.lessons.view`) is derived from the store's
fold and cached, so a selection reads one compact file instead of a million evidence rows.
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from kbkit.infra.errors import InputError, UsageError
from kbkit.lessons.extraction import normalize_time
from kbkit.lessons.redaction import clean_scope
from kbkit.lessons.rendering import MAX_LESSONS, RenderedLesson, fit_lines, render_line
from kbkit.lessons.store import LessonStore
from kbkit.lessons.view import TASK_SEPARATOR, Scope, SelectionView, load_view, view_as_of

__all__ = [
    "DEFAULT_SCOPE",
    "SCOPES",
    "SelectedLesson",
    "SelectionView",
    "lesson_scope",
    "load_view",
    "ranked",
    "scope_tier",
    "select_lessons",
]

SCOPES = ("company", "company+generic", "open")
DEFAULT_SCOPE = "company+generic"
SCOPE_ENV = "KB_LESSONS_SCOPE"


def lesson_scope(value: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The client-isolation scope: `value`, else KB_LESSONS_SCOPE, else the safe default."""
    env = os.environ if environ is None else environ
    chosen = value if value is not None else env.get(SCOPE_ENV, "").strip() or DEFAULT_SCOPE
    if chosen not in SCOPES:
        source = "--scope" if value is not None else SCOPE_ENV
        raise UsageError(f"{source}={chosen!r}: expected one of {', '.join(SCOPES)}")
    return chosen


class SelectedLesson(NamedTuple):
    id: str
    kind: str
    company: str | None
    category: str | None
    cue: str
    action: str
    support: int
    last_seen: str
    tier: int
    line: str
    also: tuple[str, ...] = ()  # lessons merged into this slot (the same finding's)

    def to_dict(self) -> dict[str, Any]:
        return dict(self._asdict(), also=list(self.also))

    def ids(self) -> list[str]:
        """This lesson's id and those merged into its slot: every id the task was shown."""
        return [self.id, *self.also]


def scope_tier(
    company: str | None,
    category: str | None,
    task_company: str | None,
    task_category: str | None,
    scope: str = DEFAULT_SCOPE,
) -> int | None:
    """0 same company and category, 1 same company, 2 same category, 3 generic, None hidden.

    Names compare case-insensitively: an `ACME`/`Web` task sees acme/web lessons.
    """
    same_company = (
        company is not None
        and task_company is not None
        and company.casefold() == task_company.casefold()
    )
    same_category = (
        category is not None
        and task_category is not None
        and category.casefold() == task_category.casefold()
    )
    if same_company and same_category:
        return 0
    if same_company:
        return 1
    if scope == "company":
        return None
    if company is not None and scope != "open":
        return None  # another company's lesson: its details stay with that client
    if same_category:
        return 2
    if company is None and category is None:
        return 3
    return None


def _tiers(
    view: SelectionView, company: str | None, category: str | None, scope: str
) -> list[list[Scope]]:
    tiers: list[list[Scope]] = [[], [], [], []]
    for bucket in view.buckets:
        tier = scope_tier(bucket[0], bucket[1], company, category, scope)
        if tier is not None:
            tiers[tier].append(bucket)
    return tiers


def ranked(
    view: SelectionView,
    task_id: str,
    company: str | None,
    category: str | None,
    scope: str = DEFAULT_SCOPE,
) -> Iterator[tuple[int, int]]:
    """(tier, view position) of every lesson visible to the task, best first."""
    for tier, buckets in enumerate(_tiers(view, company, category, scope)):
        for position in heapq.merge(*(view.buckets[b] for b in buckets)):
            if task_id in view.tasks[position].split(TASK_SEPARATOR):
                continue  # the task's own evidence: never shown to it
            yield tier, position


def selection_cutoff(task: dict[str, Any], as_of: str | None) -> str | None:
    """`as_of`, else the task's `started_at`, as a UTC timestamp; None when neither is set."""
    for value, source in ((as_of, "--as-of"), (task.get("started_at"), "started_at")):
        if value is None:
            continue
        moment = normalize_time(value, "")
        if not moment:
            message = f"{source}={str(value)[:80]!r} is not an ISO 8601 timestamp"
            if source == "--as-of":
                raise UsageError(message)
            raise InputError(message, path=f"task {str(task.get('id'))[:80]!r}")
        return moment
    return None


def finding_subject(kind: str, cue: str, action: str) -> tuple[str, str] | None:
    """(rule, summary) of a positive lesson built from one finding, else None.

    "Confirmed X: S" and "Reproduced X on retest: S" come from the same finding (the same
    class and summary in the same scope); selection gives them one slot together.
    """
    if kind != "positive":
        return None
    for rule, prefix in (
        ("confirmed", f"Confirmed {cue}: "),
        ("reproduced", f"Reproduced {cue} on retest: "),
    ):
        if action.startswith(prefix):
            return rule, action[len(prefix) :]
    return None


def select_lessons(
    task: dict[str, Any],
    store: LessonStore | None = None,
    *,
    view: SelectionView | None = None,
    limit: int = MAX_LESSONS,
    scope: str | None = None,
    as_of: str | None = None,
) -> list[SelectedLesson]:
    """The lessons a task would see, in rank order, within the render budget.

    `scope` is the client-isolation setting (None: KB_LESSONS_SCOPE or the safe default).
    `as_of` (else the task's `started_at`, when it has one) limits the evidence to what
    closed before that moment, so a replay of history never sees later outcomes.
    """
    scope = lesson_scope(scope)
    if not isinstance(task, dict) or not task.get("id"):
        raise InputError("a task record needs an id to select lessons for it")
    cutoff = selection_cutoff(task, as_of)
    if cutoff is not None:
        view = view_as_of(store if store is not None else LessonStore.for_repo(), cutoff)
    elif view is None:
        view = load_view(store if store is not None else LessonStore.for_repo())
    task_id = str(task["id"])
    company, category = clean_scope(task.get("company")), clean_scope(task.get("category"))
    picked: list[tuple[int, int]] = []
    rendered: list[RenderedLesson] = []
    actions: list[str] = []
    merged_ids: list[tuple[str, ...]] = []
    slots: dict[tuple[str, str, str, str], int] = {}  # one finding -> its slot in `picked`
    for tier, position in ranked(view, task_id, company, category, scope):
        kind, cue, action = view.kinds[position], view.cues[position], view.actions[position]
        subject = finding_subject(kind, cue, action)
        slot_key = (
            (view.companies[position], view.categories[position], cue, subject[1])
            if subject
            else None
        )
        if slot_key is not None and slot_key in slots:
            # the finding's other positive lesson: merge into its slot instead of a second one
            slot = slots[slot_key]
            merged = f"Confirmed and reproduced on retest {cue}: {slot_key[3]}"
            first = picked[slot][1]
            line = render_line(kind, view.supports[first], cue, merged)
            trial = [
                *rendered[:slot],
                RenderedLesson(rendered[slot].lesson_id, line),
                *rendered[slot + 1 :],
            ]
            if len(fit_lines(trial, limit=limit)) == len(rendered):
                rendered, actions[slot] = trial, merged
            merged_ids[slot] += (view.ids[position],)
            continue
        line = render_line(kind, view.supports[position], cue, action)
        candidate = RenderedLesson(view.ids[position], line)
        if len(fit_lines([*rendered, candidate], limit=limit)) <= len(rendered):
            break
        if slot_key is not None:
            slots[slot_key] = len(picked)
        rendered.append(candidate)
        picked.append((tier, position))
        actions.append(action)
        merged_ids.append(())
    return [
        SelectedLesson(
            view.ids[p],
            view.kinds[p],
            view.companies[p] or None,
            view.categories[p] or None,
            view.cues[p],
            action,
            view.supports[p],
            view.recency[p],
            tier,
            item.line,
            also,
        )
        for (tier, p), item, action, also in zip(picked, rendered, actions, merged_ids, strict=True)
    ]
