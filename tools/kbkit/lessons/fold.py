"""The fold rules of the lessons logs: what each row of each log means to the folded state.

First row per lesson id, first row per evidence key, tombstones and verdicts, last outcome
card per task, last lifecycle transition per lesson. The fold is cached, and read
incrementally, by `kbkit.lessons.index`; this module knows nothing of files.
"""

from __future__ import annotations

import marshal
import sys
from collections.abc import Callable
from typing import Any, NamedTuple

FORMAT = (3, sys.version_info[:2])  # marshal is version-specific: rebuild on a new Python
KINDS = ("positive", "negative", "caution")
KIND_RANK = {kind: rank for rank, kind in enumerate(KINDS)}


class LessonRow(NamedTuple):
    kind: str
    company: str | None
    category: str | None
    cue: str
    action: str
    subject: str
    created_at: str
    line: int


class FoldState:
    """Everything the logs say, folded; plain containers so marshal can cache it."""

    def __init__(self) -> None:
        self.marks: dict[str, tuple[int, int, int, int, int, bytes]] = {}
        self.lessons: dict[str, tuple[Any, ...]] = {}
        # (lesson, source_kind, source_id) -> (task, at, line)
        self.evidence: dict[tuple[str, str, str], tuple[str, str, int]] = {}
        self.tombstones: dict[tuple[str, str], str] = {}  # forgotten (kind, id) -> at
        # evidence keys that stopped counting -> "forgotten" (for good) or "superseded"
        # (a newer verdict from the same task; a later one may revive it)
        self.dead: dict[tuple[str, str, str], str] = {}
        # forget rows written before rows named their keys: they kill by source, forever
        self.legacy: dict[tuple[str, str], str] = {}
        self.lifecycle: dict[str, list[str]] = {}  # lesson -> [state, reason, at], last wins
        self.outcomes: dict[str, dict[str, Any]] = {}
        self.problems: list[tuple[str, int, str]] = []  # (log, line, message)
        self.torn: dict[str, int] = {}  # log -> line of an unterminated fragment
        # lesson -> [live evidence rows, latest evidence time, tasks]: kept up to date while
        # folding, so readers never walk every evidence row; a new tombstone recomputes it
        self.support: dict[str, list[Any]] = {}
        self.support_stale = False

    def dump(self) -> bytes:
        payload = (
            FORMAT,
            self.marks,
            self.lessons,
            self.evidence,
            self.tombstones,
            self.outcomes,
            self.problems,
            self.torn,
            self.support,
            self.dead,
            self.legacy,
            self.lifecycle,
        )
        return marshal.dumps(payload, 4)

    @classmethod
    def load(cls, data: bytes) -> FoldState | None:
        try:
            payload = marshal.loads(data)
        except (EOFError, ValueError, TypeError):
            return None
        if not isinstance(payload, tuple) or len(payload) != 12 or payload[0] != FORMAT:
            return None
        # A cache of another shape (a damaged file) reads as no cache: the logs are folded.
        kinds = (dict, dict, dict, dict, dict, list, dict, dict, dict, dict, dict)
        if any(type(value) is not kind for value, kind in zip(payload[1:], kinds, strict=True)):
            return None
        if not all(
            type(name) is str and type(mark) is tuple and len(mark) == 6
            for name, mark in payload[1].items()
        ):
            return None
        state = cls()
        (
            _,
            state.marks,
            state.lessons,
            state.evidence,
            state.tombstones,
            state.outcomes,
            state.problems,
            state.torn,
            state.support,
            state.dead,
            state.legacy,
            state.lifecycle,
        ) = payload
        return state

    def is_live(self, key: tuple[str, str, str], task: str) -> bool:
        """Evidence survives unless it was forgotten or superseded by a newer verdict."""
        if key in self.dead:
            return False
        if not self.legacy:
            return True
        return (key[1], key[2]) not in self.legacy and ("task", task) not in self.legacy


class Support(NamedTuple):
    rows: int  # live evidence rows: the lesson's support
    latest: str
    tasks: list[str]


def live_support(state: FoldState) -> dict[str, Support]:
    """Per lesson id: live evidence rows, latest evidence time, and the tasks behind them."""
    return {lid: Support(*agg) for lid, agg in state.support.items() if agg[0]}


def support_counts(state: FoldState) -> dict[str, int]:
    """Per lesson id with live evidence: how many rows support it (`live_support`'s rows)."""
    return {lid: agg[0] for lid, agg in state.support.items() if agg[0]}


def count_support(state: FoldState) -> dict[str, list[Any]]:
    """The support aggregates from scratch: one walk over every evidence row."""
    count: dict[str, int] = {}
    latest: dict[str, str] = {}
    tasks: dict[str, list[str]] = {}
    check = bool(state.dead or state.legacy)
    for key, (task, at, _line) in state.evidence.items():
        if check and not state.is_live(key, task):
            continue
        lesson = key[0]
        count[lesson] = count.get(lesson, 0) + 1
        if at > latest.get(lesson, ""):
            latest[lesson] = at
        tasks.setdefault(lesson, []).append(task)
    return {lid: [n, latest[lid], tasks[lid]] for lid, n in count.items()}


