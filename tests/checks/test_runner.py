"""The runner pauses the cyclic garbage collector for a check and gives it back as it was."""

from __future__ import annotations

import gc
import os
from datetime import date
from pathlib import Path

import pytest

from kbkit.checks import runner
from kbkit.policy.model import load_policy


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo" / "knowledge" / "general"
    root.mkdir(parents=True)
    (root / "_index.md").write_text("# General\n\n- [a](a.md)\n")
    (root / "a.md").write_text("# A\n\nSee [missing](missing.md).\n")
    return tmp_path / "repo"


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_paused_during_a_check_and_restored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, enabled: bool
) -> None:
    repo = _repo(tmp_path)
    seen: list[bool] = []
    real = runner.validator_run

    def watching(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(runner, "validator_run", watching)
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        findings, pages = runner.run_validators(
            repo, load_policy(repo), ("tree", "lint"), date(2026, 11, 30)
        )
        after = gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()
    assert seen == [False]
    assert after is enabled
    assert any(f.rule_id == "tree/link-broken" for f in findings)
    assert pages == 2


def test_the_collector_comes_back_when_a_check_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _repo(tmp_path)

    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("a bug in a check")

    monkeypatch.setattr(runner, "validator_run", broken)
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        runner.run_validators(repo, load_policy(repo), ("tree", "lint"), date(2026, 11, 30))
    assert gc.isenabled()


def _two_validators_repo(tmp_path: Path) -> Path:
    repo = _repo(tmp_path)
    general = repo / "knowledge" / "general"
    (general / "orphan.md").write_text("---\ntitle: x\n---\n# Orphan\n\n[gone](gone.md)\n")
    (general / "b.md").write_text("# B\n\nIP 8.8.4.4 is the gateway.\n")
    return repo


@pytest.mark.parametrize("child_fails", [False, True])
def test_the_last_validator_runs_on_a_child_and_finds_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, child_fails: bool
) -> None:
    """Within FORK_LAST_PAGES, lint's cross-page checks run on a forked child beside the tree
    checks: the same findings, in the same order, as run here; a child that fails has its
    work done here."""
    from kbkit.checks import wiki_lint

    repo = _two_validators_repo(tmp_path)
    policy = load_policy(repo)
    tree = runner.load_for_checks(repo, policy)
    today = date(2026, 11, 30)
    monkeypatch.setattr(runner, "FORK_LAST_PAGES", range(0))
    here = runner.validator_run(tree, ("tree", "lint"), today)
    assert {f.rule_id.split("/")[0] for f in here.cross} == {"tree", "lint"}

    real, parent = wiki_lint.tree_findings, os.getpid()
    ran_in = tmp_path / "ran-in"

    def recording(*args: object) -> object:
        with ran_in.open("a") as out:
            out.write(f"{os.getpid()}\n")
        if child_fails and os.getpid() != parent:
            raise RuntimeError("a child's failure")
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(wiki_lint, "tree_findings", recording)
    monkeypatch.setattr(runner, "FORK_LAST_PAGES", range(1, 100))
    on_child = runner.validator_run(tree, ("tree", "lint"), today, fork_last=True)
    assert runner.validator_run(tree, ("tree", "lint"), today).cross == here.cross
    assert on_child.cross == here.cross
    assert all(type(f) is type(here.cross[0]) for f in on_child.cross)
    pids = [int(line) for line in ran_in.read_text().split()]
    assert pids[0] != parent  # the child ran it first
    # ... and a run without `fork_last` (an editor's, a report's) runs it here
    assert pids[1:] == ([parent] if child_fails else []) + [parent]
