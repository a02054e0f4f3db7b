"""`make demo` itself: offline, under 30 s, and a second run adds nothing."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import PROJECT


def run_demo(work: Path) -> str:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "kbkit.demo", "--dir", str(work)],
        capture_output=True,
        text=True,
        cwd=PROJECT,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert time.monotonic() - started < 30
    return done.stdout


def test_demo_runs_end_to_end_and_a_second_run_adds_nothing(tmp_path: Path) -> None:
    out = run_demo(tmp_path / "demo")
    first, second = out.split("== second run")
    assert "recorded 7 new event(s)" in first
    assert "7 event(s) taken" in first
    assert "proposals: 4 accepted, 1 rejected" in first
    assert "rejected VAL-1b (rule-id-taken)" in first
    assert "knowledge/repos/kbkit/components/validators/rules.md" in first  # git show --stat
    assert "outcome: shadowed" in first
    artifact = first.split("artifact: ")[1].split()[0]
    for name in ("prompt.md", "reply.txt", "validation.json", "apply.json", "validators.txt",
                 "commit.txt"):  # fmt: skip
        assert (Path(artifact) / name).is_file(), name
    assert "recorded 0 new event(s)" in second and "this run adds nothing" in second
    again = run_demo(tmp_path / "demo")  # a later `--dir` run over the same folder: still nothing
    assert "recorded 7 new" not in again and again.count("this run adds nothing") == 2
