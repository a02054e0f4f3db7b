"""The eight `kb lessons` commands through the real entry point and a real subprocess."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kbkit.__main__ import main
from kbkit.commands.registry import COMMANDS
from kbkit.infra.jsonl import read_jsonl
from kbkit.lessons.usage import hash_arm

PROJECT = Path(__file__).resolve().parents[2]
LESSON_COMMANDS = sorted(name for name in COMMANDS if name.startswith("lessons "))


def put(path: Path, data: Any) -> str:
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def logs(repo: Path) -> dict[str, bytes]:
    folder = repo / "intake"
    return (
        {str(p.relative_to(repo)): p.read_bytes() for p in folder.rglob("*.jsonl")}
        if folder.exists()
        else {}
    )


@pytest.fixture
def seeded(tmp_path: Path, make_task) -> Path:
    """A repo whose store holds lessons from two closed tasks of acme/web."""
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(
        "".join(
            json.dumps(t) + "\n"
            for t in [
                make_task(
                    "T1",
                    findings=[
                        ("F1", "confirmed", "sqli", "login form"),
                        ("F2", "false_positive", "xss", "search box"),
                    ],
                    retests=[("R1", "F1", "reproduced")],
                ),
                make_task("T2", findings=[("F1", "confirmed", "sqli", "login form")]),
            ]
        )
    )
    assert main(["lessons", "extract", "--from", str(tasks), "--repo", str(tmp_path)]) == 0
    return tmp_path


def test_every_lessons_command_is_registered_documented_and_has_help(capsys) -> None:
    assert [
        f"lessons {v}"
        for v in (
            "adopt",
            "audit",
            "bundle",
            "extract",
            "forget",
            "lint",
            "list",
            "outcome",
            "promote",
            "replay",
            "report",
            "retire",
            "show",
            "why",
        )
    ] == LESSON_COMMANDS
    table = (PROJECT / "docs" / "checking.md").read_text(encoding="utf-8")
    for name in LESSON_COMMANDS:
        assert f"| `kb {name}` |" in table
        with pytest.raises(SystemExit) as exit_info:
            main([*name.split(), "--help"])
        assert exit_info.value.code == 0
        assert f"usage: kb {name}" in capsys.readouterr().out


def test_extract_is_idempotent_and_reports_counts(tmp_path: Path, make_task, capsys) -> None:
    task = put(
        tmp_path / "t.json",
        make_task(findings=[("F1", "confirmed", "sqli", "x"), ("F2", "confirmed", "", "no class")]),
    )
    assert main(["lessons", "extract", task]) == 0
    out = capsys.readouterr().out
    assert "1 new lesson(s), 1 new evidence row(s)" in out and "refused finding:T1/F2" in out
    before = logs(tmp_path)
    assert main(["lessons", "extract", task]) == 0
    assert "0 new lesson(s), 0 new evidence row(s)" in capsys.readouterr().out
    assert logs(tmp_path) == before


def test_extract_skips_running_tasks(tmp_path: Path, make_task, capsys) -> None:
    task = put(
        tmp_path / "t.json",
        make_task(status="running", findings=[("F1", "confirmed", "sqli", "x")]),
    )
    assert main(["lessons", "extract", task]) == 0
    assert "skipped T1: not a terminal task" in capsys.readouterr().out
    assert not (tmp_path / "intake" / "lessons" / "lessons.jsonl").exists()


BAD_FILES = [
    ("bad.json", b'{"id": "T1", "status": ', "bad.json: not valid JSON"),
    ("bad.json", b"\xff\xfe{}", "bad.json: not UTF-8"),
    ("bad.json", b'["a list"]', "must be a JSON object"),
    ("bad.json", b'{"status": "done"}', "'id' is a required property"),
    (
        "bad.json",
        b'{"id": "T1", "status": "done", "findings": [{"id": "F1"}]}',
        "at findings/0: 'status' is a required property",
    ),
    ("bad.json", b'{"id": "T\\n1", "status": "done"}', "at id"),
    ("bad.json", b'{"id": "T1", "status": "done", "metrics": {"tokens": -1}}', "metrics/tokens"),
    (
        "bad.json",
        b'{"id": "T1", "status": "done", "findings": [{"id": "F1", "status": "x"},'
        b' {"id": "F1", "status": "y"}]}',
        "two findings with the same id",
    ),
]


@pytest.mark.parametrize(("name", "data", "message"), BAD_FILES)
def test_bad_task_record_is_one_clear_error_and_writes_nothing(
    seeded: Path,
    name: str,
    data: bytes,
    message: str,
    capsys,
) -> None:
    (seeded / name).write_bytes(data)
    before = logs(seeded)
    assert main(["lessons", "extract", str(seeded / name), "--repo", str(seeded)]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1
    assert logs(seeded) == before


@pytest.mark.parametrize(
    ("lines", "where"),
    [
        (
            [b'{"id": "A", "status": "done"}', b"{oops", b'{"id": "C", "status": "done"}'],
            "tasks.jsonl:2: not valid JSON",
        ),
        (
            [b'{"id": "A", "status": "done"}', b"", b'{"id": "C", "status": "done"}', b"\xc3\x28"],
            "tasks.jsonl:4: not UTF-8",
        ),
        ([b'{"id": "A", "status": "done"}', b'{"id": "B"}'], "tasks.jsonl:2: task record"),
    ],
)
def test_bad_jsonl_names_file_and_line_and_writes_nothing(
    tmp_path: Path,
    lines: list[bytes],
    where: str,
    capsys,
) -> None:
    (tmp_path / "tasks.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    assert main(["lessons", "extract", "--from", "tasks.jsonl"]) == 1
    assert where in capsys.readouterr().err
    assert logs(tmp_path) == {}


def test_usage_errors_exit_2(tmp_path: Path, capsys) -> None:
    assert main(["lessons", "extract"]) == 2
    assert main(["lessons", "forget", "--source", "nonsense"]) == 2
    assert main(["lessons", "promote", "--min-support", "0"]) == 2
    assert main(["lessons", "show", "x.json", "--repo", str(tmp_path / "missing")]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_show_text_json_and_stdin(seeded: Path, make_task, capsys, monkeypatch) -> None:
    task = put(seeded / "new.json", {"id": "T9", "status": "running", "company": "acme"})
    assert main(["lessons", "show", task]) == 0
    out = capsys.readouterr().out
    assert (
        out.startswith("<prior-outcomes>\n")
        and "support 2] Confirmed and reproduced on retest sqli: login form" in out
    )
    assert main(["lessons", "show", task, "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    # Confirmed and Reproduced of one finding share one slot (#15)
    assert [x["kind"] for x in document["lessons"]] == ["positive", "negative"]

    for task_id, expected in (("T1", []), ("T2", ["positive", "negative"])):
        record = json.dumps({"id": task_id, "status": "done", "company": "acme"}).encode()
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(record)))
        assert main(["lessons", "show", "-", "--format", "json"]) == 0
        # a task never sees a lesson its own evidence supports (T1 supports all three)
        shown = json.loads(capsys.readouterr().out)["lessons"]
        assert [x["kind"] for x in shown] == expected
        assert all(x["action"] != "Confirmed sqli: login form" for x in shown)
    assert not (seeded / "intake" / "lessons" / "usage.jsonl").exists()  # show never logs


def bundle(repo: Path, task: dict[str, Any], out: str, *extra: str) -> int:
    put(repo / "task.json", task)
    (repo / "p.txt").write_text("PLANNER PROMPT\n")
    (repo / "w.txt").write_text("WORKER PROMPT")
    return main(
        [
            "lessons",
            "bundle",
            "--task",
            str(repo / "task.json"),
            "--planner",
            str(repo / "p.txt"),
            "--worker",
            str(repo / "w.txt"),
            "--out",
            str(repo / out),
            "--repo",
            str(repo),
            *extra,
        ]
    )


def usage_rows(repo: Path) -> list[dict[str, Any]]:
    return [r.data for r in read_jsonl(repo / "intake" / "lessons" / "usage.jsonl").rows]


NEW_TASK = {"id": "T9", "status": "running", "company": "acme", "category": "web"}


def test_bundle_off_changes_nothing_and_logs_nothing(seeded: Path) -> None:
    assert bundle(seeded, NEW_TASK, "out") == 0
    assert (seeded / "out" / "planner.txt").read_text() == "PLANNER PROMPT\n"
    assert (seeded / "out" / "worker.txt").read_text() == "WORKER PROMPT"
    assert usage_rows(seeded) == []


@pytest.mark.parametrize("variable", ["KBKIT_LESSONS", "KB_LESSONS", "ARTEX_RSI_LESSONS"])
def test_bundle_shadow_logs_but_keeps_prompts(seeded: Path, monkeypatch, variable: str) -> None:
    monkeypatch.setenv(variable, "shadow")
    assert bundle(seeded, NEW_TASK, "out") == 0
    assert (seeded / "out" / "planner.txt").read_text() == "PLANNER PROMPT\n"
    (row,) = usage_rows(seeded)
    assert row["task"] == "T9" and row["mode"] == "shadow" and len(row["lessons"]) == 3
    assert row["at"].endswith("Z")


@pytest.mark.parametrize("variable", ["KBKIT_LESSONS", "KB_LESSONS"])
def test_bundle_inject_appends_the_block_after_each_prompt(
    seeded: Path, monkeypatch, variable: str
) -> None:
    monkeypatch.setenv(variable, "inject")
    monkeypatch.setenv("ARTEX_RSI_LESSONS", "off")  # the newer name wins
    assert bundle(seeded, NEW_TASK, "out") == 0
    for name, prompt in (("planner.txt", "PLANNER PROMPT"), ("worker.txt", "WORKER PROMPT")):
        text = (seeded / "out" / name).read_text()
        assert text.startswith(f"{prompt}\n\n<prior-outcomes>\n")
        assert text.endswith("</prior-outcomes>\n")
    meta = json.loads((seeded / "out" / "lessons.json").read_text())
    assert meta["mode"] == "inject" and len(meta["lessons"]) == 2
    ids = [lid for x in meta["lessons"] for lid in [x["id"], *x["also"]]]
    assert usage_rows(seeded)[0]["lessons"] == ids and len(ids) == 3


def test_bad_mode_is_a_configuration_error(seeded: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("KBKIT_LESSONS", "injct")
    assert bundle(seeded, NEW_TASK, "out") == 2
    assert "KBKIT_LESSONS='injct'" in capsys.readouterr().err
    assert not (seeded / "out").exists()


def test_assign_hash_is_stable_per_task_and_splits_tasks(seeded: Path, monkeypatch) -> None:
    monkeypatch.setenv("KBKIT_LESSONS", "inject")
    arms = {}
    for n in range(16):
        task = dict(NEW_TASK, id=f"N{n}")
        assert bundle(seeded, task, f"out{n}", "--assign", "hash") == 0
        meta = json.loads((seeded / f"out{n}" / "lessons.json").read_text())
        arms[task["id"]] = meta["mode"]
        injected = "<prior-outcomes>" in (seeded / f"out{n}" / "planner.txt").read_text()
        assert injected == (meta["mode"] == "inject")
    assert set(arms.values()) == {"shadow", "inject"}
    assert all(hash_arm(task) == arm for task, arm in arms.items())
    assert {r["task"]: r["mode"] for r in usage_rows(seeded)} == arms
    assert all(r["assign"] == "hash" for r in usage_rows(seeded))


def test_outcome_text_and_json(tmp_path: Path, make_task, capsys) -> None:
    task = put(
        tmp_path / "t.json",
        make_task(findings=[("F1", "confirmed", "a", "x"), ("F2", "false_positive", "a", "y")]),
    )
    assert main(["lessons", "outcome", task]) == 0
    out = capsys.readouterr().out
    assert "tokens per confirmed     1000" in out and "false-positive rate      50.0%" in out
    assert main(["lessons", "outcome", task, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["confirmed"] == 1


def test_report_compares_tasks_with_and_without_lessons(
    seeded: Path, monkeypatch, make_task, capsys
) -> None:
    monkeypatch.setenv("KBKIT_LESSONS", "inject")
    assert bundle(seeded, NEW_TASK, "out") == 0
    closed = make_task("T9", findings=[("F1", "confirmed", "rce", "upload")])
    assert main(["lessons", "extract", put(seeded / "t9.json", closed)]) == 0
    capsys.readouterr()
    assert main(["lessons", "report"]) == 0
    out = capsys.readouterr().out
    assert "3 closed task(s)" in out and "Mantel-Haenszel" in out and "not causal" in out
    assert "inject_shown vs history (observational, not causal)  (tasks 1 vs 2)" in out
    assert main(["lessons", "report", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["arms"]["inject_shown"] == 1 and report["arms"]["history"] == 2


def test_lint_finds_conflicts_duplicates_and_dangling_evidence(
    tmp_path: Path,
    make_task,
    capsys,
) -> None:
    tasks = [
        make_task("T1", findings=[("F1", "confirmed", "xss", "search box reflects input")]),
        make_task("T2", findings=[("F1", "false_positive", "xss", "search box reflects input")]),
        make_task("T3", findings=[("F1", "confirmed", "xss", "Search  box reflects INPUT")]),
        make_task("T4", findings=[("F1", "confirmed", "xss", "search box reflects inputs")]),
    ]
    for task in tasks:
        assert main(["lessons", "extract", put(tmp_path / f"{task['id']}.json", task)]) == 0
    with (tmp_path / "intake/lessons/evidence.jsonl").open("a") as handle:
        handle.write(
            json.dumps(
                {
                    "lesson": "Lmissing",
                    "source_kind": "finding",
                    "source_id": "T5/F1",
                    "task": "T5",
                    "at": "x",
                }
            )
            + "\n"
        )
    capsys.readouterr()
    assert main(["lessons", "lint"]) == 1
    out = capsys.readouterr().out
    for rule in (
        "lessons-conflict",
        "lessons-exact-duplicate",
        "lessons-near-duplicate",
        "lessons-missing-task",
        "lessons-missing-lesson",
        "lessons-never-selected",
    ):
        assert rule in out
    assert "intake/lessons/lessons.jsonl:" in out
    assert main(["lessons", "lint", "--format", "json"]) == 1
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert summary["errors"] >= 3 and summary["lessons"] == 4


def test_lint_passes_a_clean_store(seeded: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("KBKIT_LESSONS", "shadow")
    for n in range(3):
        assert bundle(seeded, dict(NEW_TASK, id=f"N{n}"), "out") == 0
    capsys.readouterr()
    assert main(["lessons", "lint"]) == 0
    assert "passed: 0 error(s), 0 warning(s), 3 lesson(s)" in capsys.readouterr().out


def test_forget_tombstones_and_recomputes_support(seeded: Path, capsys) -> None:
    assert main(["lessons", "forget", "--source", "finding:T1/F2", "--reason", "wrong"]) == 0
    out = capsys.readouterr().out
    assert "1 evidence row(s)" in out and "no longer selectable" in out
    assert main(["lessons", "forget", "--source", "finding:T1/F2"]) == 1
    assert "nothing forgotten" in capsys.readouterr().err
    tombstones = read_jsonl(seeded / "intake/lessons/tombstones.jsonl").rows
    assert [r.data["source_id"] for r in tombstones] == ["T1/F2"]
    put(seeded / "new.json", NEW_TASK)
    assert main(["lessons", "show", str(seeded / "new.json"), "--format", "json"]) == 0
    assert [x["kind"] for x in json.loads(capsys.readouterr().out)["lessons"]] == ["positive"]


def test_promote_writes_intake_rows_once(seeded: Path, capsys) -> None:
    assert main(["lessons", "promote", "--min-support", "2", "--dry-run"]) == 1
    assert "would promote" in capsys.readouterr().out
    assert not (seeded / "intake" / "events.jsonl").exists()
    assert main(["lessons", "promote", "--min-support", "2"]) == 0
    events = [r.data for r in read_jsonl(seeded / "intake/events.jsonl").rows]
    statuses = [r.data for r in read_jsonl(seeded / "intake/status.jsonl").rows]
    assert len(events) == 1 and len(statuses) == 1
    event, status = events[0], statuses[0]
    assert set(event) == {"source_kind", "source_id", "repo", "title", "summary", "recorded_at"}
    assert event["source_kind"] == "lesson" and event["repo"] is None
    assert "Confirmed sqli: login form" in event["summary"]
    assert status == {
        "source_kind": "lesson",
        "source_id": event["source_id"],
        "state": "pending",
        "attempts": 0,
        "seq": 0,
        "batch_id": None,
        "at": "2026-11-30T12:00:00Z",  # the suite's pinned clock (KBKIT_NOW)
    }
    assert main(["lessons", "promote", "--min-support", "2"]) == 0
    assert "0 lesson(s) promoted" in capsys.readouterr().out.splitlines()[-1]
    assert main(["lessons", "promote", "--min-support", "1"]) == 0
    assert len(read_jsonl(seeded / "intake/events.jsonl").rows) == 3
    capsys.readouterr()
    assert main(["intake", "check", "--repo", str(seeded)]) == 0  # rows fit the ledger schemas
    assert main(["intake", "status", "--repo", str(seeded), "--format", "json"]) == 0
    assert '"lesson"' in capsys.readouterr().out


@pytest.mark.slow
def test_real_subprocess(seeded: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("KBKIT_INTAKE_ROOT", "KBKIT_LESSONS")}
    put(seeded / "new.json", NEW_TASK)
    shown = subprocess.run(
        [
            sys.executable,
            "-m",
            "kbkit",
            "lessons",
            "show",
            str(seeded / "new.json"),
            "--repo",
            str(seeded),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert shown.returncode == 0 and "reproduced on retest sqli: login form" in shown.stdout
    (seeded / "bad.jsonl").write_bytes(b'{"id": "A", "status": "done"}\nnot json\n')
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "kbkit",
            "lessons",
            "extract",
            "--from",
            str(seeded / "bad.jsonl"),
            "--repo",
            str(seeded),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert bad.returncode == 1 and "bad.jsonl:2: not valid JSON" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_intake_root_override_moves_the_store(tmp_path: Path, make_task, monkeypatch) -> None:
    monkeypatch.setenv("KBKIT_INTAKE_ROOT", str(tmp_path / "elsewhere"))
    task = put(tmp_path / "t.json", make_task(findings=[("F1", "confirmed", "a", "b")]))
    assert main(["lessons", "extract", task]) == 0
    assert (tmp_path / "elsewhere" / "lessons" / "lessons.jsonl").exists()
    assert not (tmp_path / "intake").exists()


def test_lint_accepts_known_tasks_and_github_format(tmp_path: Path, make_task, capsys) -> None:
    task = make_task("T1", findings=[("F1", "confirmed", "xss", "search box")])
    assert main(["lessons", "extract", put(tmp_path / "t1.json", task)]) == 0
    with (tmp_path / "intake/lessons/evidence.jsonl").open("a") as handle:
        row = {
            "lesson": json.loads((tmp_path / "intake/lessons/lessons.jsonl").read_text())["id"],
            "source_kind": "finding",
            "source_id": "T7/F1",
            "task": "T7",
            "at": "x",
        }
        handle.write(json.dumps(row) + "\n")
    capsys.readouterr()
    assert main(["lessons", "lint", "--format", "github"]) == 1
    # the one printer: a whole-file finding (line 0) carries no line= property
    assert "::error file=intake/lessons/evidence.jsonl,title=lessons-missing-task::" in (
        capsys.readouterr().out
    )
    (tmp_path / "known.jsonl").write_text(json.dumps({"id": "T7", "status": "done"}) + "\n")
    assert main(["lessons", "lint", "--tasks", "known.jsonl"]) == 0


def test_bundle_refuses_a_non_utf8_prompt(seeded: Path, capsys) -> None:
    put(seeded / "task.json", NEW_TASK)
    (seeded / "p.txt").write_bytes(b"\xff\xfe")
    (seeded / "w.txt").write_text("ok")
    args = [
        "lessons",
        "bundle",
        "--task",
        str(seeded / "task.json"),
        "--planner",
        str(seeded / "p.txt"),
        "--worker",
        str(seeded / "w.txt"),
        "--out",
        str(seeded / "o"),
    ]
    assert main(args) == 1
    assert "p.txt: not UTF-8" in capsys.readouterr().err and not (seeded / "o").exists()


def test_extract_and_forget_leave_the_selection_view_current(
    seeded: Path, make_task, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """Readers never pay for a rebuild after a write: extract/forget refresh the view."""
    import kbkit.lessons.view as view_module

    def no_rebuild(*args: object, **kwargs: object) -> None:
        raise AssertionError("show rebuilt the selection view after a write")

    task = seeded / "new.json"
    task.write_text(json.dumps(make_task("T9", status="running", findings=[])))
    more = seeded / "more.json"
    more.write_text(json.dumps(make_task("T3", findings=[("F1", "confirmed", "ssrf", "webhook")])))
    assert main(["lessons", "extract", str(more), "--repo", str(seeded)]) == 0
    with monkeypatch.context() as patch:
        patch.setattr(view_module, "build_view", no_rebuild)
        assert main(["lessons", "show", str(task), "--repo", str(seeded)]) == 0
    assert "webhook" in capsys.readouterr().out
    assert main(["lessons", "forget", "--source", "task:T3", "--repo", str(seeded)]) == 0
    with monkeypatch.context() as patch:
        patch.setattr(view_module, "build_view", no_rebuild)
        capsys.readouterr()
        assert main(["lessons", "show", str(task), "--repo", str(seeded)]) == 0
    assert "webhook" not in capsys.readouterr().out
