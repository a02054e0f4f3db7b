"""Crash safety and concurrency with real processes: SIGKILL mid-apply, 8 racing writers."""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kbkit.curator import KnowledgeCurator
from kbkit.curator.journal import lock_target
from kbkit.infra.file_lock import locked
from tests.conftest import PROJECT
from tests.curator.conftest import KBKIT, WRITING, batch, make_clone, row

pytestmark = pytest.mark.slow  # make test-all: kill -9 during apply, eight writers at once

TARGETS = (WRITING, KBKIT, "general/review/rules")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _start(clone: Path, validation: Path, pause: str = "0.03") -> subprocess.Popen[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = f"{PROJECT}{os.pathsep}{PROJECT / 'tools'}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.curator.worker", str(clone), str(validation), pause],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=PROJECT,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def _go(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.write("go\n")
    proc.stdin.flush()


def _multi_page_validation(clone: Path, out: Path) -> tuple[dict[Path, str], dict[Path, str]]:
    rows = [
        row("WRITE-3b"),
        row("KBK-3a", target=KBKIT, title="Locks are per clone"),
        row("REV-9a", target="general/review/rules", title="Review the insertion point"),
    ]
    curator = KnowledgeCurator(clone, today="2026-12-01")
    validation = curator.validate_proposals({"proposals": rows}, batch())
    assert len(validation.accepted) == 3, validation.rejected
    out.write_text(json.dumps(validation.to_dict()))
    plan = curator.plan(validation)
    pages = {clone / "knowledge" / f"{c.document_id}.md": c for c in plan.changes}
    return (
        {p: c.base_sha256 for p, c in pages.items()},
        {p: c.new_sha256 for p, c in pages.items()},
    )


def _kill_runs(tmp_path: Path, kills: int, seed: int) -> dict[str, int]:
    clone = make_clone(tmp_path / "clone")
    validation = tmp_path / "validation.json"
    base, applied = _multi_page_validation(clone, validation)
    assert len(base) == 3
    originals = {p: p.read_bytes() for p in base}
    calibrate = _start(clone, validation)
    started = time.monotonic()
    _go(calibrate)
    assert calibrate.wait(30) == 0
    window = time.monotonic() - started
    for p, data in originals.items():
        p.write_bytes(data)
    rng = random.Random(seed)
    outcomes = {"base": 0, "applied": 0, "recovered": 0}
    for _ in range(kills):
        proc = _start(clone, validation)
        _go(proc)
        # a little past the calibrated window too, so some kills land after a finished apply
        time.sleep(rng.uniform(0, window * 1.15))
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        recovery = KnowledgeCurator(clone).recover()
        outcomes["recovered"] += recovery.journal_found
        state = {p: _sha(p) for p in base}
        if state == base:
            outcomes["base"] += 1
        else:
            assert state == applied, "a mix of base and applied pages after recovery"
            outcomes["applied"] += 1
        with locked(lock_target(clone), timeout=0):
            pass  # the lock is free
        for p, data in originals.items():
            p.write_bytes(data)
    return outcomes


def test_sigkill_during_apply_never_leaves_a_mix(tmp_path: Path) -> None:
    outcomes = _kill_runs(tmp_path, kills=20, seed=20261130)
    print(f"kills: {outcomes}")
    assert outcomes["base"] + outcomes["applied"] == 20
    assert outcomes["recovered"] > 0  # some kills landed between the journal and its removal


@pytest.mark.stress
def test_sigkill_stress(tmp_path: Path) -> None:
    outcomes = _kill_runs(tmp_path, kills=220, seed=7)
    print(f"kills: {outcomes}")
    assert outcomes["base"] + outcomes["applied"] == 220
    assert outcomes["recovered"] > 0 and outcomes["applied"] > 0


def test_eight_writers_one_winner(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "clone")
    curator = KnowledgeCurator(clone, today="2026-12-01")
    page = clone / "knowledge" / f"{WRITING}.md"
    base = page.read_bytes()
    procs = []
    sections = []
    for n in range(8):
        r = row(f"WRITE-3{'bcdefghi'[n]}", title=f"Writer {n} rule")
        validation = curator.validate_proposals({"proposals": [r]}, batch())
        assert validation.accepted
        sections.append(validation.accepted[0].section)
        path = tmp_path / f"v{n}.json"
        path.write_text(json.dumps(validation.to_dict()))
        procs.append(_start(clone, path, pause="0"))
    for proc in procs:
        _go(proc)
    outputs = []
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        outputs.append((proc.returncode, out + err))
    winners = [i for i, (code, _) in enumerate(outputs) if code == 0]
    assert len(winners) == 1, outputs
    for i, (code, text) in enumerate(outputs):
        if i != winners[0]:
            assert code == 1 and "stale" in text
    final = page.read_text()
    assert final.count("### WRITE-3") == 2  # WRITE-3a and the winner's
    assert sections[winners[0]] in final
    assert all(s not in final for i, s in enumerate(sections) if i != winners[0])
    assert len(page.read_bytes()) > len(base)
