"""Every command's JSON output carries `version` (real `kb` processes on an empty repository)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

TASK = {"id": "T1", "status": "done", "company": "c", "category": "web", "findings": []}


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [
        ["intake", "status"],
        ["intake", "check"],
        ["lessons", "report"],
        ["lessons", "lint"],
        ["lessons", "show", "task.json"],
        ["rules"],
        ["rule", "tree/link-broken"],
        ["check"],
    ],
    ids=" ".join,
)
def test_json_output_carries_version(tmp_path: Path, command: list[str]) -> None:
    (tmp_path / "task.json").write_text(json.dumps(TASK))
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", *command, "--format", "json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode in (0, 1), done.stderr
    version = json.loads(done.stdout)["version"]
    assert type(version) is int and version >= 1  # each document's own format version
