"""`kb lessons replay`: past tasks in closing order, each warned only by earlier lessons."""

from __future__ import annotations

import json
from pathlib import Path

from kbkit.__main__ import main


def run(repo: Path, tasks: list[dict], *args: str, capsys) -> dict:
    source = repo / "tasks.jsonl"
    source.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    assert main(["lessons", "extract", "--from", str(source), "--repo", str(repo)]) == 0
    capsys.readouterr()
    assert main(["lessons", "replay", "--repo", str(repo), "--format", "json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def fp(task: str, at: str, summary: str, company: str = "acme", status: str = "false_positive"):
    return {
        "id": task,
        "status": "done",
        "company": company,
        "category": "web",
        "closed_at": at,
        "findings": [{"id": "F1", "status": status, "class": "xss", "summary": summary}],
    }


def test_only_earlier_lessons_warn(tmp_path: Path, capsys) -> None:
    tasks = [
        fp("T3", "2026-11-03T00:00:00Z", "search echo"),  # warned by T1 (and T2)
        fp("T1", "2026-11-01T00:00:00Z", "search echo"),  # first: nothing earlier
        fp("T2", "2026-11-02T00:00:00Z", "search echo", status="duplicate"),
        fp("T4", "2026-11-04T00:00:00Z", "other thing"),  # a new summary: not warned
        fp("T5", "2026-11-05T00:00:00Z", "search echo", company="globex"),  # another client
    ]
    result = run(tmp_path, tasks, capsys=capsys)
    assert result["tasks"] == 5
    assert result["negatives"] == {"duplicate": 1, "false_positive": 4}
    # T2's duplicate was described by T1's lesson; T3 by T1; T5 sees no acme lesson
    assert result["warned"] == {"duplicate": 1, "false_positive": 1}
    assert result["scope"] == "company+generic"


def test_open_scope_lets_another_client_warn(tmp_path: Path, capsys) -> None:
    tasks = [
        fp("T1", "2026-11-01T00:00:00Z", "search echo"),
        fp("T2", "2026-11-02T00:00:00Z", "search echo", company="globex"),
    ]
    assert run(tmp_path, tasks, "--scope", "open", capsys=capsys)["warned"] == {"false_positive": 1}


def test_tasks_closing_together_do_not_warn_each_other(tmp_path: Path, capsys) -> None:
    tasks = [fp(f"T{n}", "2026-11-01T00:00:00Z", "search echo") for n in range(3)]
    assert run(tmp_path, tasks, capsys=capsys)["warned"] == {}


def test_text_output(tmp_path: Path, capsys) -> None:
    run(
        tmp_path,
        [fp("T1", "2026-11-01T00:00:00Z", "a"), fp("T2", "2026-11-02T00:00:00Z", "a")],
        capsys=capsys,
    )
    assert main(["lessons", "replay", "--repo", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "replayed 2 task(s)" in out and "false_positive: 1 of 2 already warned" in out
