"""The fold rules of the lessons logs: what each row of each log means to the folded state.

First row per lesson id, first row per evidence key, tombstones and verdicts, last outcome
card per task, last lifecycle transition per lesson. The fold is cached, and read
incrementally, by `kbkit.lessons.index`; this module knows nothing of files.

Rows written by earlier versions are migrated as they are folded: a lesson row without scope
keys gets them from its company and category (and, when that changes its id, the old id
becomes an alias of the new one, so `acme`, `ACME` and `Acme` fold into one lesson); a
source id written with an unescaped task id is re-escaped (`extraction.migrate_source`).
Evidence keys in tombstones, lesson ids in transitions and usage rows follow the aliases.
"""

from __future__ import annotations

import json
import marshal
import sys
from collections.abc import Callable
from typing import Any, NamedTuple

FORMAT = (4, sys.version_info[:2])  # marshal is version-specific: rebuild on a new Python
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
    company_key: str | None  # `redaction.scope_key` of the company: what compares
    category_key: str | None


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
        # task -> (a digest of its latest outcome card, the digest of the record it was read
        # from): enough to tell a changed card; the cards themselves stay in outcomes.jsonl
        self.outcomes: dict[str, tuple[str, str | None]] = {}
        self.problems: list[tuple[str, int, str]] = []  # (log, line, message)
        self.torn: dict[str, int] = {}  # log -> line of an unterminated fragment
        # lesson -> [live evidence rows, latest evidence time, tasks]: kept up to date while
        # folding, so readers never walk every evidence row; a new tombstone recomputes it
        self.support: dict[str, list[Any]] = {}  # [rows, latest at, tasks, evidence ats]
        self.support_stale = False
        # migration of rows earlier versions wrote: old lesson id -> its id now, and old
        # evidence key -> its key now (only keys whose source id was re-escaped)
        self.alias: dict[str, str] = {}
        self.key_alias: dict[tuple[str, str, str], tuple[str, str, str]] = {}
        self.forgotten: dict[str, str] = {}  # task -> at: its outcome card leaves the report
        self.purges: dict[str, dict[str, Any]] = {}  # purge id -> its plan, until done

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
            self.alias,
            self.key_alias,
            self.forgotten,
            self.purges,
        )
        return marshal.dumps(payload, 4)

    @classmethod
    def load(cls, data: bytes) -> FoldState | None:
        try:
            payload = marshal.loads(data)
        except (EOFError, ValueError, TypeError):
            return None
        if not isinstance(payload, tuple) or len(payload) != 16 or payload[0] != FORMAT:
            return None
        # A cache of another shape (a damaged file) reads as no cache: the logs are folded.
        kinds = (dict,) * 5 + (list,) + (dict,) * 9
        if any(type(value) is not kind for value, kind in zip(payload[1:], kinds, strict=True)):
            return None
        if not all(
            type(name) is str
            and type(mark) is tuple
            and len(mark) == 6
            and all(type(part) is int for part in mark[:5])
            and type(mark[5]) is bytes
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
            state.alias,
            state.key_alias,
            state.forgotten,
            state.purges,
        ) = payload
        return state

    def is_live(self, key: tuple[str, str, str], task: str) -> bool:
        """Evidence survives unless it was forgotten or superseded by a newer verdict."""
        if key in self.dead:
            return False
        if not self.legacy:
            return True
        # forget rows without keys name the source as earlier versions wrote it
        old = task + key[2][len(_escaped(task)) :] if key[1] != "task" else key[2]
        return (key[1], old) not in self.legacy and ("task", task) not in self.legacy

    def lesson_id(self, lid: str) -> str:
        """The id a lesson id of any version's rows (usage, events) stands for now."""
        return self.alias.get(lid, lid) if self.alias else lid

    def migrate_key(self, key: tuple[str, str, str]) -> tuple[str, str, str]:
        """An evidence key as an earlier version's tombstone named it, as it is now."""
        if self.alias and key[0] in self.alias:
            key = (self.alias[key[0]], key[1], key[2])
        return self.key_alias.get(key, key) if self.key_alias else key


def _escaped(task: str) -> str:
    from kbkit.lessons.extraction import source_id

    return source_id(task, "")[:-1]


class Support(NamedTuple):
    rows: int  # live evidence rows (one task may give several: five findings alike)
    latest: str
    tasks: list[str]  # the task of each of those rows (repeats included)
    times: list[str]  # the `at` of each of those rows, in the order of `tasks`

    @property
    def distinct(self) -> int:
        """The lesson's support: how many distinct tasks gave live evidence for it."""
        return len(set(self.tasks))


def live_support(state: FoldState) -> dict[str, Support]:
    """Per lesson id: live evidence rows, latest evidence time, and the tasks behind them."""
    return {lid: Support(*agg) for lid, agg in state.support.items() if agg[0]}


def support_counts(state: FoldState) -> dict[str, int]:
    """Per lesson id with live evidence: its support, the distinct tasks behind that evidence
    (one task reporting the same finding five times is support 1)."""
    return {lid: len(set(agg[2])) for lid, agg in state.support.items() if agg[0]}


def count_support(state: FoldState) -> dict[str, list[Any]]:
    """The support aggregates from scratch: one walk over every evidence row."""
    support: dict[str, list[Any]] = {}
    check = bool(state.dead or state.legacy)
    for key, (task, at, _line) in state.evidence.items():
        if check and not state.is_live(key, task):
            continue
        count(support, key[0], task, at)
    return support


