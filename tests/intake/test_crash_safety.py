"""SIGKILL a real recorder process at random moments; the ledger must fold to the exact set."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from intake_factories import SLUG, make_pr, write_pages
from tests.gitrepo import git, init_repo

from kbkit.__main__ import main
from kbkit.infra.jsonl import read_jsonl
from kbkit.intake.ledger import (
    EVENTS_FILE,
    load_events,
    pending_events,
    read_ledger,
    record_events,
)

# A recorder that appends in small batches, so a kill lands in the middle of appends, not
# only before them. Each batch is the same read-check-append the commands run. It records
# the first UPTO PRs of the pages: each round of the test asks for a few more.
RECORDER = """
import sys
from pathlib import Path
from kbkit.intake.json_pages import decode_pages
from kbkit.intake.ledger import load_events, record_events
from kbkit.intake.sources.github_pulls import parse_pulls
from kbkit.intake.repo_identity import RepoIdentity
source, folder, batch, upto = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rows = parse_pulls(source, decode_pages(source, Path(source).read_bytes()),
                   RepoIdentity(None, {})).rows[:upto]
known = set(load_events(folder))
rows = [row for row in rows if (row["source_kind"], row["source_id"]) not in known]
for start in range(0, len(rows), batch):
    record_events(folder, rows[start:start + batch])
"""


def _timed_run(command: list[str]) -> float:
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    return time.monotonic() - started


def _run_with_kills(tmp_path: Path, rows: int, kills: int, batch: int) -> None:
    """Each round asks for `rows // kills` more PRs and is killed at a random moment."""
    pages = [
        [make_pr(n) for n in range(start, min(start + 100, rows + 1))]
        for start in range(1, rows + 1, 100)
    ]
    source = write_pages(tmp_path / "pages.json", pages)
    folder = tmp_path / "intake"
    step = rows // kills
    command = [sys.executable, "-c", RECORDER, str(source), str(folder), str(batch)]
    scratch = [*command[:4], str(tmp_path / "calibrate"), str(batch)]
    busy = _timed_run([*scratch, str(step)])  # start-up, parsing and one round of appends
    idle = _timed_run([*scratch, str(step)])  # the same with nothing left to append
    rnd = random.Random(4)
    torn_seen = interrupted = 0
    for round_number in range(1, kills + 1):
        upto = round_number * step
        proc = subprocess.Popen([*command, str(upto)], stderr=subprocess.PIPE)
        time.sleep(rnd.uniform(idle * 0.8, busy * 1.1))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        _, problems = read_ledger(folder, EVENTS_FILE)  # never fatal, whatever the moment
        torn_seen += sum(p.torn for p in problems)
        interrupted += len(load_events(folder)) < upto
    _timed_run([*command, str(rows)])  # restart and re-run to the end
    expected = {("merged_pr", f"{SLUG}#{n}") for n in range(1, rows + 1)}
    assert set(load_events(folder)) == expected
    readable, _ = read_ledger(folder, EVENTS_FILE)
    keys = [(row["source_kind"], row["source_id"]) for row in readable]
    assert len(keys) == len(set(keys)) == rows  # nothing lost, nothing doubled
    assert {
        (p.event["source_kind"], p.event["source_id"]) for p in pending_events(folder)
    } == expected
    assert interrupted >= kills // 4, f"only {interrupted} of {kills} kills cut a recording short"
    print(f"{kills} kills, {interrupted} cut a recording short, {torn_seen} torn tails seen")


@pytest.mark.slow
def test_recorder_killed_20_times_folds_to_the_exact_set(tmp_path: Path) -> None:
    _run_with_kills(tmp_path, rows=2_000, kills=20, batch=5)


@pytest.mark.stress
def test_recorder_killed_200_times_while_appending_10k_rows(tmp_path: Path) -> None:
    _run_with_kills(tmp_path, rows=10_000, kills=200, batch=5)


@pytest.mark.slow
def test_events_file_stays_valid_json_lines_after_kills(tmp_path: Path) -> None:
    """The torn fragments are the only unreadable lines, and none is at the end any more."""
    _run_with_kills(tmp_path, rows=500, kills=5, batch=2)
    lines = (tmp_path / "intake" / EVENTS_FILE).read_bytes().split(b"\n")
    assert lines[-1] == b""
    bad = [line for line in lines[:-1] if line and not _is_json(line)]
    assert len(lines) - 1 - len(bad) == 500


def _is_json(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


def test_a_killed_compaction_leaves_temp_files_the_next_run_removes(tmp_path: Path) -> None:
    folder = tmp_path / "intake"
    record_events(folder, [{"source_kind": "lesson", "source_id": f"L{n}"} for n in range(50)])
    events = folder / EVENTS_FILE
    # a real compaction process killed between writing its temp file and os.replace
    killer = (
        "import os, signal, sys\n"
        "from pathlib import Path\n"
        "from kbkit.intake.compaction import compact\n"
        "os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL)\n"
        "from kbkit.infra.jsonl import append_rows\n"
        "append_rows(Path(sys.argv[1]), [{'source_kind': 'lesson', 'source_id': 'L1'}])\n"
        "compact(Path(sys.argv[1]).parent)\n"
    )
    done = subprocess.run([sys.executable, "-c", killer, str(events)], check=False)
    assert done.returncode == -signal.SIGKILL
    legacy = folder / ".events.jsonl.k3j_x9.tmp"  # what tempfile.mkstemp named them before
    legacy.write_bytes(b"half a ledger")
    left = sorted(p.name for p in folder.glob(".*.tmp"))
    assert len(left) == 2
    init_repo(tmp_path)
    assert main(["intake", "compact", "--repo", str(tmp_path)]) == 0
    assert list(folder.glob(".*.tmp")) == []
    assert len(read_jsonl(events).rows) == 50
    # and a temp file that appears later is not something git would ever commit
    (folder / ".status.jsonl.1.abcd.ef.tmp").write_bytes(b"x")
    ignored = git(tmp_path, "status", "--porcelain", "--untracked-files=all")
    assert ".tmp" not in ignored and ".lock" not in ignored and "events.jsonl" in ignored
