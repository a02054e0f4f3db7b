"""Conflicts resolved at selection (#40 point 7): two lessons `kb lessons lint` flags as a
conflict (the same finding confirmed in one task, a false positive in another) are never
shown side by side. The newer evidence wins; equally new evidence withholds both; every
withheld lesson is noted (show, shadow bundle's usage row). Stores built by the commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbkit.__main__ import main

FINDING = ("sqli", "login form, id param")


def extract(repo: Path, make_task, task_id: str, status: str, closed: str) -> None:
    record = repo / f"{task_id}.json"
    task = make_task(task_id, findings=[("F1", status, *FINDING)], closed_at=closed)
    record.write_text(json.dumps(task))
    assert main(["lessons", "extract", str(record), "--repo", str(repo)]) == 0


def show(repo: Path, make_task, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    probe = repo / "probe.json"
    probe.write_text(json.dumps(make_task("PROBE", status="running")))
    capsys.readouterr()
    assert (
        main(["lessons", "show", str(probe), "--repo", str(repo), "--format", "json", *extra]) == 0
    )
    return json.loads(capsys.readouterr().out)


def kinds(document: dict) -> list[str]:
    return [row["kind"] for row in document["lessons"]]


def test_contradicting_lessons_are_never_selected_together(
    tmp_path: Path, make_task, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KBKIT_NOW", "2026-11-30T12:00:00Z")
    extract(tmp_path, make_task, "T1", "confirmed", "2026-11-28T10:00:00Z")
    extract(tmp_path, make_task, "T2", "false_positive", "2026-11-29T10:00:00Z")
    capsys.readouterr()
    assert main(["lessons", "lint", "--repo", str(tmp_path)]) == 1
    assert "lessons-conflict" in capsys.readouterr().out
    # the false positive is newer: it wins, the confirmed lesson is withheld with a note
    now = show(tmp_path, make_task, capsys)
    assert kinds(now) == ["negative"]
    [note] = now["withheld"]
    assert "newer evidence (2026-11-29T10:00:00Z)" in note["why"]
    assert note["against"] == [now["lessons"][0]["id"]]
    # as the store stood before the false positive closed, the confirmation stands alone
    before = show(tmp_path, make_task, capsys, "--as-of", "2026-11-28T12:00:00Z")
    assert kinds(before) == ["positive"] and "withheld" not in before
    # the text output notes it too
    capsys.readouterr()
    assert main(["lessons", "show", str(tmp_path / "probe.json"), "--repo", str(tmp_path)]) == 0
    assert f"withheld {note['lesson']}: contradicted by newer evidence" in capsys.readouterr().out
    # a confirmation as new as the false positive: both are withheld
    extract(tmp_path, make_task, "T3", "confirmed", "2026-11-29T10:00:00Z")
    tie = show(tmp_path, make_task, capsys)
    assert tie["lessons"] == [] and len(tie["withheld"]) == 2
    assert all("equally new" in n["why"] for n in tie["withheld"])
    # shadow mode logs the withheld lessons in its usage row
    (tmp_path / "p.txt").write_text("plan")
    (tmp_path / "w.txt").write_text("work")
    monkeypatch.setenv("KB_LESSONS", "shadow")
    assert main(["lessons", "bundle", "--task", str(tmp_path / "probe.json"), "--planner",
                 str(tmp_path / "p.txt"), "--worker", str(tmp_path / "w.txt"), "--out",
                 str(tmp_path / "out"), "--repo", str(tmp_path)]) == 0  # fmt: skip
    assert "withheld" in capsys.readouterr().out
    [usage] = [json.loads(line) for line in (tmp_path / "intake/lessons/usage.jsonl").open()]
    assert usage["lessons"] == [] and len(usage["withheld"]) == 2
