"""The lessons store: append-only JSONL logs under `intake/lessons/`.

- `lessons.jsonl`: one row per dedupe key (kind, scope, cue, action), `status: candidate`.
- `evidence.jsonl`: one row per (lesson, source_kind, source_id); support = the distinct
  tasks behind the live rows (one task reporting a finding five times supports it once).
- `tombstones.jsonl`: `forget` records (the evidence keys they end, for good: live and
  superseded alike, so nothing forgotten is ever revived) and verdict records: when a task
  is extracted again with a different verdict, its evidence that the new extraction no
  longer yields is `supersede`d, and superseded evidence it yields again is `revive`d; and
  a purge's plan and completion rows (`kbkit.lessons.purge`). History stays in the log;
  support is recomputed from it.
- `outcomes.jsonl`: one outcome card per closed task (a changed card, or the same task read
  from different bytes, is appended again; `digest` names the record it was read from).
- `usage.jsonl`: one row per consideration (task, lesson ids, mode, time).

Writers hold the store lock across read-check-append, so concurrent extractions never write
the same row twice; a crash leaves at most one torn line, which the fold skips.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from json.encoder import encode_basestring as _quote  # ensure_ascii=False's string encoder
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from kbkit.infra.clock import timestamp as utc_now
from kbkit.infra.file_lock import locked
from kbkit.infra.jsonl import (
    append_rows,
    append_together,
    encode_row,
    gc_paused,
)
from kbkit.infra.paths import intake_root, repo_root
from kbkit.infra.steps import reached
from kbkit.lessons import fold, index

if TYPE_CHECKING:  # extraction is not needed to read the store (`kb lessons show`)
    from kbkit.lessons.extraction import Extraction, RefusedLesson

STORE_DIR = "lessons"
STATE_FILE = "state.marshal"
UNSAVED_SHARE = 32


class AddResult(NamedTuple):
    tasks: int
    skipped_tasks: list[str]  # not terminal
    new_lessons: int
    new_evidence: int
    new_outcomes: int
    refusals: list[RefusedLesson]


class ForgetResult(NamedTuple):
    removed: int  # live evidence rows that stop counting
    orphaned: list[str]  # lessons left without live evidence
    affected: list[str] = []  # every lesson whose live evidence was hit
    purged: int = 0  # rows removed from the logs by --purge
    ended: int = 0  # evidence keys ended for good (live or superseded)
    purge: Any = None  # kbkit.lessons.purge.PurgeReport of a --purge


class LessonStore:
    """One lessons folder; every method that writes takes the store lock."""

    def __init__(self, root: Path):
        self.root = root
        self.cache_dir = root / ".index"
        self._folded: fold.FoldState | None = None  # the last fold, while no log changes
        # per log, (inode, bytes folded) of the cached fold on disk, as far as this process
        # knows; None: no usable cache
        self._saved: dict[str, tuple[int, int]] | None = None

    @classmethod
    def for_repo(cls, repo: str | os.PathLike[str] | None = None) -> LessonStore:
        return cls(intake_root(repo_root(repo)) / STORE_DIR)

    def log(self, name: str) -> Path:
        return index.log_path(self.root, name)

    @contextmanager
    def lock(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        with locked(self.root / "store"):
            yield

    # -- reading -----------------------------------------------------------------------

    def state(self) -> fold.FoldState:
        """The folded logs, from the cache when it is current (refreshed if not; the cache
        is rewritten when it lags far enough behind, see `_save`).

        Read-only for callers: the same object comes back while no log changes.
        """
        folded = self._folded
        if folded is not None and index.is_current(folded, self.root):
            return folded
        with gc_paused():
            state = index.refresh(folded, self.root) if folded is not None else self._read_state()
        self._save(state)
        self._folded = state
        return state

    def _read_state(self) -> fold.FoldState:
        with gc_paused():
            cached = index.read_cache(self.cache_dir / STATE_FILE)
            state = (fold.FoldState.load(cached) if cached else None) or fold.FoldState()
            self._saved = _saved_marks(state) if state.marks else None
            try:
                if index.is_current(state, self.root):
                    return state
                state = index.refresh(state, self.root)
            except (TypeError, ValueError, KeyError, IndexError, AttributeError):
                # a cached state of another shape (a damaged file): fold the logs afresh
                self._saved = None
                state = index.refresh(fold.FoldState(), self.root)
            return state

    def _save(self, state: fold.FoldState) -> None:
        """Rewrite the cached fold when it lacks more than 1/UNSAVED_SHARE of the logs it
        covers (or when a log was replaced); an empty store stays empty. A process that
        reads an older cache folds the rest from the logs, which for such a tail costs a
        fraction of reading the cache, while a small write to a large store no longer
        pays for rewriting all of it (75 MB at a million evidence rows)."""
        if not state.marks or not _far_behind(self._saved, state.marks):
            return
        if index.write_cache(self.cache_dir / STATE_FILE, state.dump()):
            self._saved = _saved_marks(state)

    def outcome_cards(self) -> dict[str, dict[str, Any]]:
        """Each task's latest outcome card, from outcomes.jsonl (the fold keeps digests)."""
        from kbkit.infra.jsonl import iter_rows

        cards = {}
        for row in iter_rows(self.log("outcomes")):
            if isinstance(row.get("task"), str) and isinstance(row.get("card"), dict):
                cards[row["task"]] = row["card"]
        return cards

    def usage_rows(self) -> list[dict[str, Any]]:
        from kbkit.infra.jsonl import iter_rows

        return list(iter_rows(self.log("usage")))

    # -- writing -----------------------------------------------------------------------

    def add(self, extractions: Iterable[Extraction]) -> AddResult:
        """Append what is new: lessons, evidence and outcome cards; nothing twice.

        A task listed twice in one batch: its last record is the verdict, as across batches.
        The whole batch is one unit: all of its rows or none.
        """
        batch = list(extractions)
        last = {e.task: n for n, e in enumerate(batch)}
        result = self.add_verdicts(
            [e for n, e in enumerate(batch) if last[e.task] == n], chunk=len(batch) or 1
        )
        return result._replace(
            tasks=len(batch),
            skipped_tasks=[e.task for e in batch if not e.terminal],
            refusals=[r for e in batch for r in e.refusals],
        )

    def add_verdicts(self, extractions: Iterable[Extraction], *, chunk: int = 5000) -> AddResult:
        """Append what is new for tasks that each come at most once (their verdicts), in
        units of `chunk` tasks: every row of a unit or none. A run killed between units
        leaves whole tasks recorded; the same call again adds the rest."""
        totals = [0, 0, 0, 0]  # tasks, lessons, evidence, outcome rows
        skipped: list[str] = []
        refusals: list[RefusedLesson] = []
        with self.lock():
            state = self.state()
            if state.purges:  # a purge a killed run left open comes first
                self._finish_purges(state)
                state = self.state()
            group: list[Extraction] = []
            for extraction in extractions:
                totals[0] += 1
                if not extraction.terminal:
                    skipped.append(extraction.task)
                refusals += extraction.refusals
                group.append(extraction)
                if len(group) >= chunk:
                    self._append_verdicts(state, group, totals)
                    group = []
            if group:
                self._append_verdicts(state, group, totals)
            self._save(state)
            self._folded = state
        return AddResult(totals[0], skipped, totals[1], totals[2], totals[3], refusals)

    def _append_verdicts(
        self, state: fold.FoldState, latest: list[Extraction], totals: list[int]
    ) -> None:
        """One unit: the rows `latest` adds to the logs, appended and folded into `state`."""
        lessons: list[dict[str, Any]] = []
        evidence: list[dict[str, Any]] = []
        outcomes: list[dict[str, Any]] = []
        now = utc_now()
        # tasks extracted before (their card is on file): the only ones re-triage can hit
        again = [e for e in latest if e.terminal and e.task in state.outcomes]
        seen_lessons: set[str] = set()
        seen_evidence: set[tuple[str, str, str]] = set()
        for extraction in latest:
            for c in extraction.candidates:
                if c.lesson_id not in state.lessons and c.lesson_id not in seen_lessons:
                    seen_lessons.add(c.lesson_id)
                    lessons.append(
                        {
                            "id": c.lesson_id,
                            "kind": c.kind,
                            "company": c.company,
                            "category": c.category,
                            "company_key": c.company_key,
                            "category_key": c.category_key,
                            "cue": c.cue,
                            "action": c.action,
                            "subject": c.subject,
                            "status": "candidate",
                            "created_at": now,
                        }
                    )
                key = (c.lesson_id, c.source_kind, c.source_id)
                if key not in state.evidence and key not in seen_evidence:
                    seen_evidence.add(key)
                    evidence.append(
                        {
                            "lesson": c.lesson_id,
                            "source_kind": c.source_kind,
                            "source_id": c.source_id,
                            "task": c.task,
                            "at": c.at,
                        }
                    )
            card = extraction.outcome
            known_card, known_digest = state.outcomes.get(extraction.task, ("", None))
            if card is not None and (
                known_digest != extraction.digest or known_card != fold.card_digest(card)
            ):
                row = {"task": card["task"], "card": card, "at": now}
                if extraction.digest is not None or known_digest is not None:
                    row["digest"] = extraction.digest  # None: read from no known bytes
                outcomes.append(row)
        verdicts = _verdicts(state, again, now)
        # Lessons before evidence: a crash in between leaves a lesson with no support
        # (never selectable), and the next extraction appends the missing evidence.
        # One unit: a full disk leaves all four logs exactly as they were. The
        # tombstones come after the new evidence: a crash in between leaves old and new
        # verdict both counting until the task is extracted again, never neither.
        groups = [
            ("lessons", [text_row(row) for row in lessons]),
            ("evidence", [text_row(row) for row in evidence]),
            ("tombstones", [encode_row(row) for row in verdicts]),
        ]
        cards = [fold.card_json(row["card"]) for row in outcomes]
        groups.append(
            ("outcomes", [_outcome_line(r, c) for r, c in zip(outcomes, cards, strict=True)])
        )
        append_together([(self.log(name), lines) for name, lines in groups])
        folded = {  # what folding the outcome rows gives, without encoding the cards again
            row["task"]: (fold.text_digest(card), row.get("digest"))
            for row, card in zip(outcomes, cards, strict=True)
        }
        rows_of = (lessons, evidence, verdicts, outcomes)
        index.absorb(
            state,
            self.root,
            [(name, rows, lines) for (name, lines), rows in zip(groups, rows_of, strict=True)],
            outcomes=folded,
        )
        totals[1] += len(lessons)
        totals[2] += len(evidence)
        totals[3] += len(outcomes)

    def forget(
        self, source_kind: str, source_id: str, *, reason: str = "", purge: bool = False
    ) -> ForgetResult:
        """Tombstone one source (`finding`, `retest` or a whole `task`); recompute support.

        Every evidence key of the source that is not forgotten yet ends for good, the
        superseded ones too (a later re-extraction can revive none of them). With `purge`,
        the source's rows and the text of the lessons it leaves without live evidence are
        also removed from every copy kbkit made (`kbkit.lessons.purge`); a purge killed
        half-way is finished by the next write to the store.
        """
        from kbkit.lessons import purge as purging

        with self.lock():
            state = self.state()
            finished = None
            if state.purges:  # a purge a killed run left open comes first
                finished = self._finish_purges(state, (source_kind, source_id))
                state = self.state()
            of_source = _source_filter(source_kind, source_id)
            keys = [key for key, (task, _at, _l) in state.evidence.items() if of_source(key, task)]
            hit = [k for k in keys if state.dead.get(k) != "forgotten" and _legacy_alive(state, k)]
            live = [k for k in hit if state.is_live(k, state.evidence[k][0])]
            if hit:
                row: dict[str, Any] = {
                    "source_kind": source_kind,
                    "source_id": source_id,
                    "keys": [list(key) for key in sorted(hit)],  # exactly these, for good
                    "at": utc_now(),
                    "reason": reason,
                }
                if source_kind != "task":
                    row["task"] = state.evidence[hit[0]][0]
                append_rows(self.log("tombstones"), [row])
                state = self.state()
            affected = {key[0] for key in live}
            alive = {lid for lid in affected if state.support.get(lid, (0,))[0]}
            purged = finished
            if purge:
                # its rows may be gone (purged before): its tombstones still name its keys
                earlier = purging.recorded_keys(self, state, source_kind, source_id)
                touched = sorted({*keys, *earlier})
                plan = purging.plan(state, source_kind, source_id, touched, utc_now())
                if plan is not None:
                    append_rows(self.log("tombstones"), [plan])
                    reached("purge-planned")
                    purged = purging.finish(self, self.state(), plan)
        return ForgetResult(
            len(live),
            sorted(affected - alive),
            sorted(affected),
            purged.rows if purged else 0,
            ended=len(hit),
            purge=purged,
        )

    def _finish_purges(self, state: fold.FoldState, source: tuple[str, str] | None = None) -> Any:
        """Complete the purges a killed run left open (the caller holds the lock); the
        report of the one of `source`, if any."""
        if not state.purges:
            return None
        from kbkit.lessons import purge as purging

        mine = None
        for plan in list(state.purges.values()):
            report = purging.finish(self, state, plan)
            state = self.state()
            if (plan["source_kind"], plan["source_id"]) == source:
                mine = report
        return mine

    def record_usage(self, row: dict[str, Any]) -> None:
        append_rows(self.log("usage"), [row])


