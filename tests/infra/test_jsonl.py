from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from kbkit.infra.errors import EnvironmentFailure
from kbkit.infra.jsonl import (
    _write_all,
    append_rows,
    append_together,
    atomic_write_text,
    read_jsonl,
    temp_path,
)
from tests.disk import fill, read_only, small_tmpfs


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


@pytest.mark.parametrize("durable", [True, False])
def test_atomic_write_syncs_the_file_and_its_folder_unless_told_not_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, durable: bool
) -> None:
    synced: list[int] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    target = tmp_path / "sub" / "cursor.json"
    atomic_write_text(target, "one\n", durable=durable)
    assert target.read_text() == "one\n"
    assert len(synced) == (2 if durable else 0)
    assert [p.name for p in target.parent.iterdir()] == ["cursor.json"]


def test_append_on_a_full_disk_raises_and_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    with small_tmpfs(tmp_path / "disk") as disk:
        log = disk / "log.jsonl"
        append_rows(log, [{"n": 1}])
        before = log.read_bytes()
        fill(disk)
        # the last page of the log has room for part of this row: a short write, then ENOSPC
        with pytest.raises(EnvironmentFailure) as caught:
            append_rows(log, [{"n": 2, "pad": "x" * 9000}, {"n": 3}])
        assert caught.value.exit_code == 4
        assert str(log) in str(caught.value) and "no space left" in str(caught.value)
        assert log.read_bytes() == before


def test_append_together_rolls_back_every_file_when_one_fails(tmp_path: Path) -> None:
    with small_tmpfs(tmp_path / "disk") as disk:
        first, second = disk / "a.jsonl", disk / "b.jsonl"
        append_rows(first, [{"n": 1}])
        append_rows(second, [{"n": 1}])
        before = (first.read_bytes(), second.read_bytes())
        fill(disk)
        with pytest.raises(EnvironmentFailure):
            append_together([(first, [{"n": 2}]), (second, [{"pad": "x" * 20000}])])
        assert (first.read_bytes(), second.read_bytes()) == before


def test_short_writes_are_completed_not_ignored(tmp_path: Path) -> None:
    # A pipe takes at most its buffer per write: os.write returns short counts for real.
    read_end, write_end = os.pipe()
    data = b"y" * (1 << 20)
    received = bytearray()

    def drain() -> None:
        while chunk := os.read(read_end, 65536):
            received.extend(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    os.set_blocking(write_end, True)
    _write_all(write_end, data)
    os.close(write_end)
    reader.join()
    os.close(read_end)
    assert bytes(received) == data


def test_atomic_write_on_a_full_disk_keeps_the_target_and_removes_the_temp(
    tmp_path: Path,
) -> None:
    with small_tmpfs(tmp_path / "disk") as disk:
        target = disk / "cursor.json"
        atomic_write_text(target, "old\n")
        fill(disk)
        with pytest.raises(EnvironmentFailure) as caught:
            atomic_write_text(target, "new" * 100000)
        assert str(target) in str(caught.value)
        assert target.read_text() == "old\n"
        assert sorted(p.name for p in disk.iterdir()) == ["cursor.json", "filler"]


def test_writes_into_a_read_only_file_system_are_environment_errors(tmp_path: Path) -> None:
    with small_tmpfs(tmp_path / "disk") as disk:
        (disk / "x.json").write_text("old\n")
        append_rows(disk / "log.jsonl", [{"n": 1}])
        read_only(disk)
        with pytest.raises(EnvironmentFailure, match="read-only file system") as caught:
            atomic_write_text(disk / "x.json", "new\n")
        assert str(disk / "x.json") in str(caught.value)
        with pytest.raises(EnvironmentFailure, match="read-only file system"):
            append_rows(disk / "log.jsonl", [{"n": 2}])
        assert (disk / "x.json").read_text() == "old\n"
        assert read_jsonl(disk / "log.jsonl").rows[0].data == {"n": 1}


def _sleep_forever() -> None:
    time.sleep(3600)


def test_abandoned_temp_files_are_swept_only_when_their_writer_is_dead(tmp_path: Path) -> None:
    target = tmp_path / "events.jsonl"
    proc = subprocess.Popen(["true"])  # a writer that has exited (and been reaped)
    proc.wait()
    abandoned = temp_path(target).with_name(
        temp_path(target).name.replace(f".{os.getpid()}.", f".{proc.pid}.")
    )
    abandoned.write_bytes(b"half a ledger")
    alive = multiprocessing.Process(target=_sleep_forever)
    alive.start()
    try:
        live = temp_path(target).with_name(
            temp_path(target).name.replace(f".{os.getpid()}.", f".{alive.pid}.")
        )
        live.write_bytes(b"being written")
        foreign = tmp_path / ".events.jsonl.1.zzzzzzzz.0000.tmp"  # another host's
        foreign.write_bytes(b"not ours to judge")
        atomic_write_text(target, "row\n")
        names = sorted(p.name for p in tmp_path.iterdir())
        assert abandoned.name not in names
        assert live.name in names and foreign.name in names
        assert target.read_text() == "row\n"
    finally:
        alive.kill()
        alive.join()


def test_a_failed_append_that_created_the_file_removes_it(tmp_path: Path) -> None:
    with small_tmpfs(tmp_path / "disk") as disk:
        append_rows(disk / "old.jsonl", [{"n": 1}])
        fill(disk)
        with pytest.raises(EnvironmentFailure):
            append_together([(disk / "old.jsonl", [{"n": 2}]), (disk / "new.jsonl", [{"n": 1}])])
        assert not (disk / "new.jsonl").exists()
        assert read_jsonl(disk / "old.jsonl").rows[-1].data == {"n": 1}
