"""Support is distinct tasks, everywhere (#40 point 4): one task reporting the same finding
five times is support 1 in selection (`kb lessons show`), promotion (`kb lessons promote`)
and the report (`kb report`), on stores built through the commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbkit.__main__ import main

REPEATED = [(f"F{n}", "confirmed", "sqli", "login form, id param") for n in range(1, 6)]


def extract(repo: Path, make_task, *tasks: dict) -> None:
    records = repo / "tasks.jsonl"
    records.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    assert main(["lessons", "extract", "--from", str(records), "--repo", str(repo)]) == 0


def shown_support(repo: Path, make_task, capsys: pytest.CaptureFixture[str]) -> list[int]:
    probe = repo / "probe.json"
    probe.write_text(json.dumps(make_task("PROBE", status="running")))
    capsys.readouterr()
    assert main(["lessons", "show", str(probe), "--repo", str(repo), "--format", "json"]) == 0
    return [row["support"] for row in json.loads(capsys.readouterr().out)["lessons"]]


@pytest.mark.slow
def test_one_task_repeating_a_finding_is_support_one(
    tmp_path: Path, make_task, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KBKIT_NOW", "2026-11-30T12:00:00Z")
    (tmp_path / "knowledge").mkdir()
    extract(
        tmp_path, make_task, make_task("T1", findings=REPEATED, closed_at="2026-11-29T10:00:00Z")
    )
    assert len((tmp_path / "intake/lessons/evidence.jsonl").read_text().splitlines()) == 5
    assert shown_support(tmp_path, make_task, capsys) == [1]
    assert "support 1]" in (out := _show_text(tmp_path, make_task, capsys)), out
    assert (
        main(["lessons", "promote", "--min-support", "3", "--dry-run", "--repo", str(tmp_path)])
        == 0
    )
    assert "0 lesson(s) would promote" in capsys.readouterr().out
    report = _report(tmp_path, capsys)
    by_label = {row["label"]: row["lessons"] for row in report["lessons"]["support"]}
    assert by_label["1"] == 1 and by_label["3-4"] == by_label["5-9"] == 0
    # two more tasks: three distinct tasks, support 3, and now it is promoted
    extract(tmp_path, make_task,
            make_task("T2", findings=REPEATED[:2], closed_at="2026-11-29T11:00:00Z"),
            make_task("T3", findings=REPEATED[:1], closed_at="2026-11-29T12:00:00Z"))  # fmt: skip
    assert shown_support(tmp_path, make_task, capsys) == [3]
    assert main(["lessons", "promote", "--min-support", "3", "--repo", str(tmp_path)]) == 0
    assert "(support 3)" in capsys.readouterr().out
    assert (
        main(["lessons", "promote", "--min-support", "4", "--dry-run", "--repo", str(tmp_path)])
        == 0
    )


def _show_text(repo: Path, make_task, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["lessons", "show", str(repo / "probe.json"), "--repo", str(repo)]) == 0
    return capsys.readouterr().out


def _report(repo: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    capsys.readouterr()
    assert main(["report", "--repo", str(repo), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)
