"""Environment errors through real `kb` processes: a full disk or a read-only file system is
exit 4 with one line naming the path, and every ledger is byte-identical afterwards."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kbkit.infra.jsonl import append_rows, read_jsonl
from kbkit.intake.ledger import STATUS_FILE, record_events
from tests.curator.conftest import batch, make_clone, row
from tests.disk import fill, read_only, small_tmpfs, snapshot
from tests.intake.intake_factories import SLUG, make_pr, write_pages


def kb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kbkit", *args], capture_output=True, text=True, check=False
    )


def assert_environment_error(done: subprocess.CompletedProcess[str], path: Path) -> None:
    assert done.returncode == 4, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kb: error: "), done.stderr
    assert str(path) in lines[0] and "Traceback" not in done.stderr


def event(n: int) -> dict[str, object]:
    return {"source_kind": "lesson", "source_id": f"L{n}", "title": f"lesson {n}"}


@pytest.mark.slow
def test_record_prs_on_a_full_disk(tmp_path: Path) -> None:
    pages = write_pages(tmp_path / "pulls.json", [[make_pr(n) for n in range(1, 300)]])
    with small_tmpfs(tmp_path / "disk") as repo:
        record_events(repo / "intake", [event(1)])
        before = snapshot(repo / "intake")
        fill(repo)
        done = kb("intake", "record-prs", "--repo", str(repo), "--from", str(pages),
                  "--slug", SLUG)  # fmt: skip
        assert_environment_error(done, repo / "intake")
        assert snapshot(repo / "intake") == before


@pytest.mark.slow
def test_compact_on_a_full_disk_and_on_a_read_only_disk(tmp_path: Path) -> None:
    with small_tmpfs(tmp_path / "disk") as repo:
        folder = repo / "intake"
        record_events(folder, [event(n) for n in range(200)])
        dupes = [r.data for r in read_jsonl(folder / STATUS_FILE).rows]
        append_rows(folder / STATUS_FILE, dupes)  # something for compaction to fold
        before = snapshot(folder)
        fill(repo)
        done = kb("intake", "compact", "--repo", str(repo))
        assert_environment_error(done, folder)
        assert snapshot(folder) == before
        (repo / "filler").unlink()
        read_only(repo)
        done = kb("intake", "compact", "--repo", str(repo))
        assert_environment_error(done, folder)
        assert "read-only file system" in done.stderr
        assert snapshot(folder) == before


def task(task_id: str, findings: int, summary: str) -> dict[str, object]:
    return {
        "id": task_id,
        "status": "done",
        "company": "acme",
        "category": "web",
        "findings": [
            {"id": f"F{n}", "status": "confirmed", "class": f"class{n}", "summary": summary}
            for n in range(findings)
        ],
        "retests": [],
        "metrics": {"tokens": 1000, "tool_calls": 10},
    }


@pytest.mark.slow
def test_lessons_extract_on_a_full_disk(tmp_path: Path) -> None:
    first = tmp_path / "t1.json"
    first.write_text(json.dumps(task("T1", 1, "a")))
    second = tmp_path / "t2.json"
    second.write_text(json.dumps(task("T2", 40, "x" * 3000)))
    with small_tmpfs(tmp_path / "disk") as repo:
        assert kb("lessons", "extract", str(first), "--repo", str(repo)).returncode == 0
        before = {k: v for k, v in snapshot(repo / "intake").items() if k.endswith(".jsonl")}
        fill(repo)
        done = kb("lessons", "extract", str(second), "--repo", str(repo))
        assert_environment_error(done, repo / "intake" / "lessons")
        after = {k: v for k, v in snapshot(repo / "intake").items() if k.endswith(".jsonl")}
        assert after == before


@pytest.mark.slow
def test_curate_apply_into_a_read_only_clone(tmp_path: Path) -> None:
    b = tmp_path / "batch.json"
    b.write_text(json.dumps(batch("PR #101").to_dict()))
    p = tmp_path / "reply.json"
    p.write_text(json.dumps({"proposals": [row()]}))
    validation = tmp_path / "validation.json"
    with small_tmpfs(tmp_path / "disk", size="4m") as disk:
        clone = make_clone(disk / "clone")
        done = kb("curate", "validate", "--repo", str(clone), "--batch", str(b),
                  "--proposals", str(p), "--output", str(validation))  # fmt: skip
        assert done.returncode == 0, done.stderr
        before = snapshot(clone)
        read_only(disk)
        done = kb("curate", "apply", "--repo", str(clone), "--validation", str(validation))
        assert_environment_error(done, clone)
        assert "read-only file system" in done.stderr
        assert snapshot(clone) == before


def test_an_unwrapped_environment_oserror_is_still_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kbkit import __main__

    def boom(argv: list[str]) -> int:
        raise PermissionError(13, "Permission denied", str(tmp_path / "x"))

    original = __main__.run
    __main__.run = boom  # type: ignore[assignment]
    try:
        assert __main__.main(["intake", "status"]) == 4
    finally:
        __main__.run = original  # type: ignore[assignment]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(tmp_path / "x") in err and "permission denied" in err
