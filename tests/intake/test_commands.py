from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from intake_factories import SLUG, make_pr, write_pages

from kbkit.__main__ import main
from kbkit.commands.registry import COMMANDS
from kbkit.intake.ledger import (
    EVENTS_FILE,
    STATUS_FILE,
    append_status,
    load_events,
    load_status,
    record_events,
)
from kbkit.intake.schemas import NAMES, load_schema, schema_path

PROJECT = Path(__file__).resolve().parents[2]
INTAKE_COMMANDS = sorted(name for name in COMMANDS if name.startswith("intake "))


def lesson(n: int) -> dict[str, object]:
    return {
        "source_kind": "lesson",
        "source_id": f"lesson-{n}",
        "repo": None,
        "title": f"Do not re-report without new mechanics #{n}",
        "summary": "prior false_positive",
        "recorded_at": "2026-11-01T07:00:00Z",
    }


@pytest.mark.parametrize("name", INTAKE_COMMANDS)
def test_every_intake_command_has_help_and_a_docs_row(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([*name.split(), "--help"])
    assert exit_info.value.code == 0
    assert f"usage: kb {name}" in capsys.readouterr().out
    assert f"| `kb {name}` |" in (PROJECT / "docs" / "checking.md").read_text()


def test_the_eight_commands_of_the_issue_are_registered() -> None:
    names = (
        "record-prs",
        "record-git",
        "drop",
        "collect",
        "mailbox",
        "status",
        "check",
        "compact",
        "requeue",
        "sync",
    )  # fmt: skip  (requeue: issue #13; sync: issue #25)
    assert sorted(f"intake {name}" for name in names) == INTAKE_COMMANDS


def test_schemas_are_valid_draft_2020_12_documents() -> None:
    for name in NAMES:
        assert schema_path(name).is_file()
        jsonschema.Draft202012Validator.check_schema(load_schema(name))


def _ledger(tmp_path: Path) -> Path:
    write_pages(tmp_path / "p.json", [[make_pr(n) for n in range(1, 6)]])
    assert main(["intake", "record-prs", "--from", "p.json"]) == 0
    folder = tmp_path / "intake"
    record_events(folder, [lesson(1)])  # what `kb lessons promote` appends
    append_status(
        folder,
        "merged_pr",
        f"{SLUG}#1",
        "published",
        attempts=1,
        previous=None,
        batch_id="b1",
        url=f"https://github.com/{SLUG}/pull/77",
        at="2099-01-01T00:00:00Z",
    )
    append_status(
        folder,
        "merged_pr",
        f"{SLUG}#2",
        "shadowed",
        attempts=1,
        previous=None,
        batch_id="b1",
        at="2099-01-01T00:00:00Z",
    )
    append_status(
        folder,
        "merged_pr",
        f"{SLUG}#3",
        "pending",
        attempts=2,
        previous=None,
        batch_id="b1",
        reason="validator failed",
        at="2099-01-01T00:00:00Z",
    )
    return folder


def test_status_counts_by_state_and_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _ledger(tmp_path)
    capsys.readouterr()
    assert main(["intake", "status", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["counts"] == {
        "lesson": {"pending": 1},
        "merged_pr": {"pending": 3, "published": 1, "shadowed": 1},
    }
    assert report["totals"] == {
        "pending": 4,
        "published": 1,
        "shadowed": 1,
        "failed": 0,
        "rejected": 0,
        "skipped": 0,
    }
    assert report["pending_attempts"] == {"0": 3, "2": 1}
    assert report["oldest_pending"]["key"] == ["lesson", "lesson-1"]
    assert report["cursor"] == {SLUG: "2026-11-29T10:00:00Z"}
    assert main(["intake", "status"]) == 0
    text = capsys.readouterr().out
    assert "merged_pr: 3 pending, 1 published, 1 shadowed" in text
    assert "oldest pending: lesson lesson-1" in text


def test_status_of_an_empty_repo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["intake", "status"]) == 0
    assert "no events recorded yet" in capsys.readouterr().out


def test_check_passes_on_recorded_ledgers_including_lessons(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _ledger(tmp_path)
    assert main(["intake", "check"]) == 0
    assert "kb intake check passed: 0 error(s), 0 warning(s)" in capsys.readouterr().out


def test_check_reports_every_bad_line_and_warns_on_a_torn_tail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _ledger(tmp_path)
    with (folder / STATUS_FILE).open("ab") as handle:
        handle.write(b'{"source_kind": "merged_pr", "source_id": "x", "state": "done"}\n')
        handle.write(b"not json\n")
        handle.write(b'{"source_kind": "merged_pr", "sou')  # torn
    capsys.readouterr()
    assert main(["intake", "check", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    rules = sorted((f["line"], f["rule"], f["severity"]) for f in report["findings"])
    assert rules == [
        (10, "intake-schema", "error"),
        (10, "intake-schema", "error"),
        (10, "intake-schema", "error"),
        (10, "intake-schema", "error"),
        (11, "intake-json", "error"),
        (12, "intake-torn", "warning"),
    ]
    assert main(["intake", "check"]) == 1
    text = capsys.readouterr().out
    shown = (folder / STATUS_FILE).relative_to(tmp_path).as_posix()  # repo-relative, as kb check
    assert f"{shown}:10: intake-schema [error] at $.state: 'done' is not one of" in text
    assert "kb intake check failed: 5 error(s), 1 warning(s)" in text
    assert main(["intake", "check", "--format", "github"]) == 1
    annotations = capsys.readouterr().out.splitlines()
    assert f"::error file={shown},line=11,title=intake-json::" in annotations[4]
    assert annotations[5].startswith(f"::warning file={shown},line=12,")


@pytest.mark.slow
def test_check_a_file_through_a_real_kb_process(tmp_path: Path) -> None:
    bad = tmp_path / "events.jsonl"
    bad.write_text(json.dumps({"source_kind": "merged_pr", "source_id": "o/r#1"}) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "intake", "check", str(bad)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    # run from tmp_path (the test's repository): the path is printed repo-relative
    assert "events.jsonl:1: intake-schema [error] at $: 'repo' is a required property" in (
        done.stdout
    )
    other = tmp_path / "notes.jsonl"
    other.write_text("{}\n")
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "intake", "check", str(other)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "not an intake ledger" in done.stderr
    assert "Traceback" not in done.stderr


def test_check_reports_a_broken_cursor(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "intake").mkdir()
    (tmp_path / "intake" / "cursor.json").write_text('{"merged_prs": {"o/r": 5}}')
    assert main(["intake", "check"]) == 1
    assert "intake-cursor" in capsys.readouterr().out


def test_compact_drops_unreadable_lines_and_keeps_the_state(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _ledger(tmp_path)
    events, status = load_events(folder), load_status(folder)
    with (folder / EVENTS_FILE).open("ab") as handle:
        handle.write((folder / EVENTS_FILE).read_bytes())  # a union merge's duplicates
        handle.write(b"garbage from a torn write\n")
    status_lines = (folder / STATUS_FILE).read_bytes()
    (folder / STATUS_FILE).write_bytes(status_lines + status_lines)
    capsys.readouterr()
    assert main(["intake", "compact", "--check"]) == 1
    assert len((folder / EVENTS_FILE).read_bytes().splitlines()) == 13  # --check wrote nothing
    assert main(["intake", "compact"]) == 0
    out = capsys.readouterr().out
    assert "dropping unreadable line: not valid JSON" in out
    assert f"compacted {folder / EVENTS_FILE}: 13 -> 6 line(s)" in out
    assert load_events(folder) == events and load_status(folder) == status
    assert (folder / STATUS_FILE).read_bytes() == status_lines
    assert main(["intake", "check"]) == 0


def test_unknown_intake_subcommand_lists_the_real_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["intake", "recrod"]) == 2
    assert "intake record-prs" in capsys.readouterr().err
