"""SIGKILL a real `kb distill` at each stage; the next run loses nothing and doubles nothing."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time

import pytest

from kbkit.distill.models import RecordingGateway
from kbkit.vcs import git
from tests.conftest import PROJECT
from tests.distill.world import DAY, ScriptedGateway, World

BRANCH = f"knowledge/intake-{DAY}"
STAGES = ("reply", "apply", "commit", "push", "pr", "status")


def distill_process(world: World, replay: str, kill_at: str | None) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONPATH=f"{PROJECT}{os.pathsep}{PROJECT / 'tools'}")
    hooks = ["-m", "tests.step_hooks", *(["--kill-at", kill_at] if kill_at else []), "--"]
    argv = [
        sys.executable, *hooks, "distill", "--repo", str(world.root / "project"),
        "--knowledge-repo", str(world.upstream), "--today", DAY, "--quiet",
        "--model", f"replay:{replay}",
    ]  # fmt: skip
    return subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=PROJECT
    )


def prepare(world: World) -> tuple[list[tuple[str, str]], str]:
    world.review()
    keys = world.record(1, 2)
    replay = world.root / "replay.jsonl"
    rules = {"acme/app#1": "VAL-2c", "acme/app#2": "VAL-2d"}
    world.run(RecordingGateway(ScriptedGateway(rules), replay), dry_run=True)
    return keys, str(replay)


def check_exactly_once(world: World, keys: list[tuple[str, str]]) -> None:
    assert world.states(keys) == ["published", "published"]
    prs = world.gh()["prs"]
    assert len(prs) == 1 and prs[0]["state"] == "OPEN"
    batch_commits = git.commit_messages(world.clone, BRANCH, "Kbkit-Batch: ")
    assert len(batch_commits) == 1  # one batch, committed once
    page = (world.clone / "knowledge/repos/kbkit/components/validators/rules.md").read_text()
    assert page.count("### VAL-2c ") == 1 and page.count("### VAL-2d ") == 1
    assert git.rev_parse(world.fork, f"refs/heads/{BRANCH}") == git.rev_parse(world.clone, BRANCH)


@pytest.mark.parametrize("stage", STAGES)
def test_sigkill_at_each_stage_then_rerun(world: World, stage: str) -> None:
    keys, replay = prepare(world)
    killed = distill_process(world, replay, stage)
    _, err = killed.communicate(timeout=120)
    assert killed.returncode == -9, err.decode()
    expected = ["published", "pending"] if stage == "status" else ["pending", "pending"]
    assert world.states(keys) == expected  # nothing marked before the PR URL
    rerun = distill_process(world, replay, None)
    out, err = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, err.decode() + out.decode()
    check_exactly_once(world, keys)


@pytest.mark.stress
@pytest.mark.parametrize("seed", range(12))
def test_sigkill_at_random_moments(world: World, seed: int) -> None:
    keys, replay = prepare(world)
    rng = random.Random(seed)
    for _ in range(3):
        process = distill_process(world, replay, None)
        time.sleep(rng.uniform(0.05, 2.5))
        process.kill()
        process.communicate(timeout=120)
    final = distill_process(world, replay, None)
    out, err = final.communicate(timeout=120)
    assert final.returncode == 0, err.decode() + out.decode()
    check_exactly_once(world, keys)


def test_two_runs_at_once_distill_each_row_once(world: World) -> None:
    keys, replay = prepare(world)
    runs = [distill_process(world, replay, None) for _ in range(2)]
    results = [(p.wait(timeout=120), p.stderr.read().decode() if p.stderr else "") for p in runs]
    codes = sorted(code for code, _ in results)
    assert codes[0] == 0, results
    if codes[1] != 0:  # the later one found the lock held and changed nothing
        assert any("another `kb distill` is running" in err for _, err in results)
    check_exactly_once(world, keys)
