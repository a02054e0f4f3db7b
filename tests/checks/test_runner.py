"""The runner pauses the cyclic garbage collector for a check and gives it back as it was."""

from __future__ import annotations

import gc
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
