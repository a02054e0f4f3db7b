"""The lessons part of `make demo`, on the shipped sample task records."""

from __future__ import annotations

from pathlib import Path

from kbkit.lessons import demo
from kbkit.lessons.task_records import read_tasks_jsonl, schema_problem

PROJECT = Path(__file__).resolve().parents[2]


def test_sample_task_records_are_valid() -> None:
    tasks = read_tasks_jsonl(str(PROJECT / "intake/samples/tasks.jsonl"))
    assert len(tasks) == 5 and all(schema_problem(task) is None for task in tasks)


def test_lessons_demo_shadows_injects_and_reports(tmp_path: Path, capsys) -> None:
    assert demo.run(PROJECT, tmp_path) == 0
    out = capsys.readouterr().out
    assert "8 new lesson(s)" in out and "1 still running" in out
    assert "prompts unchanged: True" in out and "<prior-outcomes>" in out
    assert "globex" not in out.split("<prior-outcomes>")[1]  # another client's lesson stays out
    assert "Winter2024x" not in out and "password=[redacted]" in out
    assert "report arms: inject_shown 1, shadow 1, history 4" in out
    assert demo.run(PROJECT, tmp_path) == 0  # again in the same folder
    assert "0 new lesson(s)" in capsys.readouterr().out