def _strings(row: dict[str, Any], *names: str) -> bool:
    for name in names:
        value = row.get(name)
        if type(value) is not str or not value:
            return False
    return True


def _fold_lesson(state: FoldState, row: dict[str, Any], line: int) -> str:
    # the checks of `_strings`, spelled out: this runs once per lesson row on a cold fold
    get = row.get
    lid, cue, action, kind = get("id"), get("cue"), get("action"), get("kind")
    if not (
        type(lid) is str
        and lid
        and type(cue) is str
        and cue
        and type(action) is str
        and action
        and type(kind) is str  # hashable before the lookup: `"kind": []` is a bad row
        and kind in KIND_RANK
    ):
        return "lesson row without id, kind, cue or action"
    lessons = state.lessons
    if lid not in lessons:
        lessons[sys.intern(lid)] = (
            kind,
            _opt(get("company")),
            _opt(get("category")),
            cue,
            action,
            str(get("subject") or ""),
            str(get("created_at") or ""),
            line,
        )
    return ""


def _opt(value: object) -> str | None:
    return sys.intern(value) if isinstance(value, str) and value else None


def _fold_evidence(state: FoldState, row: dict[str, Any], line: int) -> str:
    get = row.get
    lesson, kind, source, task = get("lesson"), get("source_kind"), get("source_id"), get("task")
    if not (
        type(lesson) is str
        and lesson
        and type(kind) is str
        and kind
        and type(source) is str
        and source
        and type(task) is str
        and task
    ):
        return "evidence row without lesson, source_kind, source_id or task"
    intern = sys.intern
    key = (intern(lesson), intern(kind), source)
    evidence = state.evidence
    if key not in evidence:
        task, at = intern(task), intern(str(get("at") or ""))
        evidence[key] = (task, at, line)
        if (not state.dead and not state.legacy) or state.is_live(key, task):
            aggregate = state.support.get(key[0])
            if aggregate is None:
                state.support[key[0]] = [1, at, [task]]
            else:
                aggregate[0] += 1
                if at > aggregate[1]:
                    aggregate[1] = at
                aggregate[2].append(task)
    return ""


def _evidence_keys(value: object) -> list[tuple[str, str, str]] | None:
    if not isinstance(value, list):
        return None
    keys = []
    for item in value:
        if not (isinstance(item, list) and len(item) == 3 and all(type(x) is str for x in item)):
            return None
        keys.append((sys.intern(item[0]), sys.intern(item[1]), item[2]))
    return keys


def _fold_tombstone(state: FoldState, row: dict[str, Any], line: int) -> str:
    """Forget rows (by source) and verdict rows (supersede / revive named evidence keys)."""
    keys = _evidence_keys(row.get("keys"))
    action = row.get("action", "forget")
    if action in ("supersede", "revive"):
        if keys is None:
            return f"{action} row without a list of evidence keys"
        for key in keys:
            if action == "supersede":
                state.dead.setdefault(key, "superseded")
            elif state.dead.get(key) == "superseded":
                del state.dead[key]  # a forgotten key never comes back
        state.support_stale = True
        return ""
    if action != "forget" or not _strings(row, "source_kind", "source_id"):
        return "tombstone row without source_kind or source_id"
    source = (row["source_kind"], row["source_id"])
    state.tombstones.setdefault(source, str(row.get("at") or ""))
    if keys is None:
        state.legacy.setdefault(source, str(row.get("at") or ""))
    else:
        for key in keys:
            state.dead[key] = "forgotten"
    state.support_stale = True
    return ""


def _fold_outcome(state: FoldState, row: dict[str, Any], line: int) -> str:
    if not _strings(row, "task"):
        return "outcome row without task"
    state.outcomes[row["task"]] = row
    return ""


LIFECYCLE_STATES = ("candidate", "adopted", "retired")


def _fold_transition(state: FoldState, row: dict[str, Any], line: int) -> str:
    if not _strings(row, "lesson", "state") or row["state"] not in LIFECYCLE_STATES:
        return "transition row without lesson or a state of candidate, adopted, retired"
    state.lifecycle[row["lesson"]] = [
        row["state"],
        str(row.get("reason") or ""),
        str(row.get("at") or ""),
    ]
    return ""


FOLDERS: dict[str, Callable[[FoldState, dict[str, Any], int], str]] = {
    "lessons": _fold_lesson,
    "evidence": _fold_evidence,
    "tombstones": _fold_tombstone,
    "outcomes": _fold_outcome,
    "transitions": _fold_transition,
}
