"""Per-lesson helpful/harmful signal from outcomes alone: no model, no human label.

A task that was shown a lesson (inject mode) and later closed is joined with its own
findings, as recorded in its evidence (kind, class, summary):
- a negative lesson ("do not re-report ...") followed by the same negative finding again
  (same class and summary) counts against it: the warning did not help;
- a positive lesson followed by a confirmed finding of its class counts for it.
Observational, small and noisy: lint flags lessons with repeated harm, and the selection
view ranks a lesson last in its scope only once enough outcomes judged it (view.SIGNAL_MIN).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from kbkit.lessons import fold

HARMFUL_MIN = 2  # lint speaks up from this many harmful outcomes (and more than helpful)


class Signal(NamedTuple):
    helpful: int
    harmful: int

    def to_dict(self) -> dict[str, int]:
        return self._asdict()


def lesson_signals(
    state: fold.FoldState, usage_rows: Iterable[dict[str, Any]]
) -> dict[str, Signal]:
    """Helpful and harmful counts per lesson shown to a task that has since closed."""
    return {
        lid: Signal(len(helpful), len(harmful))
        for lid, (helpful, harmful) in signal_times(state, usage_rows).items()
    }


def signal_times(
    state: fold.FoldState, usage_rows: Iterable[dict[str, Any]]
) -> dict[str, tuple[list[str], list[str]]]:
    """Per lesson, when each judging outcome became known: the sorted `at` of the evidence
    that made a shown task count for it (helpful) or against it (harmful).

    A view stopped at a moment counts only the judgements known before it, exactly as the
    live view of the store cut there would (`kbkit.lessons.view`).
    """
    shown: dict[str, set[str]] = {}
    for row in usage_rows:
        task = str(row.get("task"))
        if row.get("mode") == "inject" and task in state.outcomes:
            shown.setdefault(task, set()).update(
                state.lesson_id(str(lid)) for lid in row.get("lessons") or []
            )
    if not shown:
        return {}
    # task -> (kind, class, summary) it found -> when that first became known
    own: dict[str, dict[tuple[str, str, str], str]] = {}
    for key, (task, at, _line) in state.evidence.items():
        if task in shown and key[0] in state.lessons and state.is_live(key, task):
            taught = state.lessons[key[0]]
            found = own.setdefault(task, {})
            subject = (taught[0], taught[3], taught[5])
            if subject not in found or at < found[subject]:
                found[subject] = at
    helpful: dict[str, list[str]] = {}
    harmful: dict[str, list[str]] = {}
    for task, lessons in shown.items():
        found = own.get(task, {})
        classes: dict[str, str] = {}
        for (kind, cue, _), at in found.items():
            if kind == "positive" and (cue not in classes or at < classes[cue]):
                classes[cue] = at
        for lid in lessons:
            lesson = state.lessons.get(lid)
            if lesson is None:
                continue
            if lesson[0] == "negative" and ("negative", lesson[3], lesson[5]) in found:
                harmful.setdefault(lid, []).append(found[("negative", lesson[3], lesson[5])])
            elif lesson[0] == "positive" and lesson[3] in classes:
                helpful.setdefault(lid, []).append(classes[lesson[3]])
    return {
        lid: (sorted(helpful.get(lid, [])), sorted(harmful.get(lid, [])))
        for lid in sorted(set(helpful) | set(harmful))
    }
