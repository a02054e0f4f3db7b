"""Purge: a forgotten source's text removed from every copy kbkit made, finished after a kill.

A purge is planned before anything is rewritten: one `purge` row in `tombstones.jsonl`
names the source's evidence keys, the lessons whose text goes (those the source touched
that no live evidence supports any more), the tasks whose outcome cards go (a purged
task's), and the purge's id. Then every copy is rewritten, each step idempotent and driven
by the plan alone (never by what an earlier step already removed):
1. `evidence.jsonl`, `lessons.jsonl` and `outcomes.jsonl` (atomic rewrites, store lock);
2. `intake/events.jsonl`: a promotion of such a lesson keeps its key and its state, its
   title and summary become a note that they were purged
   (`kbkit.intake.compaction.rewrite_events`, under the ledger's own locks);
3. the bundles `kb lessons bundle --out DIR` wrote (their folders are in the usage log):
   `lessons.json`, `planner.txt` and `worker.txt` lose those lessons' lines;
4. the derived caches under `.index/`, removed (the next read rebuilds them);
then a `purged` row closes the plan. A run killed anywhere leaves the plan open: the next
write to the store (`forget`, `extract`, ...) finishes it before doing anything else.
What kbkit cannot rewrite (git history, a pull request that was published) is reported.

A purge run again over a source whose evidence rows are already gone still knows what the
source touched: its forget and purge rows in `tombstones.jsonl` name the evidence keys, so
a lesson the source left without live evidence since (say another source that kept it
alive was forgotten without --purge in between) loses its text on the rerun too.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from kbkit.infra import json_input
from kbkit.infra.jsonl import atomic_write_bytes, atomic_write_text, iter_rows
from kbkit.infra.steps import reached
from kbkit.lessons.rendering import render_block

if TYPE_CHECKING:
    from kbkit.lessons.fold import FoldState


class LessonStore(Protocol):
    """What a purge needs of `kbkit.lessons.store.LessonStore` (which calls it)."""

    root: Path
    cache_dir: Path

    def log(self, name: str) -> Path: ...


PURGED_TITLE = "Lesson (purged)"
PURGED_SUMMARY = "Purged by kb lessons forget --purge: this lesson's text is gone."


class PurgeReport(NamedTuple):
    rows: int  # rows removed from the lessons logs
    events: int  # promotion events whose text was replaced
    bundles: list[str]  # bundle folders rewritten
    published: list[str]  # lessons whose promotion was already published (a PR has the text)
    plan: dict[str, Any]  # the purge row carried out


def plan(
    state: FoldState,
    source_kind: str,
    source_id: str,
    keys: list[tuple[str, str, str]],
    at: str,
) -> dict[str, Any] | None:
    """The purge row for a source whose evidence keys are `keys` (those of its rows, and those
    its earlier tombstones name), None when nothing of it is left to remove."""
    tasks = [source_id] if source_kind == "task" else []
    touched = {key[0] for key in keys}
    present = {state.lesson_id(lid) for lid in state.lessons}
    lessons = sorted(
        lid
        for lid in touched
        if not state.support.get(lid, (0,))[0] and state.lesson_id(lid) in present
    )
    rows = any(key in state.evidence for key in keys)
    if not rows and not lessons and not (tasks and source_id in state.outcomes):
        return None
    ident = hashlib.sha256(f"{source_kind}\0{source_id}\0{at}".encode()).hexdigest()[:16]
    return {
        "action": "purge",
        "id": ident,
        "source_kind": source_kind,
        "source_id": source_id,
        "keys": [list(key) for key in sorted(keys)],
        "lessons": lessons,
        "tasks": tasks,
        "at": at,
    }


def recorded_keys(
    store: LessonStore, state: FoldState, source_kind: str, source_id: str
) -> list[tuple[str, str, str]]:
    """The evidence keys the source's forget and purge rows in `tombstones.jsonl` name: what
    it touched, known even once its evidence rows were purged."""
    path = store.log("tombstones")
    if not path.exists():
        return []
    found: set[tuple[str, str, str]] = set()
    for row in iter_rows(path):
        if row.get("source_kind") != source_kind or row.get("source_id") != source_id:
            continue
        if row.get("action", "forget") not in ("forget", "purge"):
            continue
        keys = row.get("keys")
        for key in keys if isinstance(keys, list) else []:
            if isinstance(key, list) and len(key) == 3 and all(type(x) is str for x in key):
                found.add(state.migrate_key((key[0], key[1], key[2])))
    return sorted(found)


def finish(store: LessonStore, state: FoldState, purge: dict[str, Any]) -> PurgeReport:
    """Carry out a purge plan, every step again if need be; close it with a `purged` row."""
    from kbkit.infra.jsonl import append_rows

    keys = {tuple(key) for key in purge["keys"]}
    lessons = set(purge["lessons"])
    tasks = set(purge["tasks"])
    now = state.lesson_id  # ids of any version's rows, as they are now

    rows = rewrite_log(
        store.log("evidence"),
        lambda r: (
            state.migrate_key(
                (str(r.get("lesson")), str(r.get("source_kind")), str(r.get("source_id")))
            )
            in keys
        ),
    )
    reached("purge-evidence")
    rows += rewrite_log(store.log("lessons"), lambda r: now(str(r.get("id"))) in lessons)
    reached("purge-lessons")
    rows += rewrite_log(store.log("outcomes"), lambda r: r.get("task") in tasks)
    reached("purge-outcomes")
    events, published = _purge_events(store.root.parent, lessons, now)
    reached("purge-events")
    bundles = _purge_bundles(store, lessons, now)
    reached("purge-bundles")
    for name in ("state.marshal", "view.bin"):
        (store.cache_dir / name).unlink(missing_ok=True)
    reached("purge-caches")
    append_rows(
        store.log("tombstones"), [{"action": "purged", "id": purge["id"], "at": purge["at"]}]
    )
    return PurgeReport(rows, events, bundles, published, purge)


def _purge_events(intake: Path, lessons: set[str], now: Any) -> tuple[int, list[str]]:
    """Promotion events of purged lessons keep key and state; their text is replaced."""
    if not lessons or not (intake / "events.jsonl").exists():
        return 0, []
    from kbkit.intake.compaction import rewrite_events
    from kbkit.intake.ledger import load_status

    def change(row: dict[str, Any]) -> dict[str, Any] | None:
        if row.get("source_kind") != "lesson" or now(str(row.get("source_id"))) not in lessons:
            return None
        if row.get("title") == PURGED_TITLE and row.get("summary") == PURGED_SUMMARY:
            return None
        return dict(row, title=PURGED_TITLE, summary=PURGED_SUMMARY)

    changed = rewrite_events(intake, change)
    status = load_status(intake)
    published = sorted(
        key[1]
        for key, row in status.items()
        if key[0] == "lesson" and now(key[1]) in lessons and row.get("state") == "published"
    )
    return changed, published


def _purge_bundles(store: LessonStore, lessons: set[str], now: Any) -> list[str]:
    """Rewrite the bundle folders (from the usage log) that show a purged lesson."""
    if not lessons or not store.log("usage").exists():
        return []
    folders = {}
    for row in iter_rows(store.log("usage")):
        folder = row.get("bundle")
        if isinstance(folder, str) and any(
            now(str(lid)) in lessons for lid in row.get("lessons") or []
        ):
            folders[folder] = str(row.get("task"))
    done = []
    for folder, task in sorted(folders.items()):
        if _purge_bundle(Path(folder), task, lessons, now):
            done.append(folder)
    return done


def _purge_bundle(folder: Path, task: str, lessons: set[str], now: Any) -> bool:
    meta_path = folder / "lessons.json"
    try:
        meta = json_input.loads(meta_path.read_bytes())
    except (OSError, ValueError):
        return False  # gone, or no longer a bundle of ours
    if not isinstance(meta, dict) or meta.get("task") != task:
        return False  # the folder now holds another task's bundle
    found = meta.get("lessons")
    entries: list[Any] = found if isinstance(found, list) else []
    keep = [
        e
        for e in entries
        if isinstance(e, dict)
        and not any(now(str(lid)) in lessons for lid in [e.get("id"), *(e.get("also") or [])])
    ]
    if len(keep) == len(entries):
        return False
    old_block = str(meta.get("block") or "")
    new_block = render_block(str(e.get("line", "")) for e in keep) if old_block and keep else ""
    for name in ("planner.txt", "worker.txt"):
        path = folder / name
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            continue
        if old_block and f"\n\n{old_block}\n" in text:
            replacement = f"\n\n{new_block}\n" if new_block else "\n"
            atomic_write_text(path, text.replace(f"\n\n{old_block}\n", replacement))
    meta.update(lessons=keep, block=new_block)
    atomic_write_text(meta_path, json.dumps(meta, ensure_ascii=False, indent=2) + "\n")
    return True


def rewrite_log(path: Path, drop: Callable[[dict[str, Any]], bool]) -> int:
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
