"""`kb report` stays inside the repository (`kbkit.infra.boundary`): its knowledge root, its
intake folder (the ledgers) and its state folder must not lead outside it; each is
refused with exit 2 and one sentence, before a line of it is read."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PROJECT
from tests.outside import SECRET, fingerprint, victim
from tests.report.test_report import TASK
from tests.report.world import HOSTILE_FILE, build_world


def _report(repo: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kbkit", "report", "--repo", str(repo), "--format", "json"],
        capture_output=True,
        text=True,
        cwd=PROJECT,
        timeout=120,
    )


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return build_world(tmp_path / "repo", monkeypatch, TASK)


@pytest.mark.parametrize(("folder", "what"), [("intake", "intake"), ("state", "state")])
def test_an_intake_or_state_folder_linked_outside_is_refused(
    world: Path, tmp_path: Path, folder: str, what: str
) -> None:
    outside = tmp_path / f"outside-{folder}"
    if (world / folder).exists():
        os.rename(world / folder, outside)  # the world's own ledgers, now outside
    else:
        outside.mkdir()
    os.symlink(outside, world / folder)
    before = fingerprint(outside)
    done = _report(world)
    assert done.returncode == 2, done.stdout[:300] + done.stderr
    variable = "KBKIT_INTAKE_ROOT" if folder == "intake" else "KBKIT_STATE_ROOT"
    assert done.stderr == (
        f"kb: error: the {what} folder {folder} leads outside the repository (through a "
        "symlink or `..`); refused: kbkit reads and writes only inside the repository (to "
        f"keep it elsewhere, set {variable} instead of linking it)\n"
    )
    assert done.stdout == "" and HOSTILE_FILE not in done.stderr
    assert fingerprint(outside) == before
    # the variable, which the repository cannot set, is the way to keep it elsewhere
    os.unlink(world / folder)
    env = {**os.environ, variable: str(outside)}
    kept = subprocess.run(
        [sys.executable, "-m", "kbkit", "report", "--repo", str(world), "--format", "json"],
        capture_output=True,
        text=True,
        cwd=PROJECT,
        timeout=120,
        env=env,
    )
    assert kept.returncode == 0, kept.stderr


def test_a_knowledge_root_outside_is_refused(world: Path, tmp_path: Path) -> None:
    out = victim(tmp_path)
    policy = world / "knowledge/policy.yaml"
    text = policy.read_text() if policy.exists() else "version: 1\n"
    policy.write_text(text + "knowledge_root: ../victim\n")
    before = fingerprint(out)
    done = _report(world)
    assert done.returncode == 2, done.stdout[:300] + done.stderr
    assert "the knowledge root ../victim (knowledge_root in knowledge/policy.yaml) leads " in (
        done.stderr
    )
    assert SECRET not in done.stdout + done.stderr
    assert fingerprint(out) == before