def _saved_marks(state: fold.FoldState) -> dict[str, tuple[int, int]]:
    return {name: (mark[0], mark[3]) for name, mark in state.marks.items()}


def _far_behind(
    saved: dict[str, tuple[int, int]] | None,
    marks: dict[str, tuple[int, int, int, int, int, bytes]],
) -> bool:
    """Whether a cache that folded `saved` lags too far behind a state at `marks`."""
    if saved is None or saved.keys() != marks.keys():
        return True
    unsaved = total = 0
    for name, mark in marks.items():
        inode, consumed = saved[name]
        if inode != mark[0] or consumed > mark[3]:
            return True  # a log replaced or cut: the cache cannot be continued
        unsaved += mark[3] - consumed
        total += mark[3]
    return unsaved * UNSAVED_SHARE > total


def _verdicts(state: fold.FoldState, batch: list[Extraction], now: str) -> list[dict[str, Any]]:
    """Supersede/revive rows for the tasks of `batch` (extracted before) whose evidence changed.

    The latest extraction of a task is its verdict: live evidence of the task that it no
    longer yields is superseded (a finding re-triaged from confirmed to false_positive stops
    supporting "Confirmed ..."), superseded evidence it yields again is revived.
    """
    latest: dict[str, set[tuple[str, str, str]]] = {}
    for extraction in batch:
        if extraction.terminal:
            latest[extraction.task] = {
                (c.lesson_id, c.source_kind, c.source_id) for c in extraction.candidates
            }
    if not latest:
        return []  # only new tasks: no walk over the evidence
    stale: dict[str, list[tuple[str, str, str]]] = {}
    for key, (task, _at, _line) in state.evidence.items():
        keep = latest.get(task)
        if keep is not None and key not in keep and state.is_live(key, task):
            stale.setdefault(task, []).append(key)
    rows = []
    for task, keep in latest.items():
        back = sorted(key for key in keep if state.dead.get(key) == "superseded")
        if stale.get(task):
            rows.append(_verdict("supersede", task, sorted(stale[task]), now))
        if back:
            rows.append(_verdict("revive", task, back, now))
    return rows


