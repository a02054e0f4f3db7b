"""The ranked view: every selectable lesson, ordered once, cached as flat columns; and the
same view stopped at any moment (`cut`).

Derived from the store's fold (never a source of truth): per selectable lesson (a live
candidate: not forgotten, superseded, adopted or retired) its evidence rows (time and task,
in time order), ranked by demotion, kind, support, recency and id, with one bucket of
positions per (company key, category key) scope. A lesson's support is the number of
distinct tasks behind its live evidence: the view keeps one row per task (its earliest). Text columns are stored as one UTF-8 blob
plus an offsets array each, in one file that is memory-mapped: opening it parses a small
header, and a selection decodes only the handful of rows it looks at.

The view at a moment T is the live view of the store cut at T: the same fold (tombstones,
supersedes, revives, life cycle) with only the evidence closed before T counted, so support,
recency, a task's own evidence and the helpful/harmful signal are those known at T. A lesson
whose every evidence row closed at or after T is not in it. Past the latest moment the view
depends on (`last`), the cut is the live view itself.
"""

from __future__ import annotations

import marshal
import mmap
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Mapping, Sequence
from itertools import accumulate
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.infra.jsonl import gc_paused
from kbkit.lessons import conflicts, fold, index
from kbkit.lessons.signal import signal_times
from kbkit.lessons.store import LessonStore

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
        offsets.extend(accumulate(map(len, encoded)))
        return cls(b"".join(encoded), offsets)

    def __getitem__(self, position: int) -> str:
        return str(self.blob[self.offsets[position] : self.offsets[position + 1]], "utf-8")

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __iter__(self) -> Iterator[str]:
        return (self[position] for position in range(len(self)))


TEXT_COLUMNS = (
    "ids",
    "kinds",
    "companies",
    "categories",
    "cues",
    "actions",
    "times",
    "names",
    "scope_companies",
    "scope_categories",
)
INT_COLUMNS = ("first", "ev_time", "ev_task", "bucket_first", "bucket_positions", "category_order")


class SelectionView(NamedTuple):
    """Selectable lessons in live rank order; '' stands for a missing company/category.

    Position p's evidence rows are ev_time/ev_task[first[p] : first[p + 1]], in time order:
    indexes into `times` (every evidence time, sorted) and `names` (every task id, sorted).
    Bucket b (one scope: company key, category key; '' for none) holds the positions
    bucket_positions[bucket_first[b] : bucket_first[b + 1]], in rank order; buckets are
    sorted by (company, category), and `category_order` lists them by (category, company),
    so a task's buckets are found by bisection in the mapped file (no table to decode).
    """

    marks: Marks
    ids: Column
    kinds: Column
    companies: Column  # what is shown (redacted); the bucket keys are what compares
    categories: Column
    cues: Column
    actions: Column
    times: Column
    names: Column
    first: Ints
    ev_time: Ints
    ev_task: Ints
    scope_companies: Column
    scope_categories: Column
    bucket_first: Ints
    bucket_positions: Ints
    category_order: Ints
    signals: dict[int, tuple[list[str], list[str]]]  # position -> helpful, harmful `at`s
    last: str  # the latest evidence or judgement time the view holds
    # position -> the positions of the lessons that contradict it (`kbkit.lessons.conflicts`)
    rivals: dict[int, list[int]] = {}

    def support(self, position: int) -> int:
        return self.first[position + 1] - self.first[position]

    def recency(self, position: int) -> str:
        return self.times[self.ev_time[self.first[position + 1] - 1]]

    def bucket(self, index: int) -> Ints:
        """The positions of bucket `index`, in rank order."""
        return self.bucket_positions[self.bucket_first[index] : self.bucket_first[index + 1]]

    def scope(self, index: int) -> Scope:
        return (self.scope_companies[index] or None, self.scope_categories[index] or None)

    def company_buckets(self, company: str | None) -> range:
        """The buckets whose company key is `company` (None: lessons naming no company)."""
        key, column = company or "", self.scope_companies
        return range(bisect_left(column, key), bisect_right(column, key))

    def category_buckets(self, category: str | None) -> list[int]:
        """The buckets whose category key is `category` (None: no category)."""
        ordered = _Permuted(self.scope_categories, self.category_order)
        key = category or ""
        found = range(bisect_left(ordered, key), bisect_right(ordered, key))
        return [self.category_order[n] for n in found]

    def generic_bucket(self) -> int | None:
        """The bucket of lessons naming neither company nor category, if there is one."""
        if len(self.scope_companies) and self.scope(0) == (None, None):
            return 0  # '' sorts first
        return None

    def task_index(self, task: str) -> int | None:
        """The index of a task id in `names`, or None when no evidence row names it."""
        at = bisect_left(self.names, task)
        return at if at < len(self.names) and self.names[at] == task else None

    def cut(self, moment: str | None) -> Cut | None:
        """The view stopped at `moment` (evidence closed strictly before it), or None when
        that is the live view (no moment, or one after everything the view holds)."""
        if moment is None or moment > self.last:
            return None
        return Cut(self, moment, bisect_left(self.times, moment))

    def dump(self) -> bytes:
        """MAGIC, header length, marshal header (sections, buckets), 8-aligned raw sections."""
        raw: list[bytes] = []
        sections: dict[str, tuple[int, int]] = {}
        size = 0

        def put(name: str, data: bytes) -> None:
            nonlocal size
            sections[name] = (size, len(data))
            padding = -len(data) % 8
            raw.extend((data, b"\0" * padding))  # no padded copy: the file is joined once
            size += len(data) + padding

        for name in TEXT_COLUMNS:
            column: Column = getattr(self, name)
            put(f"{name}.blob", bytes(column.blob))
            put(f"{name}.offsets", _int_bytes(column.offsets))
        for name in INT_COLUMNS:
            put(name, _int_bytes(getattr(self, name)))
        header = marshal.dumps(
            (fold.FORMAT, self.marks, sections, self.signals, self.last, self.rivals), 4
        )
        padding = -(len(MAGIC) + 8 + len(header)) % 8
        head = MAGIC + (len(header) + padding).to_bytes(8, "little") + header + b"\0" * padding
        return b"".join([head, *raw])

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
            head = marshal.loads(mapped[start : start + length])
            fmt, marks, sections, signals, last, rivals = head
            if fmt != fold.FORMAT:
                return None
            body = memoryview(mapped)[start + length :]
            if any(offset + size > len(body) for offset, size in sections.values()):
                return None  # a truncated file: rebuild rather than read past the end

            def section(name: str) -> memoryview:
                offset, size = sections[name]
                return body[offset : offset + size]

            columns: dict[str, object] = {
                name: Column(section(f"{name}.blob"), section(f"{name}.offsets").cast("Q"))
                for name in TEXT_COLUMNS
            }
            columns.update((name, section(name).cast("Q")) for name in INT_COLUMNS)
            return cls(
                marks,
                signals=signals,
                last=last,
                rivals=rivals,
                **columns,  # type: ignore[arg-type]
            )
        except (EOFError, ValueError, TypeError, KeyError, IndexError, AttributeError):
            return None  # a view of another shape (a damaged file) is rebuilt


