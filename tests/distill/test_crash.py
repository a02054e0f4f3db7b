"""SIGKILL a real `kb distill` at each stage; the next run loses nothing and doubles nothing."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time

import pytest

from kbkit.distill.models import RecordingGateway
from kbkit.intake.ledger import load_status
from kbkit.vcs import git
from tests.conftest import PROJECT
from tests.distill.world import DAY, VAL, ScriptedGateway, World, section

pytestmark = pytest.mark.slow  # make test-all: distill runs killed at each stage

BRANCH = f"knowledge/intake-{DAY}"
STAGES = ("reply", "apply", "commit", "push", "pr", "status")


def distill_process(
    world: World, replay: str, kill_at: str | None, day: str = DAY
) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONPATH=f"{PROJECT}{os.pathsep}{PROJECT / 'tools'}")
    hooks = ["-m", "tests.step_hooks", *(["--kill-at", kill_at] if kill_at else []), "--"]
    argv = [
        sys.executable, *hooks, "distill", "--repo", str(world.root / "project"),
        "--knowledge-repo", str(world.upstream), "--today", day, "--quiet",
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
    prs = world.prs()
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


# the stages a first batch shares with an added one run in make test above; the ones only an
# open PR has (the record before the push) run here, the rest under `make stress`
SECOND = [
    *(pytest.param(stage, marks=pytest.mark.stress) for stage in ("reply", "apply", "commit")),
    "record",
    "push",
    "status",
]


@pytest.mark.parametrize("stage", SECOND)
def test_sigkill_while_adding_a_batch_to_an_open_pr(world: World, stage: str) -> None:
    """The record goes into the body before the push: a kill between them leaves a body that
    lists a batch the head lacks, and the next run rebuilds the head from the record."""
    world.review()
    world.record(1)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    keys = world.record(2)
    replay = world.root / "replay.jsonl"
    world.run(RecordingGateway(ScriptedGateway({"acme/app#2": "VAL-2d"}), replay), dry_run=True)
    killed = distill_process(world, str(replay), stage)
    _, err = killed.communicate(timeout=120)
    assert killed.returncode == -9, err.decode()
    rerun = distill_process(world, str(replay), None)
    out, err = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, err.decode() + out.decode()
    assert world.states(keys) == ["published"]
    (pr,) = world.prs()
    assert pr["state"] == "OPEN" and pr["record"].rule_ids() == ["VAL-2c", "VAL-2d"]
    head = pr["headRefOid"]
    page = git.run_git(world.fork, "show", f"{head}:knowledge/repos/kbkit/components/validators/rules.md")  # fmt: skip
    assert page.count("### VAL-2c ") == 1 and page.count("### VAL-2d ") == 1
    batches = git.commit_messages(world.fork, head, "Kbkit-Batch: ")
    assert len(batches) == 2  # one commit per batch, none doubled


def test_sigkill_in_a_rebuild_between_body_and_push(world: World) -> None:
    world.review()
    world.record(1)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}), scheduled=True)
    world.record(2)
    world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}), scheduled=True, day="2026-12-01")
    world.merge_pr(1, method="squash")
    replay = world.root / "replay.jsonl"
    replay.write_text("")
    killed = distill_process(world, str(replay), "rebuilt", day="2026-12-01")
    _, err = killed.communicate(timeout=120)
    assert killed.returncode == -9, err.decode()
    rerun = distill_process(world, str(replay), None, day="2026-12-01")
    out, err = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, err.decode() + out.decode()
    second = world.prs()[1]
    git.fetch(world.clone)
    clean = git.run_git(world.clone, "merge-tree", "--write-tree", "origin/main", second["headRefOid"], check=False, code=True)  # fmt: skip
    assert clean == "0" and second["record"].rule_ids() == ["VAL-2d"]


def test_sigkill_after_a_rebuild_drops_a_rule_leaves_its_row_pending_not_published(
    world: World,
) -> None:
    """The rebuild's body stops listing an event whose rule no longer applies: its row is
    pending before the body changes, so a kill right after the body edit never leaves a row
    published by a PR that does not list it."""
    world.review()
    world.record(1, 2)
    replay = world.root / "replay.jsonl"
    rules = {"acme/app#1": "VAL-2c", "acme/app#2": "VAL-2d"}
    world.run(RecordingGateway(ScriptedGateway(rules), replay))
    took = section("VAL-2c", "PR #99", "Added by hand")
    world.commit_on_main(VAL, lambda text: text.rstrip("\n") + "\n\n" + took + "\n")
    killed = distill_process(world, str(replay), "rebuilt")
    _, err = killed.communicate(timeout=120)
    assert killed.returncode == -9, err.decode()
    (pr,) = world.prs()
    assert pr["record"].sources() == [("merged_pr", "acme/app#2")]  # the body changed
    row = load_status(world.intake)[("merged_pr", "acme/app#1")]
    assert row["state"] == "pending" and "no longer lists it" in row["reason"]
    kept = load_status(world.intake)[("merged_pr", "acme/app#2")]
    assert kept["state"] == "published" and kept["url"].endswith(f"/pull/{pr['number']}")
