"""JSON nested 100k deep, fed to every reader: one bad record is a problem, a quarantine or a
rejection with a reason, never a crash (exit 3), and the valid records beside it survive.

`json.loads` raises RecursionError (not ValueError) on such input; `kbkit.infra.json_input` turns
it into a ValueError, and the guard test below keeps every reader on that helper.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kbkit.__main__ import main
from kbkit.infra import json_input
from kbkit.infra.jsonl import encode_row, read_jsonl
from kbkit.intake.ledger import load_events
from kbkit.intake.ledger_reading import read_ledger
from kbkit.intake.sources.drop import render_comment
from tests.curator.conftest import batch, make_clone, row

PACKAGE = Path(__file__).resolve().parents[2] / "tools" / "kbkit"
FIXTURES = Path(__file__).resolve().parents[1] / "intake" / "fixtures"
DEPTH = 100_000
DEEP_ARRAY = "[" * DEPTH + "]" * DEPTH
DEEP_OBJECT = '{"a":' * DEPTH + "1" + "}" * DEPTH
SLUG = "kbkit-dev/kbkit"

# Readers of JSON that kbkit itself ships or writes for itself, and gh's output (validated by
# kbkit.vcs.github, issue #10 class 6); every other json.loads goes through kbkit.infra.json_input.
TRUSTED = {
    "curator/schema.py": "the package's own schema files",
    "intake/schemas.py": "the package's own schema files",
    "lessons/task_records.py": "the package's own schema file (records use json_input)",
    "demo.py": "the package's own demo samples",
    "policy/schema.py": "the package's own schema file",
    "checks/reporting.py": "its own reporter's JSON output",
    "vcs/github.py": "gh output (kbkit.vcs.github; issue #10 class 6)",
    "infra/json_input.py": "the helper itself",
}


def drop_record(**changes: Any) -> dict[str, Any]:
    return json.loads((FIXTURES / "consumer_drop_record.json").read_text()) | changes


@pytest.mark.parametrize("text", [DEEP_ARRAY, DEEP_OBJECT, "[" * DEPTH])
def test_the_helper_turns_any_depth_into_a_value_error(text: str) -> None:
    for data in (text, text.encode()):
        with pytest.raises(ValueError, match="nested too deeply"):
            json_input.loads(data)
    with pytest.raises(json.JSONDecodeError) as caught:
        json_input.raw_decode("  " + text, 2)
    assert caught.value.lineno == 1
    assert json_input.loads('{"a": [[1]]}') == {"a": [[1]]}
    assert json_input.raw_decode(' [1] {"b": 2}', 1) == ([1], 4)


def test_every_json_reader_uses_the_helper() -> None:
    """No new reader can forget RecursionError: raw json.loads/raw_decode only where trusted."""
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        text = path.read_text("utf-8")
        if rel not in TRUSTED and re.search(r"json\.load|JSONDecoder\(|\.raw_decode\(", text):
            offenders.append(rel)
    assert offenders == []


def _ledger(path: Path, middle: str) -> None:
    good = [{"source_kind": "merged_pr", "source_id": f"PR #{n}"} for n in (1, 2)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(encode_row(good[0]) + middle.encode() + b"\n" + encode_row(good[1]))


@pytest.mark.parametrize("deep", [DEEP_ARRAY, DEEP_OBJECT])
def test_a_deep_ledger_line_is_a_problem_and_its_neighbours_are_read(
    tmp_path: Path, deep: str
) -> None:
    path = tmp_path / "intake" / "events.jsonl"
    _ledger(path, deep)
    contents = read_jsonl(path)
    assert [r.line for r in contents.rows] == [1, 3]
    assert [(p.line, p.torn) for p in contents.problems] == [(2, False)]
    assert "nested too deeply" in contents.problems[0].message
    rows, problems = read_ledger(path.parent, "events.jsonl")  # the fast path falls back
    assert [r["source_id"] for r in rows] == ["PR #1", "PR #2"]
    assert [p.line for p in problems] == [2]


def test_intake_commands_report_a_deep_ledger_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _ledger(tmp_path / "intake" / "events.jsonl", DEEP_ARRAY)
    assert main(["intake", "check"]) == 1
    assert "events.jsonl:2" in capsys.readouterr().out
    assert main(["intake", "status"]) in (0, 1)
    assert main(["intake", "compact", "--check"]) in (0, 1)


def test_a_deep_drop_file_is_quarantined_and_the_valid_one_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drops = tmp_path / "drops"
    drops.mkdir()
    (drops / "good.json").write_text(json.dumps(drop_record()))
    (drops / "deep.json").write_text(DEEP_ARRAY)
    assert main(["intake", "collect", "--drops", str(drops)]) == 1
    reason = (drops / "quarantine" / "deep.json.reason").read_text()
    assert "malformed JSON" in reason and "nested too deeply" in reason
    assert "deep.json" in capsys.readouterr().err
    assert list(load_events(tmp_path / "intake")) == [
        ("bugfix_run", "kbkit-dev/kbkit:bugfix-2026-11-28-2210")
    ]


def test_a_deep_mailbox_comment_is_refused_and_the_valid_one_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep_body = render_comment(drop_record(run_id="deep")).split("```json")[0]
    deep_body += "```json\n" + "[" * 30_000 + "\n```\n"  # GitHub caps a comment at 65536
    comments = [
        {
            "id": cid,
            "body": body,
            "author_association": "MEMBER",
            "user": {"login": "someone"},
            "html_url": f"https://github.com/{SLUG}/issues/3#issuecomment-{cid}",
            "created_at": "2026-11-30T08:00:00Z",
        }
        for cid, body in ((1, deep_body), (2, render_comment(drop_record())))
    ]
    (tmp_path / "comments.json").write_text(json.dumps(comments))
    code = main(["intake", "mailbox", "--from", "comments.json", "--slug", SLUG])
    out, err = capsys.readouterr()
    assert code in (0, 1)
    assert "nested too deeply" in out + err
    assert list(load_events(tmp_path / "intake")) == [
        ("bugfix_run", "kbkit-dev/kbkit:bugfix-2026-11-28-2210")
    ]


@pytest.mark.parametrize("deep", [DEEP_ARRAY, DEEP_OBJECT])
def test_deep_github_pages_are_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], deep: str
) -> None:
    (tmp_path / "pulls.json").write_text(deep)
    code = main(["intake", "record-prs", "--from", "pulls.json", "--slug", SLUG])
    assert code == 1
    assert "pulls.json:1: malformed JSON: nested too deeply" in capsys.readouterr().err


def test_a_deep_cursor_file_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "intake").mkdir()
    (tmp_path / "intake" / "cursor.json").write_text(DEEP_OBJECT)
    (tmp_path / "pulls.json").write_text("[]")
    code = main(["intake", "record-prs", "--from", "pulls.json", "--slug", SLUG])
    assert code == 1
    assert "not a valid cursor file" in capsys.readouterr().err


@pytest.mark.slow
def test_deep_curator_inputs_are_rejected_with_a_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clone = make_clone(tmp_path / "clone")
    repo = ["--repo", str(clone)]
    (tmp_path / "batch.json").write_text(json.dumps(batch("PR #101").to_dict()))
    (tmp_path / "reply.json").write_text(DEEP_OBJECT)
    (tmp_path / "deep.json").write_text(DEEP_ARRAY)
    files = ["--batch", str(tmp_path / "batch.json"), "--proposals", str(tmp_path / "reply.json")]
    from kbkit.curator import KnowledgeCurator

    validation = KnowledgeCurator(clone).validate_proposals(DEEP_OBJECT, batch("PR #101"))
    assert validation.accepted == () and "nested too deeply" in (validation.reply_error or "")
    for argv in (
        ["curate", "validate", *repo, *files],
        ["curate", "apply", *repo, "--validation", str(tmp_path / "deep.json")],
        ["curate", "prompt", *repo, "--batch", str(tmp_path / "deep.json")],
    ):
        assert main(argv) == 1
        assert "not valid JSON (nested too deeply" in capsys.readouterr().err
    # a valid reply next to nothing deep still works: the helper changed no valid parse
    (tmp_path / "reply.json").write_text(json.dumps({"proposals": [row()]}))
    assert main(["curate", "validate", *repo, *files]) == 0


def test_a_deep_crash_journal_is_reported_not_guessed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kbkit.curator.journal import JOURNAL, state_dir

    clone = make_clone(tmp_path / "clone")
    state_dir(clone).mkdir(parents=True, exist_ok=True)
    (state_dir(clone) / JOURNAL).write_text(DEEP_OBJECT)
    assert main(["curate", "recover", "--repo", str(clone)]) == 1
    assert "the crash journal cannot be used" in capsys.readouterr().err


def _task(task_id: str) -> dict[str, Any]:
    return {
        "id": task_id,
        "status": "done",
        "company": "acme",
        "category": "web",
        "findings": [{"id": "F1", "status": "confirmed", "class": "xss", "summary": "s"}],
        "retests": [],
        "metrics": {"tokens": 100, "tool_calls": 3},
    }


def test_deep_task_records_are_input_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "deep.json").write_text(DEEP_ARRAY)
    (tmp_path / "tasks.jsonl").write_text(json.dumps(_task("T1")) + "\n" + DEEP_OBJECT + "\n")
    assert main(["lessons", "extract", "deep.json"]) == 1
    assert "deep.json: not valid JSON: nested too deeply" in capsys.readouterr().err
    assert main(["lessons", "extract", "--from", "tasks.jsonl"]) == 1
    assert "tasks.jsonl:2: not valid JSON: nested too deeply" in capsys.readouterr().err
    assert main(["lessons", "show", "deep.json"]) == 1


def test_a_deep_lessons_log_line_is_a_problem_and_the_rest_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "task.json").write_text(json.dumps(_task("T1")))
    assert main(["lessons", "extract", "task.json"]) == 0
    log = tmp_path / "intake" / "lessons" / "lessons.jsonl"
    with log.open("a") as handle:
        handle.write(DEEP_ARRAY + "\n")
    capsys.readouterr()
    assert main(["lessons", "lint"]) == 0  # a malformed row is a warning in lint
    out = capsys.readouterr().out
    assert (
        "lessons.jsonl:2: lessons-malformed-row [warning] not valid JSON (JsonNestingError)" in out
    )
    (tmp_path / "next.json").write_text(json.dumps(_task("T2")))
    assert main(["lessons", "show", "next.json"]) == 0
    assert "Confirmed xss" in capsys.readouterr().out


@pytest.mark.stress
def test_every_reader_survives_100k_deep_json_in_real_processes(tmp_path: Path) -> None:
    """The real `kb` in its own process, one command per reader, each fed 100k-deep JSON:
    an ordinary exit (0, 1 or 2), never 3, never a traceback."""
    (tmp_path / "deep.json").write_text(DEEP_ARRAY)
    (tmp_path / "deep-object.json").write_text(DEEP_OBJECT)
    drops = tmp_path / "drops"
    drops.mkdir()
    (drops / "deep.json").write_text(DEEP_OBJECT)
    _ledger(tmp_path / "intake" / "events.jsonl", DEEP_ARRAY)
    _ledger(tmp_path / "intake" / "status.jsonl", DEEP_OBJECT)
    (tmp_path / "intake" / "lessons").mkdir()
    (tmp_path / "intake" / "lessons" / "lessons.jsonl").write_text(DEEP_ARRAY + "\n")
    clone = make_clone(tmp_path / "clone")
    (tmp_path / "batch.json").write_text(json.dumps(batch("PR #101").to_dict()))
    body = "<!-- kbkit:bugfix-record:v1 -->\n```json\n" + "[" * 30_000 + "\n```\n"
    comment = {"id": 1, "body": body, "author_association": "MEMBER", "user": {"login": "u"}}
    (tmp_path / "comments.json").write_text(json.dumps([comment]))
    commands = [
        ["intake", "collect", "--drops", str(drops)],
        ["intake", "check"],
        ["intake", "status"],
        ["intake", "compact", "--check"],
        ["intake", "record-prs", "--from", "deep.json", "--slug", SLUG],
        ["intake", "mailbox", "--from", "comments.json", "--slug", SLUG],
        ["intake", "mailbox", "--from", "deep-object.json", "--slug", SLUG],
        ["curate", "validate", "--repo", str(clone), "--batch", "batch.json"]
        + ["--proposals", "deep-object.json"],
        ["curate", "apply", "--repo", str(clone), "--validation", "deep.json"],
        ["curate", "prompt", "--repo", str(clone), "--batch", "deep.json"],
        ["lessons", "extract", "deep.json"],
        ["lessons", "extract", "--from", "deep.json"],
        ["lessons", "lint"],
        ["lessons", "outcome", "deep-object.json"],
    ]
    for argv in commands:
        done = subprocess.run(
            [sys.executable, "-m", "kbkit", *argv],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode in (0, 1, 2), (argv, done.returncode, done.stderr[-2000:])
        assert "Traceback" not in done.stderr, (argv, done.stderr[-2000:])


@pytest.mark.slow
def test_deeply_nested_cache_files_are_ignored_and_rebuilt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The parse cache and the result snapshot are marshal, whose own depth guard raises
    ValueError; a planted 100k-deep block is an unusable cache, so the run starts cold."""
    import struct

    from kbkit.tree.cache import CACHE_DIR

    shutil.copytree(PACKAGE.parents[1] / "knowledge", tmp_path / "repo" / "knowledge")
    (tmp_path / "repo" / "knowledge" / "general" / "x.md").write_text("# X\n\n10.9.8.7\n")
    argv = ["check", "--repo", str(tmp_path / "repo"), "--today", "2026-11-30"]
    cold = main(argv), capsys.readouterr().out
    deep = b")\x01" * DEPTH + b"N"  # a one-item tuple in a one-item tuple in ... 100k deep
    planted = [p for p in (tmp_path / "repo" / CACHE_DIR).iterdir() if p.suffix == ".marshal"]
    assert planted
    for path in planted:
        path.write_bytes(struct.pack("<Q", len(deep)) + deep)
    assert (main(argv), capsys.readouterr().out) == cold
