"""The ranked view: every selectable lesson, ordered once, cached as flat columns.

Derived from the store's fold (never a source of truth): support, recency and evidence
tasks per live lesson, sorted by kind, support, recency and id, with one bucket of positions
per (company, category) scope. Text columns are stored as one UTF-8 blob plus an offsets
array each, in one file that is memory-mapped: opening it parses a small header, and a
selection decodes only the handful of rows it looks at.
"""

from __future__ import annotations

import marshal
import mmap
from array import array
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from kbkit.infra.jsonl import gc_paused
from kbkit.lessons import fold, index
from kbkit.lessons.signal import Signal, lesson_signals
from kbkit.lessons.store import LessonStore

TASK_SEPARATOR = "\x1f"  # task ids cannot hold control characters (task record schema)
VIEW_LOGS = ("lessons", "evidence", "tombstones", "transitions")
VIEW_FILE = "view.bin"
Marks = dict[str, tuple[int, int, int] | None]
Scope = tuple[str | None, str | None]


Ints = Sequence[int]  # array('Q') when built, a memoryview cast to 'Q' when mapped


class Column:
    """A read-only sequence of strings stored as one UTF-8 blob and an offsets array."""

    __slots__ = ("blob", "offsets")

    def __init__(self, blob: bytes | memoryview, offsets: Ints):
        self.blob = blob
        self.offsets = offsets

    @classmethod
    def build(cls, values: Sequence[str]) -> Column:
        encoded = [value.encode("utf-8") for value in values]
        offsets = array("Q", [0])
        total = 0
        for item in encoded:
            total += len(item)
            offsets.append(total)
        return cls(b"".join(encoded), offsets)

    def __getitem__(self, position: int) -> str:
        return str(self.blob[self.offsets[position] : self.offsets[position + 1]], "utf-8")

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __iter__(self) -> Iterator[str]:
        return (self[position] for position in range(len(self)))


TEXT_COLUMNS = ("ids", "kinds", "companies", "categories", "cues", "actions", "recency", "tasks")


class SelectionView(NamedTuple):
    """Selectable lessons in global rank order; '' stands for a missing company/category."""

    marks: Marks
    ids: Column
    kinds: Column
    companies: Column
    categories: Column
    cues: Column
    actions: Column
    supports: Ints
    recency: Column
    tasks: Column
    buckets: dict[Scope, Ints]

    def dump(self) -> bytes:
        """MAGIC, header length, marshal header (sections, buckets), 8-aligned raw sections."""
        raw: list[bytes] = []
        sections: dict[str, tuple[int, int]] = {}
        size = 0

        def put(name: str, data: bytes) -> None:
            nonlocal size
            sections[name] = (size, len(data))
            padding = -len(data) % 8
            raw.append(data + b"\0" * padding)
            size += len(data) + padding

        for name in TEXT_COLUMNS:
            column: Column = getattr(self, name)
            put(f"{name}.blob", bytes(column.blob))
            put(f"{name}.offsets", _int_bytes(column.offsets))
        put("supports", _int_bytes(self.supports))
        spans: dict[Scope, tuple[int, int]] = {}
        flat = array("Q")
        for scope, positions in self.buckets.items():
            spans[scope] = (len(flat), len(positions))
            flat.extend(positions)
        put("buckets", flat.tobytes())
        header = marshal.dumps((fold.FORMAT, self.marks, sections, spans), 4)
        padding = -(len(MAGIC) + 8 + len(header)) % 8
        head = MAGIC + (len(header) + padding).to_bytes(8, "little") + header + b"\0" * padding
        return head + b"".join(raw)

    @classmethod
    def open(cls, path: Path) -> SelectionView | None:
        """Map the cached file: nothing is copied until a row is read."""
        try:
            with path.open("rb") as handle:
                mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):  # missing, or empty (mmap refuses a zero length)
            return None
        try:
            if mapped[: len(MAGIC)] != MAGIC:
                return None
            start = len(MAGIC) + 8
            length = int.from_bytes(mapped[len(MAGIC) : start], "little")
            fmt, marks, sections, spans = marshal.loads(mapped[start : start + length])
            if fmt != fold.FORMAT:
                return None
            body = memoryview(mapped)[start + length :]
            if any(offset + size > len(body) for offset, size in sections.values()):
                return None  # a truncated file: rebuild rather than read past the end

            def section(name: str) -> memoryview:
                offset, size = sections[name]
                return body[offset : offset + size]

            columns = {
                name: Column(section(f"{name}.blob"), section(f"{name}.offsets").cast("Q"))
                for name in TEXT_COLUMNS
            }
            flat = section("buckets").cast("Q")
            buckets: dict[Scope, Ints] = {
                scope: flat[first : first + n] for scope, (first, n) in spans.items()
            }
            return cls(marks, supports=section("supports").cast("Q"), buckets=buckets, **columns)
        except (EOFError, ValueError, TypeError, KeyError, IndexError, AttributeError):
            return None  # a view of another shape (a damaged file) is rebuilt


