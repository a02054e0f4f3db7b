"""Fixtures for the lessons tests: a store in the test's temp folder and task builders."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from kbkit.lessons.store import LessonStore

TaskFactory = Callable[..., dict[str, Any]]


@pytest.fixture
def store(tmp_path: Path) -> LessonStore:
    """The store `--repo tmp_path` uses: tmp_path/intake/lessons."""
    return LessonStore.for_repo(tmp_path)


@pytest.fixture
def make_task() -> TaskFactory:
    """A terminal task record; pass findings as (id, status, class, summary) tuples."""

    def build(
        task_id: str = "T1",
        *,
        status: str = "done",
        company: str | None = "acme",
        category: str | None = "web",
        findings: Sequence[tuple[str, str, str, str]] = (),
        retests: Sequence[tuple[str, str, str]] = (),
        tokens: int = 1000,
        tool_calls: int = 10,
        **extra: Any,
    ) -> dict[str, Any]:
        task: dict[str, Any] = {
            "id": task_id,
            "status": status,
            "company": company,
            "category": category,
            "findings": [
                {"id": f, "status": s, "class": c, "summary": m} for f, s, c, m in findings
            ],
            "retests": [{"id": r, "finding_id": f, "verdict": v} for r, f, v in retests],
            "metrics": {"tokens": tokens, "tool_calls": tool_calls},
        }
        task.update(extra)
        return task

    return build
