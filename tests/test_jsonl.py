from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

from kbkit.jsonl import append_rows, atomic_write_text, read_jsonl


def test_append_and_read_round_trip(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    assert append_rows(log, [{"a": 1}, {"b": "二"}]) == 2
    contents = read_jsonl(log)
    assert [row.data for row in contents.rows] == [{"a": 1}, {"b": "二"}]
    assert [row.line for row in contents.rows] == [1, 2]
    assert contents.problems == []


def test_torn_last_line_is_reported_and_never_swallows_the_next_row(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    append_rows(log, [{"n": 1}])
    with log.open("ab") as handle:
        handle.write(b'{"n": 2, "tru')  # a crash in the middle of a write
    torn = read_jsonl(log)
    assert [row.data for row in torn.rows] == [{"n": 1}]
    assert len(torn.problems) == 1 and torn.problems[0].torn and torn.problems[0].line == 2
    append_rows(log, [{"n": 3}])
    after = read_jsonl(log)
    assert [row.data for row in after.rows] == [{"n": 1}, {"n": 3}]
    assert [p.torn for p in after.problems] == [False]


def test_malformed_middle_lines_are_problems_with_line_numbers(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_bytes(b'{"ok": 1}\n[1, 2]\nnot json\n\xff\xfe\n{"ok": 2}\n')
    contents = read_jsonl(log)
    assert [row.data["ok"] for row in contents.rows] == [1, 2]
    assert [p.line for p in contents.problems] == [2, 3, 4]
    assert "JSON object" in contents.problems[0].message


def _writer(path: str, worker: int, count: int) -> None:
    append_rows(Path(path), ({"w": worker, "i": i} for i in range(count)))


def test_concurrent_appenders_lose_nothing(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    procs = [multiprocessing.Process(target=_writer, args=(str(log), w, 500)) for w in range(4)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join()
        assert proc.exitcode == 0
    lines = log.read_bytes().splitlines()
    assert len(lines) == 2000
    seen = {(row["w"], row["i"]) for row in map(json.loads, lines)}
    assert len(seen) == 2000


def test_atomic_write_replaces_whole_file(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "cursor.json"
    atomic_write_text(target, "one\n")
    atomic_write_text(target, "two\n")
    assert target.read_text() == "two\n"
    assert [p.name for p in target.parent.iterdir()] == ["cursor.json"]
