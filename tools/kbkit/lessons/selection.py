"""Which lessons a task sees, in which order.

Visibility depends on the client-isolation scope (`--scope`, `KB_LESSONS_SCOPE`):
- `company`: only lessons of the task's own company;
- `company+generic` (default, safe for multi-client use): the task's company, plus lessons
  that name no company at all (generic, or scoped by category only);
- `open`: also other companies' lessons of the task's category.
A lesson of another company is never shown to a task unless the scope is `open`; names
compare by their scope keys (`redaction.scope_key`: NFKC, case folded, whitespace
collapsed; never the redacted display). Ranking, first key first:
1. scope tier: same company and category (0) > same company (1) > same category (2) >
   generic (3);
2. kind: positive > negative > caution;
3. support (distinct tasks with live evidence), higher first;
4. recency (latest evidence time), newer first;
5. lesson id, for a total order;
and a lesson the helpful/harmful signal demotes goes after the rest of its tier.
A lesson whose evidence includes the task itself is never shown to it, a lesson without
live evidence is never shown at all, and at most 8 lessons / 1800 rendered characters are.
Two lessons that contradict each other (the same finding confirmed and a false positive)
are never shown together: the newer evidence wins, and equally new evidence withholds both.
With a moment (`--as-of`, else the task's `started_at`) the same view is stopped there
(`SelectionView.cut`): support, recency, own evidence and signal as known at that moment.

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
from kbkit.lessons.conflicts import Withheld, contest
from kbkit.lessons.moments import normalize_time
from kbkit.lessons.redaction import scope_key
from kbkit.lessons.rendering import MAX_LESSONS, RenderedLesson, fit_lines, render_line
from kbkit.lessons.store import LessonStore
from kbkit.lessons.view import KIND_RANK, Cut, SelectionView, load_view

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

    All four are scope keys (`redaction.scope_key`), compared as they are.
    """
    same_company = company is not None and company == task_company
    same_category = category is not None and category == task_category
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
) -> list[list[int]]:
    """The buckets of each tier, found through the view's company and category indexes."""
    tiers: list[list[int]] = [[], [], [], []]
    near = [*view.company_buckets(company), *view.category_buckets(category)]
    generic = view.generic_bucket()
    if generic is not None:
        near.append(generic)
    for bucket in dict.fromkeys(near):  # once each, in a stable order
        found = view.scope(bucket)
        tier = scope_tier(found[0], found[1], company, category, scope)
        if tier is not None:
            tiers[tier].append(bucket)
    return tiers


class Ranked(NamedTuple):
    tier: int
    position: int
    support: int
    recency: str


def ranked(
    view: SelectionView,
    task_id: str,
    company: str | None,
    category: str | None,
    scope: str = DEFAULT_SCOPE,
    cut: Cut | None = None,
) -> Iterator[Ranked]:
    """Every lesson visible to the task, best first (`company`/`category` are scope keys).

    Live, positions are ranks and each tier is a merge of sorted buckets; stopped at a
    moment, each tier's lessons are ranked by what was known then.
    """
    own = view.task_index(task_id)
    for tier, buckets in enumerate(_tiers(view, company, category, scope)):
        if cut is None:
            for position in heapq.merge(*(view.bucket(b) for b in buckets)):
                start, end = view.first[position], view.first[position + 1]
                if own is not None and own in view.ev_task[start:end]:
                    continue  # the task's own evidence: never shown to it
                yield Ranked(tier, position, end - start, view.recency(position))
            continue
        keyed = []
        for bucket in buckets:
            for position in view.bucket(bucket):
                support = cut.support(position)
                if not support:
                    continue  # nothing known yet at that moment
                start = view.first[position]
                if own is not None and own in view.ev_task[start : start + support]:
                    continue
                recent = view.ev_time[start + support - 1]
                rank = KIND_RANK[view.kinds[position]]
                keyed.append(
                    (cut.demoted(position), rank, -support, -recent, view.ids[position], position)
                )
        keyed.sort()
        for _d, _r, support_, recent_, _id, position in keyed:
            yield Ranked(tier, position, -support_, view.times[-recent_])


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


def _contest(view: SelectionView, cut: Cut | None, found: Ranked) -> Withheld | None:
    """Why a lesson with rivals is withheld (None: its evidence is the newest), comparing
    each side's newest evidence as known at the moment of the selection."""
    known = []
    for other in view.rivals[found.position]:
        if cut is None:
            known.append((view.ids[other], view.recency(other)))
            continue
        support = cut.support(other)
        if support:
            known.append((view.ids[other], cut.recency(other, support)))
    return contest(view.ids[found.position], found.recency, known)


def select_lessons(
    task: dict[str, Any],
    store: LessonStore | None = None,
    *,
    view: SelectionView | None = None,
    limit: int = MAX_LESSONS,
    scope: str | None = None,
    as_of: str | None = None,
    withheld: list[Withheld] | None = None,
) -> list[SelectedLesson]:
    """The lessons a task would see, in rank order, within the render budget.

    Of two lessons that contradict each other (`kbkit.lessons.conflicts`), only the one with
    the newer evidence is shown (neither when equally new); each one left out is appended to
    `withheld`, when given, with why.

    `scope` is the client-isolation setting (None: KB_LESSONS_SCOPE or the safe default).
    `as_of` (else the task's `started_at`, when it has one) limits the evidence to what
    closed before that moment, so a replay of history never sees later outcomes.
    """
    scope = lesson_scope(scope)
    if not isinstance(task, dict) or not task.get("id"):
        raise InputError("a task record needs an id to select lessons for it")
    cutoff = selection_cutoff(task, as_of)
    if view is None:
        view = load_view(store if store is not None else LessonStore.for_repo())
    task_id = str(task["id"])
    company, category = scope_key(task.get("company")), scope_key(task.get("category"))
    rendered: list[RenderedLesson] = []
    actions: list[str] = []
    merged_ids: list[tuple[str, ...]] = []
    slots: dict[tuple[str, str, str, str], int] = {}  # one finding -> its slot in `chosen`
    chosen: list[Ranked] = []
    cut = view.cut(cutoff)
    for found in ranked(view, task_id, company, category, scope, cut):
        position = found.position
        if position in view.rivals:
            note = _contest(view, cut, found)
            if note is not None:
                if withheld is not None:
                    withheld.append(note)
                continue
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
            line = render_line(kind, chosen[slot].support, cue, merged)
            trial = [
                *rendered[:slot],
                RenderedLesson(rendered[slot].lesson_id, line),
                *rendered[slot + 1 :],
            ]
            if len(fit_lines(trial, limit=limit)) == len(rendered):
                rendered, actions[slot] = trial, merged
            merged_ids[slot] += (view.ids[position],)
            continue
        line = render_line(kind, found.support, cue, action)
        candidate = RenderedLesson(view.ids[position], line)
        if len(fit_lines([*rendered, candidate], limit=limit)) <= len(rendered):
            break
        if slot_key is not None:
            slots[slot_key] = len(chosen)
        rendered.append(candidate)
        chosen.append(found)
        actions.append(action)
        merged_ids.append(())
    return [
        SelectedLesson(
            view.ids[c.position],
            view.kinds[c.position],
            view.companies[c.position] or None,
            view.categories[c.position] or None,
            view.cues[c.position],
            action,
            c.support,
            c.recency,
            c.tier,
            item.line,
            also,
        )
        for c, item, action, also in zip(chosen, rendered, actions, merged_ids, strict=True)
    ]
