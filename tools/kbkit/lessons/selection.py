"""Which lessons a task sees, in which order.

Visibility: generic lessons (no company, no category) are visible to every task; a scoped
lesson is visible when it shares the task's company or category. Ranking, first key first:
1. scope tier: same company and category (0) > same company (1) > same category (2) >
   generic (3);
2. kind: positive > negative > caution;
3. support (live evidence rows), higher first;
4. recency (latest evidence time), newer first;
5. lesson id, for a total order.
A lesson whose evidence includes the task itself is never shown to it, a lesson without
live evidence is never shown at all, and at most 8 lessons / 1800 rendered characters are.

The ranked view is derived from the store's fold and cached (`.index/view.marshal`), so a
selection reads one compact file instead of a million evidence rows.
"""

from __future__ import annotations

import heapq
import marshal
from collections.abc import Iterator
from typing import Any, NamedTuple

from kbkit.lessons import index
from kbkit.lessons.redaction import clean_scope
from kbkit.lessons.rendering import MAX_LESSONS, RenderedLesson, fit_lines, render_line
from kbkit.lessons.store import LessonStore

TASK_SEPARATOR = "\x1f"  # task ids cannot hold control characters (task record schema)
VIEW_LOGS = ("lessons", "evidence", "tombstones")


class SelectionView(NamedTuple):
    """Selectable lessons as columns, plus scope buckets pre-sorted by global rank."""

    marks: dict[str, tuple[int, int, int] | None]
    ids: list[str]
    kinds: list[str]
    companies: list[str | None]
    categories: list[str | None]
    cues: list[str]
    actions: list[str]
    supports: list[int]
    recency: list[str]
    tasks: list[str]
    buckets: dict[tuple[str | None, str | None], list[int]]


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

    def to_dict(self) -> dict[str, Any]:
        return self._asdict()


Marks = dict[str, tuple[int, int, int] | None]


def build_view(state: index.FoldState, marks: Marks) -> SelectionView:
    """Support, recency and evidence tasks per live lesson, ranked once for every task."""
    supports = index.live_support(state)
    live = [lid for lid in supports if lid in state.lessons]
    rows = [index.LessonRow(*state.lessons[lid]) for lid in live]
    order = list(range(len(live)))
    order.sort(key=lambda i: live[i])
    order.sort(key=lambda i: supports[live[i]].latest, reverse=True)  # stable sorts: ties
    order.sort(key=lambda i: supports[live[i]].rows, reverse=True)  # keep the last order
    order.sort(key=lambda i: index.KIND_RANK[rows[i].kind])
    view = SelectionView(marks, [], [], [], [], [], [], [], [], [], {})
    for i in order:  # columns in global rank order: a bucket's list is then already sorted
        row, lid = rows[i], live[i]
        position = len(view.ids)
        view.ids.append(lid)
        view.kinds.append(row.kind)
        view.companies.append(row.company)
        view.categories.append(row.category)
        view.cues.append(row.cue)
        view.actions.append(row.action)
        view.supports.append(supports[lid].rows)
        view.recency.append(supports[lid].latest)
        view.tasks.append(TASK_SEPARATOR.join(sorted(set(supports[lid].tasks))))
        view.buckets.setdefault((row.company, row.category), []).append(position)
    return view


def load_view(store: LessonStore) -> SelectionView:
    """The cached view when no log changed since it was built; otherwise rebuild it."""
    with index.paused_gc():
        return _load_view(store)


def _load_view(store: LessonStore) -> SelectionView:
    path = store.cache_dir / "view.marshal"
    data = index.read_cache(path)
    if data:
        try:
            payload = marshal.loads(data)
        except (EOFError, ValueError, TypeError):
            payload = None
        if isinstance(payload, tuple) and len(payload) == 2 and payload[0] == index.FORMAT:
            view = SelectionView(*payload[1])
            if all(view.marks.get(n) == index.signature(store.log(n)) for n in VIEW_LOGS):
                return view
    state = store.state()
    marks = {n: (state.marks[n][:3] if n in state.marks else None) for n in VIEW_LOGS}
    view = build_view(state, marks)
    if state.marks:
        index.write_cache(path, marshal.dumps((index.FORMAT, tuple(view)), 4))
    return view


def scope_tier(
    company: str | None, category: str | None, task_company: str | None, task_category: str | None
) -> int | None:
    """0 same company and category, 1 same company, 2 same category, 3 generic, None hidden."""
    same_company = company is not None and company == task_company
    same_category = category is not None and category == task_category
    if same_company and same_category:
        return 0
    if same_company:
        return 1
    if same_category:
        return 2
    if company is None and category is None:
        return 3
    return None


def _tiers(
    view: SelectionView, company: str | None, category: str | None
) -> list[list[tuple[str | None, str | None]]]:
    tiers: list[list[tuple[str | None, str | None]]] = [[], [], [], []]
    for bucket in view.buckets:
        tier = scope_tier(bucket[0], bucket[1], company, category)
        if tier is not None:
            tiers[tier].append(bucket)
    return tiers


def ranked(
    view: SelectionView, task_id: str, company: str | None, category: str | None
) -> Iterator[tuple[int, int]]:
    """(tier, view position) of every lesson visible to the task, best first."""
    for tier, buckets in enumerate(_tiers(view, company, category)):
        for position in heapq.merge(*(view.buckets[b] for b in buckets)):
            if task_id in view.tasks[position].split(TASK_SEPARATOR):
                continue  # the task's own evidence: never shown to it
            yield tier, position


def select_lessons(
    task: dict[str, Any],
    store: LessonStore | None = None,
    *,
    view: SelectionView | None = None,
    limit: int = MAX_LESSONS,
) -> list[SelectedLesson]:
    """The lessons a task would see, in rank order, within the render budget."""
    if view is None:
        view = load_view(store if store is not None else LessonStore.for_repo())
    task_id = str(task["id"])
    company, category = clean_scope(task.get("company")), clean_scope(task.get("category"))
    picked: list[tuple[int, int]] = []
    rendered: list[RenderedLesson] = []
    for tier, position in ranked(view, task_id, company, category):
        line = render_line(
            view.kinds[position],
            view.supports[position],
            view.cues[position],
            view.actions[position],
        )
        candidate = RenderedLesson(view.ids[position], line)
        if len(fit_lines([*rendered, candidate], limit=limit)) <= len(rendered):
            break
        rendered.append(candidate)
        picked.append((tier, position))
    return [
        SelectedLesson(
            view.ids[p],
            view.kinds[p],
            view.companies[p],
            view.categories[p],
            view.cues[p],
            view.actions[p],
            view.supports[p],
            view.recency[p],
            tier,
            item.line,
        )
        for (tier, p), item in zip(picked, rendered, strict=True)
    ]