def _verdict(action: str, task: str, keys: list[tuple[str, str, str]], now: str) -> dict[str, Any]:
    return {
        "action": action,
        "task": task,
        "keys": [list(key) for key in keys],
        "reason": "a newer extraction of the task changed its verdict",
        "at": now,
    }


def text_row(row: dict[str, Any]) -> bytes:
    """`encode_row` for a row of strings and nulls only (lessons and evidence rows), byte for
    byte, without the general encoder's cost: a quarter of a large extraction's time."""
    parts = []
    for key in sorted(row):
        value = row[key]
        if value is None:
            parts.append(f"{_quote(key)}:null")
        elif type(value) is str:
            parts.append(f"{_quote(key)}:{_quote(value)}")
        else:
            return encode_row(row)
    return ("{" + ",".join(parts) + "}\n").encode()


def _outcome_line(row: dict[str, Any], card: str) -> bytes:
    """`encode_row(row)` of an outcome row whose card is already encoded as `card`."""
    digest = row.get("digest")
    middle = (
        f'"digest":{_quote(digest) if digest is not None else "null"},' if "digest" in row else ""
    )
    return f'{{"at":{_quote(row["at"])},"card":{card},{middle}"task":{_quote(row["task"])}}}\n'.encode()


def _source_filter(source_kind: str, source_id: str) -> Callable[[tuple[str, str, str], str], bool]:
    if source_kind == "task":
        return lambda key, task: task == source_id
    return lambda key, task: key[1] == source_kind and key[2] == source_id


def _legacy_alive(state: fold.FoldState, key: tuple[str, str, str]) -> bool:
    """False when a forget row of an earlier version (no keys) already ended the key."""
    return not state.legacy or state.is_live(key, state.evidence[key][0]) or key in state.dead
