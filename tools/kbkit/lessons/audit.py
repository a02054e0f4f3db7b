"""Client-isolation audit: every lesson the usage log says was shown across a company line."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from kbkit.lessons import fold
from kbkit.lessons.redaction import scope_key


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


def task_key(row: dict[str, Any]) -> str | None:
    """The company key of a usage row's task (rows of earlier versions: of its display)."""
    if "company_key" in row:
        key = row.get("company_key")
        return key if isinstance(key, str) else None
    company = row.get("company")
    return scope_key(company) if isinstance(company, str) else None


def crossings(state: fold.FoldState, usage: Iterable[dict[str, Any]]) -> list[Crossing]:
    """Usage rows whose lessons carry a company other than the task's, in log order.

    Companies compare by scope key, as selection compares them (never by what redaction
    shows: `10.0.0.1` and `10.0.0.2` are two companies). Shadow rows count too: the
    selection crossed the line even if no prompt showed it. A lesson id the store no longer
    knows is skipped (lint reports dangling ids).
    """
    found = []
    for row in usage:
        task_company = row.get("company") if isinstance(row.get("company"), str) else None
        key = task_key(row)
        for lesson in row.get("lessons") or []:
            known = state.lessons.get(state.lesson_id(str(lesson)))
            if known is None:
                continue
            lesson_row = fold.LessonRow(*known)
            company = lesson_row.company or "(unnamed)"
            if lesson_row.company_key is not None and lesson_row.company_key != key:
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
