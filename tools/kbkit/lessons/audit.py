"""Client-isolation audit: every lesson the usage log says was shown across a company line."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from kbkit.lessons import fold


class Crossing(NamedTuple):
    """One lesson of `lesson_company` considered for a task of another (or no) company."""

    task: str
    task_company: str | None
    lesson: str
    lesson_company: str
    mode: str
    at: str

    def to_dict(self) -> dict[str, Any]:
        return self._asdict()


def _same(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and a.casefold() == b.casefold()


def crossings(state: fold.FoldState, usage: Iterable[dict[str, Any]]) -> list[Crossing]:
    """Usage rows whose lessons carry a company other than the task's, in log order.

    Shadow rows count too: the selection crossed the line even if no prompt showed it.
    A lesson id the store no longer knows is skipped (lint reports dangling ids).
    """
    found = []
    for row in usage:
        task_company = row.get("company") if isinstance(row.get("company"), str) else None
        for lesson in row.get("lessons") or []:
            known = state.lessons.get(str(lesson))
            if known is None:
                continue
            company = fold.LessonRow(*known).company
            if company is not None and not _same(company, task_company):
                found.append(
                    Crossing(
                        str(row.get("task")),
                        task_company,
                        str(lesson),
                        company,
                        str(row.get("mode", "")),
                        str(row.get("at", "")),
                    )
                )
    return found