def count(support: dict[str, list[Any]], lesson: str, task: str, at: str) -> None:
    """One live evidence row more in a lesson's support aggregate."""
    aggregate = support.get(lesson)
    if aggregate is None:
        support[lesson] = [1, at, [task], [at]]
    else:
        aggregate[0] += 1
        if at > aggregate[1]:
            aggregate[1] = at
        aggregate[2].append(task)
        aggregate[3].append(at)


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
    company, category = _opt(get("company")), _opt(get("category"))
    if "company_key" in row:
        company_key, category_key = _opt(get("company_key")), _opt(get("category_key"))
    else:  # written before scope keys: key the display, and merge what now keys alike
        company_key, category_key, lid = _migrate_lesson(state, lid, kind, company, category, row)
    lessons = state.lessons
    if lid not in lessons:
        lessons[sys.intern(lid)] = (
            kind,
            company,
            category,
            cue,
            action,
            str(get("subject") or ""),
            sys.intern(str(get("created_at") or "")),
            line,
            company_key,
            category_key,
        )
    return ""


def _migrate_lesson(
    state: FoldState,
    lid: str,
    kind: str,
    company: str | None,
    category: str | None,
    row: dict[str, Any],
) -> tuple[str | None, str | None, str]:
    from kbkit.lessons.extraction import lesson_id
    from kbkit.lessons.redaction import scope_key

    company_key, category_key = _opt(scope_key(company)), _opt(scope_key(category))
    if (company_key, category_key) != (company, category):
        now = lesson_id(kind, company_key, category_key, row["cue"], row["action"])
        if now != lid:
            state.alias[sys.intern(lid)] = now = sys.intern(now)
            lid = now
    return company_key, category_key, lid


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
    if state.alias:
        lesson = state.alias.get(lesson, lesson)
    key = (intern(lesson), intern(kind), source)
    if ("/" in task or "%" in task) and kind != "task":
        from kbkit.lessons.extraction import migrate_source

        now = migrate_source(source, task)
        if now != source:  # an earlier version's unescaped task id
            state.key_alias[key] = key = (key[0], key[1], now)
    evidence = state.evidence
    if key not in evidence:
        task, at = intern(task), intern(str(get("at") or ""))
        evidence[key] = (task, at, line)
        if (not state.dead and not state.legacy) or state.is_live(key, task):
            count(state.support, key[0], task, at)
    return ""


def _evidence_keys(state: FoldState, value: object) -> list[tuple[str, str, str]] | None:
    if not isinstance(value, list):
        return None
    keys = []
    for item in value:
        if not (isinstance(item, list) and len(item) == 3 and all(type(x) is str for x in item)):
            return None
        keys.append(state.migrate_key((sys.intern(item[0]), sys.intern(item[1]), item[2])))
    return keys


def _fold_tombstone(state: FoldState, row: dict[str, Any], line: int) -> str:
    """Forget rows (by source), verdict rows (supersede / revive named evidence keys), and a
    purge's plan and completion rows."""
    action = row.get("action", "forget")
    if action in ("purge", "purged"):
        return _fold_purge(state, row, action)
    keys = _evidence_keys(state, row.get("keys"))
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
    at = str(row.get("at") or "")
    state.tombstones.setdefault(source, at)
    if keys is None:
        state.legacy.setdefault(source, at)
    else:
        for key in keys:
            state.dead[key] = "forgotten"
    for task in _forgotten_tasks(state, row, keys):
        state.forgotten.setdefault(task, at)
    state.support_stale = True
    return ""


def _forgotten_tasks(
    state: FoldState, row: dict[str, Any], keys: list[tuple[str, str, str]] | None
) -> list[str]:
    """The tasks a forget row takes out of the report: named by the row (this version),
    else found through its evidence keys, else (no keys) read off the source id."""
    if row["source_kind"] == "task":
        return [row["source_id"]]
    if type(row.get("task")) is str:
        return [row["task"]]
    tasks = [state.evidence[key][0] for key in keys or [] if key in state.evidence]
    return tasks or [row["source_id"].split("/", 1)[0]]


def _fold_purge(state: FoldState, row: dict[str, Any], action: str) -> str:
    purge = row.get("id")
    if type(purge) is not str or not purge:
        return f"{action} row without an id"
    if action == "purged":
        state.purges.pop(purge, None)
    elif not (isinstance(row.get("lessons"), list) and isinstance(row.get("keys"), list)):
        return "purge row without lists of lessons and evidence keys"
    else:
        state.purges[purge] = row
    return ""


def _fold_outcome(state: FoldState, row: dict[str, Any], line: int) -> str:
    if not _strings(row, "task"):
        return "outcome row without task"
    card, digest = row.get("card"), row.get("digest")
    state.outcomes[sys.intern(row["task"])] = (
        card_digest(card) if isinstance(card, dict) else "",
        digest if isinstance(digest, str) else None,
    )
    return ""


def card_digest(card: dict[str, Any]) -> str:
    """What the fold keeps of an outcome card: a digest of its canonical JSON."""
    return text_digest(card_json(card))


def card_json(card: dict[str, Any]) -> str:
    """An outcome card's canonical JSON, as `encode_row` writes it inside its row."""
    return json.dumps(card, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def text_digest(text: str) -> str:
    import hashlib  # a reader of the fold never digests: `show` does not pay for OpenSSL

    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


LIFECYCLE_STATES = ("candidate", "adopted", "retired")


def _fold_transition(state: FoldState, row: dict[str, Any], line: int) -> str:
    if not _strings(row, "lesson", "state") or row["state"] not in LIFECYCLE_STATES:
        return "transition row without lesson or a state of candidate, adopted, retired"
    state.lifecycle[state.lesson_id(row["lesson"])] = [
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
