"""kb distill end to end: the command, dry runs, attempts and the cap, the validator gate."""

from __future__ import annotations

import json
from pathlib import Path

import llm
import pytest

from kbkit.commands.distill import main
from kbkit.distill.models import RecordingGateway, ReplayGateway
from kbkit.intake.ledger import load_status
from kbkit.vcs import git
from tests.distill.world import DAY, ScriptedGateway, World

BRANCH = f"knowledge/intake-{DAY}"


def record_replay(world: World, rules: dict[str, str]) -> Path:
    """A replay file for the world's current pending batch (recorded from a dry run)."""
    replay = world.root / "replay.jsonl"
    world.run(RecordingGateway(ScriptedGateway(rules), replay), dry_run=True)
    return replay


def cli(world: World, *extra: str) -> list[str]:
    return [
        "--repo", str(world.root / "project"), "--knowledge-repo", str(world.upstream),
        "--today", DAY, "--quiet", *extra,
    ]  # fmt: skip


def ledger_bytes(world: World) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(world.intake.glob("*.jsonl")))


@pytest.mark.slow
def test_command_distills_commits_and_shadows(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = world.record(1, 2)
    replay = record_replay(world, {"acme/app#1": "VAL-2c", "acme/app#2": "VAL-2d"})
    before = ledger_bytes(world)
    assert main(cli(world, "--model", f"replay:{replay}", "--dry-run")) == 1  # would change
    assert ledger_bytes(world) == before and not (world.state / "artifacts").exists()
    assert git.rev_parse(world.clone, f"refs/heads/{BRANCH}") is None
    capsys.readouterr()
    assert main(cli(world, "--model", f"replay:{replay}", "--format", "json")) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["outcome"] == "shadowed"
    assert [a["rule_id"] for a in report["accepted"]] == ["VAL-2c", "VAL-2d"]
    assert report["pages"] == ["repos/kbkit/components/validators/rules"]
    assert world.states(keys) == ["shadowed", "shadowed"]
    assert (world.state / ".gitignore").read_text().endswith("\n*\n")  # state/ ignores itself
    page = (world.clone / "knowledge/repos/kbkit/components/validators/rules.md").read_text()
    assert "### VAL-2c — Lesson from acme/app#1" in page
    assert main(cli(world, "--model", f"replay:{replay}")) == 0  # second run: nothing pending
    assert "nothing-pending" in capsys.readouterr().out
    assert len(git.run_git(world.clone, "rev-list", BRANCH).split()) == 2


@pytest.mark.slow
def test_model_failures_count_attempts_up_to_the_cap(world: World) -> None:
    keys = world.record(1)
    broken = ScriptedGateway(reply='{"proposals": [')  # truncated JSON
    first = world.run(broken, max_attempts=2)
    assert first.outcome == "failed" and "unusable" in first.notes[-1]
    status = load_status(world.intake)[keys[0]]
    assert (status["state"], status["attempts"]) == ("pending", 1)
    world.run(broken, max_attempts=2)
    status = load_status(world.intake)[keys[0]]
    assert (status["state"], status["attempts"]) == ("failed", 2)
    assert world.run(broken, max_attempts=2).outcome == "nothing-pending"
    assert (world.state / "artifacts/knowledge-intake" / DAY).is_dir()


@pytest.mark.slow
def test_replay_miss_touches_no_row(world: World) -> None:
    keys = world.record(1)
    replay = world.root / "empty.jsonl"
    replay.write_text("")
    with pytest.raises(Exception, match="no recorded reply for request sha256:"):
        world.run(ReplayGateway(replay))
    assert world.states(keys) == ["pending"]


@pytest.mark.slow
def test_validator_failure_rolls_back_and_keeps_rows_pending(world: World) -> None:
    keys = world.record(1)
    gateway = ScriptedGateway({"acme/app#1": "VAL-2c"})
    world.run(gateway, dry_run=True)  # creates the clone
    shim = world.clone / "tools/check_wiki_lint.py"
    shim.write_text("import sys\nprint('knowledge/x.md:1: lint/boom')\nsys.exit(1)\n")
    policy = world.clone / "knowledge/policy.yaml"  # an extra validator, after kbkit's own
    policy.write_text(policy.read_text() + "\nvalidators:\n  - [tools/check_wiki_lint.py]\n")
    paths = ["tools/check_wiki_lint.py", "knowledge/policy.yaml"]
    git.commit_paths(world.clone, paths, "break the gate\n")
    git.run_git(world.clone, "push", "--quiet", "origin", "HEAD:main")
    report = world.run(gateway)
    assert report.outcome == "failed" and "validators refused" in report.notes[-1]
    assert world.states(keys) == ["pending"]
    assert git.run_git(world.clone, "status", "--porcelain") == ""
    assert report.artifacts is not None
    assert "lint/boom" in (report.artifacts / "validators.txt").read_text()


def test_no_knowledge_repo_is_a_usage_error(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    from kbkit.__main__ import main as kb

    world.record(1)
    assert kb(["distill", "--repo", str(world.root / "project"), "--model", "replay:x"]) == 2
    assert "--knowledge-repo" in capsys.readouterr().err


def test_bad_replay_file_is_named(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    from kbkit.__main__ import main as kb

    world.record(1)
    bad = world.root / "bad.jsonl"
    bad.write_text("{not json\n")
    assert kb(["distill", *cli(world, "--model", f"replay:{bad}")]) == 1
    assert f"{bad}:1:" in capsys.readouterr().err
    assert not (world.state / "artifacts").exists()


@pytest.mark.slow
def test_overlapping_runs_fail_fast(world: World) -> None:
    from kbkit.infra.file_lock import locked

    keys = world.record(1)
    world.state.mkdir(parents=True)
    with locked(world.state / "distill"), pytest.raises(Exception, match="another `kb distill`"):
        world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    assert world.states(keys) == ["pending"]


class EmptyModel(llm.Model):
    model_id = "kbkit-test-empty"
    supports_schema = True

    def execute(self, prompt, stream, response, conversation):  # type: ignore[no-untyped-def]
        yield '{"proposals": []}'


class EmptyPlugin:
    @llm.hookimpl
    def register_models(self, register):  # type: ignore[no-untyped-def]
        register(EmptyModel())


@pytest.mark.slow
def test_llm_model_through_the_command_and_record(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from llm.plugins import pm

    monkeypatch.setenv("LLM_USER_PATH", str(world.root / "llm-home"))
    pm.register(EmptyPlugin(), name="kbkit-test-empty")
    try:
        keys = world.record(1)
        replay = world.root / "recorded.jsonl"
        code = main(cli(world, "--model", "llm:kbkit-test-empty", "--record", str(replay)))
    finally:
        pm.unregister(name="kbkit-test-empty")
    assert code == 0 and "no-rules" in capsys.readouterr().out
    assert world.states(keys) == ["shadowed"]
    row = json.loads(replay.read_text())
    assert row["model"] == "llm:kbkit-test-empty" and row["reply"] == '{"proposals": []}'


@pytest.mark.slow
def test_leftovers_of_a_crash_are_cleaned_before_the_next_run(world: World) -> None:
    keys = world.record(1)
    gateway = ScriptedGateway({"acme/app#1": "VAL-2c"})
    world.run(gateway, dry_run=True)  # the clone exists now
    partial = world.state / "clone.partial-999999"  # a clone killed half way
    (partial / "junk").mkdir(parents=True)
    (world.clone / ".git" / "index.lock").write_text("")  # a commit killed half way
    page = world.clone / "knowledge/repos/kbkit/components/validators/rules.md"
    page.write_text(page.read_text() + "\nhalf an apply\n")  # an apply killed before commit
    report = world.run(gateway)
    assert report.outcome == "shadowed" and world.states(keys) == ["shadowed"]
    assert "half an apply" not in page.read_text()
    assert any("leftovers" in note for note in report.notes)
    assert not partial.exists()


@pytest.mark.slow
def test_an_untracked_rule_page_of_a_killed_apply_never_reaches_a_commit(world: World) -> None:
    """A run killed between the apply of a new rule page and its commit leaves the page
    untracked and its owner's index row changed: both are gone before the next batch, so
    the next commit cannot carry a page no index registers (`tree/page-unregistered`)."""
    keys = world.record(1)
    gateway = ScriptedGateway({"acme/app#1": "VAL-2c"})
    world.run(gateway, dry_run=True)  # the clone exists now
    owner = world.clone / "knowledge/repos/kbkit/components/lessons"
    owner.mkdir(parents=True, exist_ok=True)
    (owner / "rules.md").write_text('---\ntitle: "Half"\ntype: rule\n---\n\n## LES-1a — half\n')
    index = world.clone / "knowledge/repos/kbkit/components/_index.md"
    index.write_text(index.read_text() + "\n- [lessons](lessons/rules.md)\n")
    report = world.run(gateway)
    assert report.outcome == "shadowed" and world.states(keys) == ["shadowed"]
    assert not (owner / "rules.md").exists() and "lessons/rules.md" not in index.read_text()
    assert any("leftovers of an interrupted run: 2 path(s)" in note for note in report.notes)
    committed = git.run_git(world.clone, "show", "--stat", "--format=", BRANCH)
    assert "lessons" not in committed and "validators/rules.md" in committed
    from kbkit.__main__ import main as kb

    assert kb(["check", "--repo", str(world.clone)]) == 0  # the branch the PR would carry


@pytest.mark.slow
def test_knowledge_repo_from_intake_config(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = world.record(1)
    replay = record_replay(world, {"acme/app#1": "VAL-2c"})
    (world.intake / "config.yaml").write_text(f"repo: acme/app\nknowledge_repo: {world.upstream}\n")
    argv = ["--repo", str(world.root / "project"), "--today", DAY, "--quiet"]
    assert main([*argv, "--model", f"replay:{replay}"]) == 0
    assert world.states(keys) == ["shadowed"]


@pytest.mark.slow
def test_one_ledger_one_distill_and_a_hanging_gh_times_out_leaving_rows_pending(
    world: World,
) -> None:
    """Two real `kb distill` processes with two state folders share one intake ledger: the
    second fails fast. The first hangs in a `gh` that never answers: it stops within
    KBKIT_GH_TIMEOUT with exit 4, its rows still pending and every distill lock free."""
    import os
    import subprocess
    import sys
    import threading
    import time

    from kbkit.infra.file_lock import locked

    world.review()
    keys = world.record(1)
    replay = record_replay(world, {"acme/app#1": "VAL-2c"})
    started = threading.Event()
    world.hub.during = lambda method, path: started.set()  # the first request arrived
    world.fail("pr list", late=120)  # ...and is never answered in time
    env = dict(os.environ, KBKIT_GH_TIMEOUT="5")  # sent twice (a timeout is retried once)

    def kb_distill(state: Path) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "kbkit", "distill", *cli(world, "--model", f"replay:{replay}")],
            env=dict(env, KBKIT_STATE_ROOT=str(state)),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    first = kb_distill(world.state)
    deadline = time.monotonic() + 60
    while not started.is_set() and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert started.is_set(), first.communicate()
    second = kb_distill(world.root / "other-state")
    out, err = second.communicate(timeout=60)
    assert second.returncode == 1, err
    assert "another `kb distill` is running on the intake ledger" in err
    assert str(world.intake.resolve()) in err and "Traceback" not in err
    waited = time.monotonic()
    out, err = first.communicate(timeout=60)
    assert first.returncode == 4, err
    assert time.monotonic() - waited < 30
    assert "`gh api repos/kbkit-dev/knowledge/pulls?state=open" in err
    assert "did not finish within 5s" in err and "Traceback" not in err
    assert world.states(keys) == ["pending"]
    for guarded in (world.intake, world.state, world.root / "other-state"):
        with locked(guarded / "distill", timeout=0.1):
            pass
    ignored = (world.intake / ".gitignore").read_text()
    assert "*.lock" in ignored
