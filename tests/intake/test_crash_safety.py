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

from kbkit.intake.ledger import EVENTS_FILE, load_events, pending_events, read_ledger

# A recorder that appends in batches, so a kill lands in the middle of appends, not only
# before them. Each batch is the same read-check-append the commands run.
RECORDER = """
import sys
from pathlib import Path
from kbkit.intake.json_pages import decode_pages
from kbkit.intake.ledger import record_events
from kbkit.intake.merged_prs import parse_pulls
from kbkit.intake.repo_identity import RepoIdentity
source, folder, batch = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
rows = parse_pulls(source, decode_pages(source, Path(source).read_bytes()),
                   RepoIdentity(None, {})).rows
for start in range(0, len(rows), batch):
    record_events(folder, rows[start:start + batch])
"""


def _run_with_kills(tmp_path: Path, rows: int, kills: int, batch: int) -> None:
    pages = [
        [make_pr(n) for n in range(start, min(start + 100, rows + 1))]
        for start in range(1, rows + 1, 100)
    ]
    source = write_pages(tmp_path / "pages.json", pages)
    folder = tmp_path / "intake"
    command = [sys.executable, "-c", RECORDER, str(source), str(folder), str(batch)]
    rnd = random.Random(4)
    started = time.monotonic()
    full = subprocess.run(command, capture_output=True, check=False)  # calibrate a run
    assert full.returncode == 0, full.stderr
    duration = time.monotonic() - started
    (folder / EVENTS_FILE).unlink()
    (folder / "status.jsonl").unlink()
    torn_seen = 0
    for _ in range(kills):
        proc = subprocess.Popen(command, stderr=subprocess.PIPE)
        time.sleep(rnd.uniform(0.05, duration))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        _, problems = read_ledger(folder, EVENTS_FILE)  # never fatal, whatever the moment
        torn_seen += sum(p.torn for p in problems)
    done = subprocess.run(command, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    expected = {("merged_pr", f"{SLUG}#{n}") for n in range(1, rows + 1)}
    assert set(load_events(folder)) == expected
    readable, _ = read_ledger(folder, EVENTS_FILE)
    keys = [(row["source_kind"], row["source_id"]) for row in readable]
    assert len(keys) == len(set(keys)) == rows  # nothing lost, nothing doubled
    assert {
        (p.event["source_kind"], p.event["source_id"]) for p in pending_events(folder)
    } == expected
    print(f"{kills} kills, {torn_seen} torn tails observed")


def test_recorder_killed_20_times_folds_to_the_exact_set(tmp_path: Path) -> None:
    _run_with_kills(tmp_path, rows=2_000, kills=20, batch=50)


@pytest.mark.stress
def test_recorder_killed_200_times_while_appending_10k_rows(tmp_path: Path) -> None:
    _run_with_kills(tmp_path, rows=10_000, kills=200, batch=200)


def test_events_file_stays_valid_json_lines_after_kills(tmp_path: Path) -> None:
    """The torn fragments are the only unreadable lines, and none is at the end any more."""
    _run_with_kills(tmp_path, rows=500, kills=5, batch=10)
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
