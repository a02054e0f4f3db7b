"""Files someone else named or put in the tree are opened only when they are regular files:
a FIFO (which would wait for a writer forever), a device or a socket is refused unopened."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from kbkit.infra.errors import UsageError
from kbkit.infra.paths import named_file
from kbkit.infra.regular_file import (
    NotRegularFile,
    open_regular,
    read_regular_bytes,
    read_regular_text,
)


def test_a_regular_file_and_a_symlink_to_one_are_read(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"one\r\ntwo\n")
    (tmp_path / "link.txt").symlink_to("a.txt")
    assert read_regular_bytes(tmp_path / "link.txt") == b"one\r\ntwo\n"
    assert read_regular_bytes(tmp_path / "a.txt", limit=2) == b"one"  # limit + 1 bytes
    assert read_regular_text(tmp_path / "a.txt") == "one\ntwo\n"  # as Path.read_text


def test_a_fifo_a_device_a_socket_and_a_folder_are_refused_unopened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "to-fifo").symlink_to("fifo")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "sock"))
    try:
        kinds = {}
        for name in ("fifo", "to-fifo", "sock"):
            with pytest.raises(NotRegularFile) as caught:
                open_regular(tmp_path / name)
            kinds[name] = caught.value.kind
        with pytest.raises(NotRegularFile, match="a character device, not a regular file"):
            read_regular_bytes("/dev/zero")
        with pytest.raises(NotRegularFile, match="a folder"):
            read_regular_text(tmp_path)
    finally:
        server.close()
    assert kinds == {"fifo": "a FIFO", "to-fifo": "a FIFO", "sock": "a socket"}
    with pytest.raises(FileNotFoundError):
        read_regular_bytes(tmp_path / "missing")


def test_a_named_file_that_is_a_fifo_is_a_usage_error(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "records.json")
    with pytest.raises(UsageError, match="records.json: a FIFO, not a regular file; pass"):
        named_file(tmp_path / "records.json", "pass a JSON file or - for stdin")


def test_a_ledger_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    """In a child process: the unbounded read waited for a writer forever."""
    os.mkfifo(tmp_path / "events.jsonl")
    code = (
        "import sys; from pathlib import Path; from kbkit.infra.jsonl import read_jsonl\n"
        "from kbkit.infra.errors import UsageError\n"
        "try:\n    read_jsonl(Path(sys.argv[1]))\nexcept UsageError as exc:\n    print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "events.jsonl")],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert "events.jsonl: a FIFO, not a regular file; not read" in done.stdout, done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["intake", "record-prs", "--from", "FILE", "--repo", "."],
        ["intake", "check", "FILE"],
        ["lessons", "show", "FILE", "--repo", "."],
        ["lessons", "extract", "--from", "FILE", "--repo", "."],
    ],
)
def test_commands_refuse_a_fifo_named_on_the_command_line(tmp_path: Path, args: list[str]) -> None:
    """Each would wait for a writer forever; `-` is how standard input is passed."""
    os.mkfifo(tmp_path / "input.json")
    argv = [str(tmp_path / "input.json") if a == "FILE" else a for a in args]
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", *argv],
        cwd=tmp_path, capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "input.json: a FIFO, not a regular file" in done.stderr


@pytest.mark.parametrize("name", ["mkdocs.yml", "book.toml", "docfx.json", "docs/docfx.json"])
def test_kb_init_refuses_a_fifo_in_place_of_a_site_configuration(tmp_path: Path, name: str) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n")
    os.mkfifo(tmp_path / name)
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "init", "--repo", str(tmp_path)],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert f"{name}: cannot read it (a FIFO, not a regular file)" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".git",
        *sorted(["docs", *([name] if "/" not in name else [])]),
    ]


def test_intake_refuses_a_fifo_in_place_of_its_config(tmp_path: Path) -> None:
    (tmp_path / "intake").mkdir()
    os.mkfifo(tmp_path / "intake" / "config.yaml")
    (tmp_path / "pages.json").write_text("[]")
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "intake", "record-prs", "--from", "pages.json",
         "--repo", "."],
        cwd=tmp_path, capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "config.yaml: the intake configuration is a FIFO, not a regular file" in done.stderr
