"""The derived fold of the lessons logs, and its cache.

The JSONL logs are the only source of truth. Folding them (first row per lesson id, first
row per evidence key, tombstones, last outcome card per task) is cached under `.index/` so
a large store is not re-parsed on every call. Because the logs are append-only, the cache
remembers how far it read each log (inode, size, mtime, byte offset and the bytes just
before it) and only reads what was appended since; anything else (a rewritten, truncated
or union-merged file) triggers a full rebuild. Delete `.index/` at any time.
"""

from __future__ import annotations

import marshal
import sys
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.json_input import loads

LOG_NAMES = ("lessons", "evidence", "tombstones", "outcomes", "transitions")
FORMAT = (3, sys.version_info[:2])  # marshal is version-specific: rebuild on a new Python
TAIL = 64
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


def log_path(root: Path, name: str) -> Path:
    return root / f"{name}.jsonl"


def signature(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def is_current(state: FoldState, root: Path) -> bool:
    """True when no log changed since the state was folded."""
    for name in LOG_NAMES:
        sig = signature(log_path(root, name))
        mark = state.marks.get(name)
        if (mark[:3] if mark else None) != sig:
            return False
    return True


def refresh(state: FoldState, root: Path) -> FoldState:
    """Fold what was appended since `state`; rebuild from scratch when a log was rewritten."""
    if not _can_continue(state, root):
        state = FoldState()
    for name in LOG_NAMES:
        _fold_log(state, root, name)
    if state.support_stale:
        state.support = count_support(state)
        state.support_stale = False
    return state


def _can_continue(state: FoldState, root: Path) -> bool:
    for name, mark in state.marks.items():
        path = log_path(root, name)
        sig = signature(path)
        ino, _size, _mtime, consumed, _lines, tail = mark
        if sig is None or sig[0] != ino or sig[1] < consumed:
            return False
        if consumed:
            with path.open("rb") as handle:
                handle.seek(max(0, consumed - TAIL))
                if handle.read(min(TAIL, consumed)) != tail:
                    return False
    return True


def _fold_log(state: FoldState, root: Path, name: str) -> None:
    path = log_path(root, name)
    sig = signature(path)
    if sig is None:
        state.marks.pop(name, None)
        state.torn.pop(name, None)
        return
    mark = state.marks.get(name)
    if mark and mark[:3] == sig:
        return
    consumed, newlines = (mark[3], mark[4]) if mark else (0, 0)
    with path.open("rb") as handle:
        handle.seek(consumed)
        data = handle.read()
    end = data.rfind(b"\n") + 1
    fragment = data[end:]
    state.torn.pop(name, None)
    if fragment.strip():
        # An unterminated last line: keep it when it is a whole row (a crash right before
        # the newline); otherwise leave it unread: the next append starts a fresh line and
        # it is then reported as a malformed line.
        if isinstance(_decode(fragment), dict):
            end = len(data)
        else:
            state.torn[name] = newlines + data.count(b"\n") + 1
    folder = _FOLDERS[name]
    try:  # one decode for the whole chunk; a bad byte sends us line by line
        lines: list[Any] = data[:end].decode("utf-8").split("\n")
    except UnicodeDecodeError:
        lines = data[:end].split(b"\n")
    for index, raw in enumerate(lines):
        if not raw.strip():
            continue
        line = newlines + index + 1
        row = _decode(raw)
        problem = row if isinstance(row, str) else folder(state, row, line)
        if problem:
            state.problems.append((name, line, problem))
    newlines += data.count(b"\n", 0, end)
    consumed += end
    with path.open("rb") as handle:
        handle.seek(max(0, consumed - TAIL))
        tail = handle.read(min(TAIL, consumed))
    state.marks[name] = (*sig, consumed, newlines, tail)


def _decode(raw: str | bytes) -> dict[str, Any] | str:
    try:
        value = loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        return f"not valid JSON ({exc.__class__.__name__})"
    return value if isinstance(value, dict) else "expected a JSON object"


def _strings(row: dict[str, Any], *names: str) -> bool:
    for name in names:
        value = row.get(name)
        if type(value) is not str or not value:
            return False
    return True


def _fold_lesson(state: FoldState, row: dict[str, Any], line: int) -> str:
    if not _strings(row, "id", "cue", "action") or row.get("kind") not in KIND_RANK:
        return "lesson row without id, kind, cue or action"
    if row["id"] not in state.lessons:
        state.lessons[sys.intern(row["id"])] = (
            row["kind"],
            _opt(row.get("company")),
            _opt(row.get("category")),
            row["cue"],
            row["action"],
            str(row.get("subject") or ""),
            str(row.get("created_at") or ""),
            line,
        )
    return ""


def _opt(value: object) -> str | None:
    return sys.intern(value) if isinstance(value, str) and value else None


def _fold_evidence(state: FoldState, row: dict[str, Any], line: int) -> str:
    if not _strings(row, "lesson", "source_kind", "source_id", "task"):
        return "evidence row without lesson, source_kind, source_id or task"
    intern = sys.intern
    key = (intern(row["lesson"]), intern(row["source_kind"]), row["source_id"])
    if key not in state.evidence:
        task, at = intern(row["task"]), intern(str(row.get("at") or ""))
        state.evidence[key] = (task, at, line)
        if state.is_live(key, task):
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


_FOLDERS = {
    "lessons": _fold_lesson,
    "evidence": _fold_evidence,
    "tombstones": _fold_tombstone,
    "outcomes": _fold_outcome,
    "transitions": _fold_transition,
}


def read_cache(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def write_cache(path: Path, data: bytes) -> None:
    """Best effort: a read-only checkout still works, only slower."""
    from kbkit.jsonl import atomic_write_bytes
    from kbkit.state_folder import make_state_folder

    try:
        make_state_folder(path.parent, "derived cache of the lessons logs; safe to delete")
        atomic_write_bytes(path, data)  # also removes temp files of writers that died
    except OSError:
        pass
