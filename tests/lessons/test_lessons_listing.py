"""`kb lessons list` and `kb lessons why` (#40 point 6): what agents are told now, by scope,
with support, last seen and evidence, and one lesson's whole evidence; stores built by
`kb lessons extract` and changed by `kb lessons forget` and `kb lessons retire`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbkit.__main__ import main

HOSTILE = "search box \u202eevil\u202c"


@pytest.fixture
def repo(tmp_path: Path, make_task, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KBKIT_NOW", "2026-11-30T12:00:00Z")
    tasks = [
        make_task("T1", findings=[("F1", "confirmed", "sqli", "login form"),
                                  ("F2", "confirmed", "sqli", "login form")],
                  closed_at="2026-11-28T10:00:00Z"),
        make_task("T2", findings=[("F1", "confirmed", "sqli", "login form"),
                                  ("F2", "false_positive", "xss", HOSTILE)],
                  closed_at="2026-11-29T10:00:00Z"),
        make_task("G1", company=None, category=None, findings=[("F1", "confirmed", "rce", "upload")],
                  closed_at="2026-11-27T10:00:00Z"),
    ]  # fmt: skip
    records = tmp_path / "tasks.jsonl"
    records.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    assert main(["lessons", "extract", "--from", str(records), "--repo", str(tmp_path)]) == 0
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_list_says_what_agents_are_told_by_scope(repo: Path, capsys) -> None:
    code, out = run(capsys, "lessons", "list", "--repo", str(repo), "--format", "json")
    assert code == 0
    told = json.loads(out)["lessons"]
    assert [(t["scope"], t["kind"], t["support"]) for t in told] == [
        ("generic", "positive", 1), ("acme / web", "positive", 2), ("acme / web", "negative", 1),
    ]  # fmt: skip
    sqli = told[1]
    assert sqli["evidence_rows"] == 3 and sqli["last_seen"] == "2026-11-29T10:00:00Z"
    assert [e["source"] for e in sqli["evidence"]] == ["finding:T2/F1", "finding:T1/F2", "finding:T1/F1"]  # fmt: skip
    assert sqli["line"] == "- [positive; sqli; support 2] Confirmed sqli: login form"
    code, text = run(capsys, "lessons", "list", "--repo", str(repo))
    assert text.splitlines()[0] == "generic:" and "acme / web:" in text
    assert "support 2 (tasks), last seen 2026-11-29T10:00:00Z" in text
    assert "\u202e" not in text and "kb lessons list: 3 lesson(s) selectable" in text
    # retired: no longer told
    assert main(["lessons", "retire", sqli["id"], "--reason", "x", "--repo", str(repo)]) == 0
    code, out = run(capsys, "lessons", "list", "--repo", str(repo), "--format", "json")
    assert sqli["id"] not in out


def test_why_gives_one_lessons_whole_evidence(repo: Path, capsys) -> None:
    _code, out = run(capsys, "lessons", "list", "--repo", str(repo), "--format", "json")
    sqli = json.loads(out)["lessons"][1]["id"]
    assert main(["lessons", "forget", "--source", "finding:T1/F2", "--repo", str(repo)]) == 0
    code, out = run(capsys, "lessons", "why", sqli, "--repo", str(repo), "--format", "json")
    assert code == 0
    story = json.loads(out)
    assert story["state"] == "selectable" and story["told"]["support"] == 2
    assert [(e["source"], e["state"]) for e in story["evidence"]] == [
        ("finding:T2/F1", "live"), ("finding:T1/F2", "forgotten"), ("finding:T1/F1", "live"),
    ]  # fmt: skip
    code, text = run(capsys, "lessons", "why", sqli, "--repo", str(repo))
    assert "state: selectable" in text and "finding:T1/F2  task T1  forgotten" in text
    assert main(["lessons", "why", "L0000", "--repo", str(repo)]) == 2
    assert "no lesson 'L0000'" in capsys.readouterr().err
