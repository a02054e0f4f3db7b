"""Per-lesson helpful/harmful signal from later outcomes of the tasks that saw a lesson."""

from __future__ import annotations

import json
from pathlib import Path

from kbkit.__main__ import main

ACME = {"company": "acme", "category": "web"}


def extract(repo: Path, *tasks: dict) -> None:
    source = repo / "tasks.jsonl"
    source.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    assert main(["lessons", "extract", "--from", str(source), "--repo", str(repo)]) == 0


def task(task_id: str, *findings: tuple[str, str, str], closed: bool = True) -> dict:
    return {
        "id": task_id,
        "status": "done" if closed else "running",
        **ACME,
        "findings": [
            {"id": f"F{n}", "status": s, "class": c, "summary": m}
            for n, (s, c, m) in enumerate(findings)
        ],
    }


def inject(repo: Path, task_id: str) -> None:
    (repo / "t.json").write_text(json.dumps(task(task_id, closed=False)))
    (repo / "p.txt").write_text("P")
    args = ["--task", str(repo / "t.json"), "--planner", str(repo / "p.txt")]
    args += ["--worker", str(repo / "p.txt"), "--out", str(repo / "out"), "--repo", str(repo)]
    assert main(["lessons", "bundle", *args]) == 0


def test_repeated_false_positives_count_against_a_negative_lesson(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.setenv("KBKIT_LESSONS", "inject")
    echo = ("false_positive", "xss", "search echo")
    extract(tmp_path, task("T0", echo, ("confirmed", "sqli", "login")))
    for n in (1, 2):  # shown the warning, reported the same false positive anyway
        inject(tmp_path, f"T{n}")
        extract(tmp_path, task(f"T{n}", echo))
    inject(tmp_path, "T3")  # shown the sqli lesson, then confirmed an sqli
    extract(tmp_path, task("T3", ("confirmed", "sqli", "search param")))
    new = tmp_path / "new.json"
    new.write_text(json.dumps(task("N", closed=False)))
    capsys.readouterr()
    args = ["lessons", "show", str(new), "--repo", str(tmp_path), "--format", "json"]
    assert main([*args, "--signal"]) == 0
    signal = {x["action"]: x["signal"] for x in json.loads(capsys.readouterr().out)["lessons"]}
    warning = "Do not re-report without new mechanics: search echo (prior false_positive)"
    assert signal[warning] == {"helpful": 0, "harmful": 2}
    assert signal["Confirmed sqli: login"] == {"helpful": 1, "harmful": 0}
    assert signal["Confirmed sqli: search param"] == {"helpful": 0, "harmful": 0}
    assert main(args) == 0  # without --signal: no store walk, no field
    assert all("signal" not in x for x in json.loads(capsys.readouterr().out)["lessons"])
    assert main(["lessons", "lint", "--repo", str(tmp_path)]) == 0
    assert "lessons-harmful" in capsys.readouterr().out


def test_a_mostly_harmful_lesson_ranks_last_once_judged_enough(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    from kbkit.lessons.selection import select_lessons
    from kbkit.lessons.store import LessonStore

    monkeypatch.setenv("KBKIT_LESSONS", "inject")
    echo = ("false_positive", "xss", "search echo")
    other = ("false_positive", "ssrf", "webhook preview")
    extract(tmp_path, task("T0", echo), task("T00", echo), task("T01", other))
    store = LessonStore.for_repo(tmp_path)
    new = {"id": "N", **ACME}
    assert [x.cue for x in select_lessons(new, store)] == ["xss", "ssrf"]  # support 2 > 1
    for n in (1, 2, 3):  # warned, and repeated it anyway: harmful three times
        inject(tmp_path, f"T{n}")
        extract(tmp_path, task(f"T{n}", echo))
    ranked = select_lessons(new, store)
    assert [x.cue for x in ranked] == ["ssrf", "xss"] and ranked[1].support == 5
