"""What agents are told now: every selectable lesson by scope, with its support (distinct
tasks), when it was last seen, its evidence, and whether a conflict withholds it; and one
lesson's whole story (`explain`) for `kb lessons why`.

Selectable means what selection may show a task: a live candidate (not adopted, retired or
without live evidence). Which of them a given task sees depends on its company, category
and the render budget; `kb lessons show TASK.json` answers that.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, NamedTuple

from kbkit.infra.errors import UsageError
from kbkit.lessons import conflicts
from kbkit.lessons.fold import KIND_RANK, FoldState, LessonRow, live_support
from kbkit.lessons.rendering import render_line
from kbkit.lessons.store import LessonStore

EVIDENCE_SHOWN = 3  # sources listed per lesson; `kb lessons why ID` lists every one


class Evidence(NamedTuple):
    source: str  # KIND:ID
    task: str
    at: str
    state: str  # live, superseded, forgotten

    def to_dict(self) -> dict[str, str]:
        return self._asdict()


class Told(NamedTuple):
    id: str
    kind: str
    company: str | None
    category: str | None
    cue: str
    action: str
    support: int  # distinct tasks behind the live evidence
    evidence_rows: int
    last_seen: str  # the newest live evidence
    line: str  # as the block renders it
    evidence: tuple[Evidence, ...]  # live evidence, newest first
    withheld: conflicts.Withheld | None

    def scope(self) -> str:
        if not self.company and not self.category:
            return "generic"
        return f"{self.company or '*'} / {self.category or '*'}"

    def to_dict(self, shown: int | None = EVIDENCE_SHOWN) -> dict[str, Any]:
        data = self._asdict()
        data["scope"] = self.scope()
        data["evidence"] = [e.to_dict() for e in self.evidence[:shown]]
        data["withheld"] = self.withheld.to_dict() if self.withheld else None
        return data


def _evidence(state: FoldState) -> dict[str, list[Evidence]]:
    """Per lesson id: every evidence row, with whether it still counts, newest first."""
    out: dict[str, list[Evidence]] = defaultdict(list)
    for key, (task, at, _line) in state.evidence.items():
        alive = state.is_live(key, task)
        status = "live" if alive else state.dead.get(key, "forgotten")
        out[key[0]].append(Evidence(f"{key[1]}:{key[2]}", task, at, status))
    for rows in out.values():
        rows.sort(key=lambda e: (e.at, e.source), reverse=True)
    return out


def told(store: LessonStore) -> list[Told]:
    """Every selectable lesson, by scope (generic first), then as selection ranks them:
    kind, support, recency, id."""
    state = store.state()
    support = live_support(state)
    lessons = {
        lid: LessonRow(*state.lessons[lid])
        for lid in support
        if lid in state.lessons and state.lifecycle.get(lid, ["candidate"])[0] == "candidate"
    }
    latest = {lid: support[lid].latest for lid in lessons}
    notes: dict[str, conflicts.Withheld] = {}
    for yes_note, no_note, _yes, _no in conflicts.standing(lessons, latest):
        for note in (yes_note, no_note):
            if note is not None and note.lesson not in notes:
                notes[note.lesson] = note
    evidence = _evidence(state)
    out = []
    for lid, row in lessons.items():
        live = [e for e in evidence.get(lid, []) if e.state == "live"]
        n = support[lid].distinct
        out.append(
            Told(
                lid,
                row.kind,
                row.company,
                row.category,
                row.cue,
                row.action,
                n,
                len(live),
                latest[lid],
                render_line(row.kind, n, row.cue, row.action),
                tuple(live),
                notes.get(lid),
            )  # fmt: skip
        )
    # stable sorts, last key first: scope, kind, support (more first), recency (newer), id
    out.sort(key=lambda t: t.id)
    out.sort(key=lambda t: t.last_seen, reverse=True)
    out.sort(key=lambda t: (t.company or "", t.category or "", KIND_RANK[t.kind], -t.support))
    return out


class Story(NamedTuple):
    """One lesson: what it says, its life cycle, every evidence row, and its conflicts."""

    told: Told | None  # None: not selectable now (the `state` says why)
    id: str
    kind: str
    company: str | None
    category: str | None
    cue: str
    action: str
    state: str  # selectable, adopted, retired, unsupported
    reason: str
    evidence: tuple[Evidence, ...]
    against: tuple[str, ...]  # lessons that contradict it

    def to_dict(self) -> dict[str, Any]:
        data = self._asdict()
        data["told"] = self.told.to_dict(None) if self.told else None
        data["evidence"] = [e.to_dict() for e in self.evidence]
        data["against"] = list(self.against)
        return data


def explain(store: LessonStore, lesson: str) -> Story:
    """Everything the store knows of one lesson (an earlier version's id is followed)."""
    state = store.state()
    lid = state.lesson_id(lesson.strip())
    if lid not in state.lessons:
        raise UsageError(
            f"no lesson {lesson[:80]!r} in {store.root}; `kb lessons list` shows the ids"
        )
    row = LessonRow(*state.lessons[lid])
    now = {t.id: t for t in told(store)}
    life = state.lifecycle.get(lid)
    if lid in now:
        status, reason = "selectable", ""
    elif life and life[0] != "candidate":
        status, reason = life[0], life[1]
    else:
        status, reason = "unsupported", "no live evidence: forgotten or superseded"
    lessons = {k: LessonRow(*v) for k, v in state.lessons.items() if k in live_support(state)}
    rivals = conflicts.rivals({**lessons, lid: row}).get(lid, [])
    return Story(now.get(lid), lid, row.kind, row.company, row.category, row.cue, row.action,
                 status, reason, tuple(_evidence(state).get(lid, [])), tuple(rivals))  # fmt: skip
