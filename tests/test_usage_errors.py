"""A file or folder named on the command line that is missing is a usage error (exit 2) in
every command, with one readable line naming it; real `kb` processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

MISSING = [
    ["intake", "check", "/no/such/events.jsonl"],
    ["intake", "record-prs", "--from", "/no/such.json"],
    ["intake", "collect", "--drops", "/no/such"],
    ["lessons", "show", "/no/such.json"],
    ["lessons", "outcome", "/no/such.json"],
    ["lessons", "extract", "/no/such.json"],
    ["lessons", "lint", "--tasks", "/no/such.jsonl"],
    ["curate", "prompt", "--batch", "/no/such.json"],
]


@pytest.mark.slow
@pytest.mark.parametrize("command", MISSING, ids=" ".join)
def test_a_missing_input_is_exit_2_naming_it(tmp_path: Path, command: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", *command], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "/no/such" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "passed" not in done.stdout


def test_a_folder_where_a_task_file_is_expected_is_exit_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "lessons", "show", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "is a directory" in done.stderr
