"""Replay: what negative lessons could have saved, counted over past tasks in time order.

Tasks are taken in the order they closed (evidence `at`), each seeing only what closed
strictly before it. A false positive or duplicate of a task counts as *warned* when an
earlier task had already produced the same negative lesson text (class and summary) in a
scope the task could see (the client-isolation scope of `kbkit.lessons.selection`). The
render budget of eight lessons is ignored, so this is an upper bound on what lessons could
have saved, before any agent sees one. One walk over the evidence, one sort.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, NamedTuple

from kbkit.lessons import fold
from kbkit.lessons.selection import scope_tier

_PRIOR = re.compile(r"\(prior ([a-z_]+)\)$")
Scope = tuple[str | None, str | None]


class ReplayResult(NamedTuple):
    tasks: int
    negatives: dict[str, int]  # prior status -> negative evidence rows
    warned: dict[str, int]  # prior status -> of those, already warned about

    def to_dict(self) -> dict[str, Any]:
        return self._asdict()


def _status(action: str) -> str:
    match = _PRIOR.search(action)
    return match.group(1) if match else "negative"


def replay(state: fold.FoldState, scope: str) -> ReplayResult:
    """Count, in closing order, the negative outcomes an earlier lesson already described."""
    check = bool(state.dead or state.legacy)
    tasks: dict[str, list[Any]] = {}  # task -> [closed at, its negative lesson ids]
    # scopes are (company key, category key): row[8], row[9] of fold.LessonRow
    lessons = state.lessons
    negative = {lid for lid, row in lessons.items() if row[0] == "negative"}
    for key, (task, at, _line) in state.evidence.items():
        if check and not state.is_live(key, task):
            continue
        entry = tasks.get(task)
        if entry is None:
            entry = tasks[task] = [at, []]
        elif at < entry[0]:
            entry[0] = at
        if key[0] in negative:
            entry[1].append(key[0])
    order = sorted(tasks.items(), key=lambda item: (item[1][0], item[0]))
    known: dict[tuple[str, str], set[Scope]] = {}
    seen: dict[tuple[Scope, Scope], bool] = {}
    totals: Counter[str] = Counter()
    warned: Counter[str] = Counter()

    def visible(source: Scope, target: Scope) -> bool:
        pair = (source, target)
        if pair not in seen:
            seen[pair] = scope_tier(*source, *target, scope) is not None
        return seen[pair]

    start = 0
    while start < len(order):
        end = start
        moment = order[start][1][0]
        while end < len(order) and order[end][1][0] == moment:
            end += 1
        block = order[start:end]  # tasks closing at the same moment never warn each other
        for _task, (_at, lids) in block:
            for lid in lids:
                row = lessons[lid]
                status = _status(row[4])
                totals[status] += 1
                earlier = known.get((row[3], row[5]))
                if earlier and any(visible(s, (row[8], row[9])) for s in earlier):
                    warned[status] += 1
        for _task, (_at, lids) in block:
            for lid in lids:
                row = lessons[lid]
                known.setdefault((row[3], row[5]), set()).add((row[8], row[9]))
        start = end
    return ReplayResult(len(tasks), dict(sorted(totals.items())), dict(sorted(warned.items())))