class Cut(NamedTuple):
    """A view stopped at `moment`: `before` of its times are earlier than the moment."""

    view: SelectionView
    moment: str
    before: int

    def support(self, position: int) -> int:
        view = self.view
        start, end = view.first[position], view.first[position + 1]
        return bisect_left(view.ev_time, self.before, start, end) - start

    def recency(self, position: int, support: int) -> str:
        view = self.view
        return view.times[view.ev_time[view.first[position] + support - 1]]

    def demoted(self, position: int) -> bool:
        judged = self.view.signals.get(position)
        if judged is None:
            return False
        helpful = bisect_left(judged[0], self.moment)
        harmful = bisect_left(judged[1], self.moment)
        return helpful + harmful >= SIGNAL_MIN and harmful > helpful


MAGIC = b"KBKIT-LESSONS-VIEW-3\n"  # 2: buckets as sorted columns; 3: one row per task


class _Permuted:
    """`column` read in the order of `order`: a sequence bisect can search."""

    __slots__ = ("column", "order")

    def __init__(self, column: Column, order: Ints):
        self.column = column
        self.order = order

    def __getitem__(self, index: int) -> str:
        return self.column[self.order[index]]

    def __len__(self) -> int:
        return len(self.order)


def _int_bytes(values: Ints) -> bytes:
    return (
        values.tobytes() if isinstance(values, array | memoryview) else array("Q", values).tobytes()
    )


KIND_RANK = fold.KIND_RANK
# A lesson is ranked last in its tier once this many outcomes judged it and most were harmful.
SIGNAL_MIN = 3