MAGIC = b"KBKIT-LESSONS-VIEW\n"


def _int_bytes(values: Ints) -> bytes:
    return (
        values.tobytes() if isinstance(values, array | memoryview) else array("Q", values).tobytes()
    )


# A lesson is ranked last in its tier once this many outcomes judged it and most were harmful.
SIGNAL_MIN = 3


def build_view(
    state: fold.FoldState, marks: Marks, signals: Mapping[str, Signal] | None = None
) -> SelectionView:
    """Support, recency and evidence tasks per live lesson, ranked once for every task.

    With `signals`, a lesson with enough outcomes (SIGNAL_MIN) that were mostly harmful
    goes after every other lesson of its scope (a stable sort: ties keep the usual order).
    """
    supports = fold.live_support(state)
    # only candidates are selectable: adopted ones live on as rules, retired ones are withdrawn
    live = [
        lid
        for lid in supports
        if lid in state.lessons and state.lifecycle.get(lid, ("candidate",))[0] == "candidate"
    ]
    rows = [fold.LessonRow(*state.lessons[lid]) for lid in live]
    order = list(range(len(live)))
    order.sort(key=lambda i: live[i])
    order.sort(key=lambda i: supports[live[i]].latest, reverse=True)  # stable sorts: ties
    order.sort(key=lambda i: supports[live[i]].rows, reverse=True)  # keep the last order
    order.sort(key=lambda i: fold.KIND_RANK[rows[i].kind])
    demoted = {
        lid
        for lid, s in (signals or {}).items()
        if s.helpful + s.harmful >= SIGNAL_MIN and s.harmful > s.helpful
    }
    if demoted:
        order.sort(key=lambda i: live[i] in demoted)
    buckets: dict[Scope, Ints] = {}
    for position, i in enumerate(order):  # positions are ranks: every bucket comes sorted
        scope = (rows[i].company, rows[i].category)
        bucket = buckets.get(scope)
        if bucket is None:
            bucket = buckets[scope] = array("Q")
        bucket.append(position)  # type: ignore[attr-defined]
    ranked_rows = [rows[i] for i in order]
    ranked_ids = [live[i] for i in order]
    return SelectionView(
        marks,
        Column.build(ranked_ids),
        Column.build([r.kind for r in ranked_rows]),
        Column.build([r.company or "" for r in ranked_rows]),
        Column.build([r.category or "" for r in ranked_rows]),
        Column.build([r.cue for r in ranked_rows]),
        Column.build([r.action for r in ranked_rows]),
        array("Q", [supports[lid].rows for lid in ranked_ids]),
        Column.build([supports[lid].latest for lid in ranked_ids]),
        Column.build([TASK_SEPARATOR.join(sorted(set(supports[lid].tasks))) for lid in ranked_ids]),
        buckets,
    )


def view_as_of(store: LessonStore, as_of: str) -> SelectionView:
    """The view built from evidence closed strictly before `as_of` only (never cached).

    For replays of history: a task must not see outcomes that were not known when it
    started. It walks every evidence row, so it costs a fold, not a cached read.
    """
    state = store.state()
    past = fold.FoldState()
    past.lessons = state.lessons
    past.tombstones = state.tombstones
    past.lifecycle = state.lifecycle
    past.evidence = {key: row for key, row in state.evidence.items() if row[1] < as_of}
    past.support = fold.count_support(past)
    return build_view(past, {})


def load_view(store: LessonStore) -> SelectionView:
    """The cached view when no log changed since it was built; otherwise rebuild it."""
    with gc_paused():
        path = store.cache_dir / VIEW_FILE
        view = SelectionView.open(path)
        if view is not None and all(
            view.marks.get(name) == index.signature(store.log(name)) for name in VIEW_LOGS
        ):
            return view
        state = store.state()
        marks = {n: (state.marks[n][:3] if n in state.marks else None) for n in VIEW_LOGS}
        # Signals change only when a shown task closes with findings, which appends evidence
        # and so rebuilds this view: usage appends alone need not (bundles stay cheap).
        signals = lesson_signals(state, store.usage_rows()) if store.log("usage").exists() else {}
        view = build_view(state, marks, signals)
        if state.marks:  # an empty store stays empty
            index.write_cache(path, view.dump())
        return view
