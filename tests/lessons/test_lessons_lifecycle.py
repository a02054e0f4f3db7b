"""Life cycle: candidate -> adopted -> retired, as appended transitions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbkit.__main__ import main
from kbkit.infra.jsonl import read_jsonl
from kbkit.intake.ledger import append_status, load_status
from kbkit.lessons.selection import select_lessons
from kbkit.lessons.store import LessonStore

TASK = {"id": "NEW", "company": "acme", "category": "web"}


def seeded(repo: Path, make_task) -> dict[str, str]:
    tasks = repo / "tasks.jsonl"
    tasks.write_text(
        json.dumps(
            make_task(
                "T1",
                findings=[
                    ("F1", "confirmed", "sqli", "login"),
                    ("F2", "false_positive", "xss", "search"),
                ],
            )
        )
        + "\n"
    )
    assert main(["lessons", "extract", "--from", str(tasks), "--repo", str(repo)]) == 0
    return {x.cue: x.id for x in select_lessons(TASK, LessonStore.for_repo(repo))}


def transitions(repo: Path) -> list[dict]:
    return [r.data for r in read_jsonl(repo / "intake/lessons/transitions.jsonl").rows]


def test_retire_needs_a_reason_and_hides_the_lesson(tmp_path: Path, make_task, capsys) -> None:
    ids = seeded(tmp_path, make_task)
    with pytest.raises(SystemExit) as exit_info:  # argparse: --reason is required
        main(["lessons", "retire", ids["xss"], "--repo", str(tmp_path)])
    assert exit_info.value.code == 2
    args = ["lessons", "retire", ids["xss"], "--reason", "owner: obsolete", "--repo", str(tmp_path)]
    assert main(args) == 0
    assert main(args) == 0  # already retired: nothing appended
    assert [(t["lesson"], t["state"], t["reason"]) for t in transitions(tmp_path)] == [
        (ids["xss"], "retired", "owner: obsolete")
    ]
    assert [x.cue for x in select_lessons(TASK, LessonStore.for_repo(tmp_path))] == ["sqli"]


def test_adopt_follows_published_promotions(tmp_path: Path, make_task, capsys) -> None:
    ids = seeded(tmp_path, make_task)
    assert main(["lessons", "promote", "--min-support", "1", "--repo", str(tmp_path)]) == 0
    intake = tmp_path / "intake"
    status = load_status(intake)
    key = ("lesson", ids["sqli"])
    append_status(intake, *key, "published", attempts=1, previous=status[key], url="https://x/1")
    capsys.readouterr()
    assert main(["lessons", "adopt", "--repo", str(tmp_path)]) == 0
    assert "1 lesson(s) adopted" in capsys.readouterr().out
    assert [x.cue for x in select_lessons(TASK, LessonStore.for_repo(tmp_path))] == ["xss"]
    # a later transition changes the state again; the history stays
    assert (
        main(
            ["lessons", "retire", ids["sqli"], "--reason", "rule removed", "--repo", str(tmp_path)]
        )
        == 0
    )
    assert [t["state"] for t in transitions(tmp_path)] == ["adopted", "retired"]


def test_adopting_an_unknown_lesson_is_refused(tmp_path: Path, make_task, capsys) -> None:
    seeded(tmp_path, make_task)
    assert main(["lessons", "adopt", "Lnope", "--repo", str(tmp_path)]) == 1
    assert "Lnope" in capsys.readouterr().err
    assert not (tmp_path / "intake/lessons/transitions.jsonl").exists()
