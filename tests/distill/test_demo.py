"""`make demo` itself: offline, ends with its report, and a second run adds nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PROJECT

pytestmark = pytest.mark.slow  # make test-all: the whole demo pipeline, twice


def run_demo(work: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "kbkit.demo", "--dir", str(work)],
        capture_output=True,
        text=True,
        cwd=PROJECT,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_demo_runs_end_to_end_and_a_second_run_adds_nothing(tmp_path: Path) -> None:
    out = run_demo(tmp_path / "demo")
    first, second = out.split("== second run")
    assert "recorded 7 new event(s)" in first
    assert "7 event(s) taken" in first
    assert "proposals: 4 accepted, 1 rejected" in first
    assert "rejected VAL-1b (rule-id-taken)" in first
    # the rule whose source is a review comment, traced back to the reviewer's words
    assert (
        "INTK-1d cites kbkit-dev/kbkit#38:discussion_r1874020011: inline comment by arjun-k "
        "(MEMBER, reviewer) on tools/kbkit/intake/merged_prs.py line(s) 116-119; changes "
        "requested; suggestion accepted (in the final diff)"
    ) in first
    assert '"`closed_at` is set on every closed PR, merged or not' in first
    assert "knowledge/repos/kbkit/components/validators/rules.md" in first  # git show --stat
    assert "outcome: shadowed" in first
    artifact = first.split("artifact: ")[1].split()[0]
    for name in ("prompt.md", "reply.txt", "validation.json", "apply.json", "validators.txt",
                 "commit.txt"):  # fmt: skip
        assert (Path(artifact) / name).is_file(), name
    assert "recorded 0 new event(s)" in second and "this run adds nothing" in second
    # the run checks the tree it published to, ends with its report and the next commands
    assert "\n== kb check on " in second and ": passes (" in second
    lines = second.strip().splitlines()
    report = lines.index(next(line for line in lines if line.startswith("== report: ")))
    assert lines[report].startswith(f"== report: {tmp_path / 'demo' / 'report.html'} ")
    assert lines[report + 1].startswith("done in ")
    assert [line.split()[0:2] for line in lines[-3:]] == [
        ["kb", "init"],
        ["kb", "check"],
        ["pre-commit", "install"],
    ]
    page = (tmp_path / "demo" / "report.html").read_text(encoding="utf-8")
    assert "2026-11-30T" in page and "Curator and publication" in page
    assert "rule-id-taken" in page  # the demo's rejected proposal, by reason
    assert "VAL-2c" in page and "Normalize link targets before counting them" in page  # decided
    # the trend and the events per day; the lessons' forest plot has no number to draw at
    # the demo's 1 and 4 tasks per arm (`kb lessons report` says "not enough tasks")
    assert page.count('<figure class="chart">') == 2
    assert "not enough tasks" in page
    assert "lessons-repo/intake/lessons/" in page  # the demo's own lessons repository
    again = run_demo(tmp_path / "demo")  # a later `--dir` run over the same folder: still nothing
    assert "recorded 7 new" not in again and again.count("this run adds nothing") == 2
