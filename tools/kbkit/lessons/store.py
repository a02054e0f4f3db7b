"""The lessons store: append-only JSONL logs under `intake/lessons/`.

- `lessons.jsonl`: one row per dedupe key (kind, scope, cue, action), `status: candidate`.
- `evidence.jsonl`: one row per (lesson, source_kind, source_id); support = live rows.
- `tombstones.jsonl`: `forget` records (the evidence keys they end, for good) and verdict
  records: when a task is extracted again with a different verdict, its evidence that the
  new extraction no longer yields is `supersede`d, and superseded evidence it yields again
  is `revive`d. History stays in the log; support is recomputed from it.
- `outcomes.jsonl`: one outcome card per closed task (a changed card is appended again).
- `usage.jsonl`: one row per consideration (task, lesson ids, mode, time).

Writers hold the store lock across read-check-append, so concurrent extractions never write
the same row twice; a crash leaves at most one torn line, which the fold skips.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.infra import json_input
from kbkit.infra.file_lock import locked
from kbkit.infra.jsonl import append_rows, append_together, atomic_write_bytes, gc_paused
from kbkit.infra.paths import intake_root, repo_root
from kbkit.lessons import fold, index
from kbkit.lessons.extraction import Extraction, RefusedLesson, utc_now

STORE_DIR = "lessons"


class AddResult(NamedTuple):
    tasks: int
    skipped_tasks: list[str]  # not terminal
    new_lessons: int
    new_evidence: int
    new_outcomes: int
    refusals: list[RefusedLesson]


class ForgetResult(NamedTuple):
    removed: int  # evidence rows that stop counting
    orphaned: list[str]  # lessons left without live evidence
    affected: list[str] = []  # every lesson whose evidence was hit
    purged: int = 0  # rows removed from the logs by --purge


class LessonStore:
    """One lessons folder; every method that writes takes the store lock."""

    def __init__(self, root: Path):
        self.root = root
        self.cache_dir = root / ".index"

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
        """The folded logs, from the cache when it is current (refreshed and saved if not)."""
        with gc_paused():
            cached = index.read_cache(self.cache_dir / "state.marshal")
            state = (fold.FoldState.load(cached) if cached else None) or fold.FoldState()
            try:
                if index.is_current(state, self.root):
                    return state
                state = index.refresh(state, self.root)
            except (TypeError, ValueError, KeyError, IndexError, AttributeError):
                # a cached state of another shape (a damaged file): fold the logs afresh
                state = index.refresh(fold.FoldState(), self.root)
            if state.marks:  # an empty store stays empty: no cache folder for nothing
                index.write_cache(self.cache_dir / "state.marshal", state.dump())
            return state

    def usage_rows(self) -> list[dict[str, Any]]:
        from kbkit.infra.jsonl import iter_rows

        return list(iter_rows(self.log("usage")))

    # -- writing -----------------------------------------------------------------------

    def add(self, extractions: Iterable[Extraction]) -> AddResult:
        """Append what is new: lessons, evidence and outcome cards; nothing twice."""
        batch = list(extractions)
        # a task listed twice in one batch: its last record is the verdict, as across batches
        last = {e.task: n for n, e in enumerate(batch)}
        latest = [e for n, e in enumerate(batch) if last[e.task] == n]
        lessons: list[dict[str, Any]] = []
        evidence: list[dict[str, Any]] = []
        outcomes: list[dict[str, Any]] = []
        now = utc_now()
        with self.lock():
            state = self.state()
            # tasks extracted before (their card is on file): the only ones re-triage can hit
            again = {e.task for e in latest if e.terminal and e.task in state.outcomes}
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
                if card is not None and state.outcomes.get(card["task"], {}).get("card") != card:
                    state.outcomes[card["task"]] = {"task": card["task"], "card": card}
                    outcomes.append({"task": card["task"], "card": card, "at": now})
            verdicts = _verdicts(state, [e for e in latest if e.task in again], now)
            # Lessons before evidence: a crash in between leaves a lesson with no support
            # (never selectable), and the next extraction appends the missing evidence.
            # One unit: a full disk leaves all four logs exactly as they were. The
            # tombstones come after the new evidence: a crash in between leaves old and new
            # verdict both counting until the task is extracted again, never neither.
            append_together(
                [
                    (self.log("lessons"), lessons),
                    (self.log("evidence"), evidence),
                    (self.log("tombstones"), verdicts),
                    (self.log("outcomes"), outcomes),
                ]
            )
            # No refold here: the next reader folds just these appended bytes, lazily.
        return AddResult(
            tasks=len(batch),
            skipped_tasks=[e.task for e in batch if not e.terminal],
            new_lessons=len(lessons),
            new_evidence=len(evidence),
            new_outcomes=len(outcomes),
            refusals=[r for e in batch for r in e.refusals],
        )

    def forget(
        self, source_kind: str, source_id: str, *, reason: str = "", purge: bool = False
    ) -> ForgetResult:
        """Tombstone one source (`finding`, `retest` or a whole `task`); recompute support.

        With `purge`, the source's evidence rows, the lesson rows it leaves without live
        evidence (their text) and, for a task, its outcome cards are also removed from the
        logs, rewritten atomically under the lock (for privacy requests); the tombstone stays.
        """
        with self.lock():
            state = self.state()
            hit = [
                key
                for key, (task, _at, _line) in state.evidence.items()
                if state.is_live(key, task)
                and (
                    (key[1], key[2]) == (source_kind, source_id)
                    or (source_kind == "task" and task == source_id)
                )
            ]
            if not hit:
                if purge:
                    return self._purge(state, source_kind, source_id, [])
                return ForgetResult(0, [])
            row = {
                "source_kind": source_kind,
                "source_id": source_id,
                "keys": [
                    list(key) for key in hit
                ],  # exactly these: a corrected re-extraction counts
                "at": utc_now(),
                "reason": reason,
            }
            append_rows(self.log("tombstones"), [row])
            state = self.state()
            if purge:
                return self._purge(state, source_kind, source_id, hit)
        affected = {key[0] for key in hit}
        alive = {
            key[0]
            for key, (task, _at, _line) in state.evidence.items()
            if key[0] in affected and state.is_live(key, task)
        }
        return ForgetResult(len(hit), sorted(affected - alive), sorted(affected))

    def _purge(
        self,
        state: fold.FoldState,
        source_kind: str,
        source_id: str,
        hit: list[tuple[str, str, str]],
    ) -> ForgetResult:
        """Remove a forgotten source's rows from the logs (the caller holds the lock)."""

        def of_source(key: tuple[str, str, str], task: str) -> bool:
            if source_kind == "task":
                return task == source_id
            return (key[1], key[2]) == (source_kind, source_id)

        keys = {
            key
            for key, (task, _at, _line) in state.evidence.items()
            if of_source(key, task) and not state.is_live(key, task)
        }
        affected = {key[0] for key in keys}
        alive = {
            key[0]
            for key, (task, _at, _line) in state.evidence.items()
            if key[0] in affected and state.is_live(key, task)
        }
        orphaned = affected - alive
        tasks = {source_id} if source_kind == "task" else set()
        purged = _rewrite(
            self.log("evidence"),
            lambda r: (r.get("lesson"), r.get("source_kind"), r.get("source_id")) in keys,
        )
        purged += _rewrite(self.log("lessons"), lambda r: r.get("id") in orphaned)
        purged += _rewrite(self.log("outcomes"), lambda r: r.get("task") in tasks)
        return ForgetResult(len(hit), sorted(orphaned), sorted(affected), purged)

    def record_usage(self, row: dict[str, Any]) -> None:
        append_rows(self.log("usage"), [row])


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


def _rewrite(path: Path, drop: Callable[[dict[str, Any]], bool]) -> int:
    """Rewrite a log atomically without the rows `drop` selects; other lines stay as they are."""
    if not path.exists():
        return 0
    kept: list[bytes] = []
    dropped = 0
    for line in path.read_bytes().splitlines(keepends=True):
        try:
            row = json_input.loads(line)
        except ValueError:
            row = None
        if isinstance(row, dict) and drop(row):
            dropped += 1
        else:
            kept.append(line)
    if dropped:
        atomic_write_bytes(path, b"".join(kept))
    return dropped