def build_view(
    state: fold.FoldState,
    marks: Marks,
    signals: Mapping[str, tuple[list[str], list[str]]] | None = None,
) -> SelectionView:
    """Every selectable lesson with its evidence in time order, ranked once for every task.

    With `signals` (`signal.signal_times`), a lesson with enough outcomes (SIGNAL_MIN) that
    were mostly harmful goes after every other lesson of its scope (a stable sort: ties keep
    the usual order).
    """
    supports = state.support
    # only candidates are selectable: adopted ones live on as rules, retired ones are withdrawn
    lifecycle = state.lifecycle
    live = [
        lid
        for lid, agg in supports.items()
        if agg[0] and lid in state.lessons and lifecycle.get(lid, ("candidate",))[0] == "candidate"
    ]
    rows = [fold.LessonRow(*state.lessons[lid]) for lid in live]
    # support is distinct tasks: one task's several rows for a lesson count once, at its first
    aggregates = [_per_task(supports[lid]) for lid in live]
    # stable sorts, last key first: ties keep the order of the sort before
    order = sorted(range(len(live)), key=live.__getitem__)
    order.sort(key=[agg[1] for agg in aggregates].__getitem__, reverse=True)
    order.sort(key=[agg[0] for agg in aggregates].__getitem__, reverse=True)
    order.sort(key=[fold.KIND_RANK[row.kind] for row in rows].__getitem__)
    judged = signals or {}
    demoted = {
        lid
        for lid, (helpful, harmful) in judged.items()
        if len(helpful) + len(harmful) >= SIGNAL_MIN and len(harmful) > len(helpful)
    }
    if demoted:
        order.sort(key=lambda i: live[i] in demoted)
    every_at: set[str] = set()
    every_task: set[str] = set()
    for aggregate in aggregates:  # C-level set updates: a million rows cost a fraction of a second
        every_at.update(aggregate[3])
        every_task.update(aggregate[2])
    times, names = sorted(every_at), sorted(every_task)
    time_index = {at: n for n, at in enumerate(times)}
    name_index = {task: n for n, task in enumerate(names)}
    to_time, to_name = time_index.__getitem__, name_index.__getitem__
    first, ev_time, ev_task = array("Q", [0]), array("Q"), array("Q")
    for i in order:
        _n, _latest, tasks, ats = aggregates[i]
        if len(ats) == 1:
            ev_time.append(to_time(ats[0]))
            ev_task.append(to_name(tasks[0]))
        else:
            pairs = sorted(zip(map(to_time, ats), map(to_name, tasks), strict=True))
            ev_time.extend(pair[0] for pair in pairs)
            ev_task.extend(pair[1] for pair in pairs)
        first.append(len(ev_time))
    buckets: dict[Scope, Ints] = {}
    position_signals: dict[int, tuple[list[str], list[str]]] = {}
    last = times[-1] if times else ""
    for position, i in enumerate(order):  # positions are ranks: every bucket comes sorted
        lid, row = live[i], rows[i]
        scope = (row.company_key, row.category_key)
        bucket = buckets.get(scope)
        if bucket is None:
            bucket = buckets[scope] = array("Q")
        bucket.append(position)  # type: ignore[attr-defined]
        if lid in judged:
            position_signals[position] = judged[lid]
            last = max([last, *judged[lid][0], *judged[lid][1]])
    scopes = sorted(buckets, key=lambda scope: (scope[0] or "", scope[1] or ""))
    bucket_first, bucket_positions = array("Q", [0]), array("Q")
    for scope in scopes:
        bucket_positions.extend(buckets[scope])
        bucket_first.append(len(bucket_positions))
    by_category = sorted(range(len(scopes)), key=lambda n: (scopes[n][1] or "", scopes[n][0] or ""))
    at = {live[i]: position for position, i in enumerate(order)}
    rival_positions = {
        at[lid]: [at[other] for other in others]
        for lid, others in conflicts.rivals(dict(zip(live, rows, strict=True))).items()
    }
    ranked_rows = [rows[i] for i in order]
    return SelectionView(
        marks,
        Column.build([live[i] for i in order]),
        Column.build([r.kind for r in ranked_rows]),
        Column.build([r.company or "" for r in ranked_rows]),
        Column.build([r.category or "" for r in ranked_rows]),
        Column.build([r.cue for r in ranked_rows]),
        Column.build([r.action for r in ranked_rows]),
        Column.build(times),
        Column.build(names),
        first,
        ev_time,
        ev_task,
        Column.build([scope[0] or "" for scope in scopes]),
        Column.build([scope[1] or "" for scope in scopes]),
        bucket_first,
        bucket_positions,
        array("Q", by_category),
        position_signals,
        last,
        rival_positions,
    )


def _per_task(aggregate: list[Any]) -> list[Any]:
    """A support aggregate with one evidence row per task (its earliest): the view's rows are
    what support counts, so a task that gave five rows for a lesson supports it once, from the
    moment its first row closed."""
    tasks, ats = aggregate[2], aggregate[3]
    if len(tasks) == len(set(tasks)):
        return aggregate
    first: dict[str, str] = {}
    for task, at in zip(tasks, ats, strict=True):
        if task not in first or at < first[task]:
            first[task] = at
    return [len(first), max(first.values()), list(first), list(first.values())]


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
        signals = signal_times(state, store.usage_rows()) if store.log("usage").exists() else {}
        view = build_view(state, marks, signals)
        if state.marks:  # an empty store stays empty
            index.write_cache(path, view.dump())
        return view
