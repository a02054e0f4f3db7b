"""The gate cannot be turned off and needs no script in the clone (#10 class 4, #11)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbkit.__main__ import main
from kbkit.curator import (
    KnowledgeConfigurationError,
    KnowledgeCurator,
    KnowledgeValidatorError,
)
from kbkit.infra.errors import UsageError
from kbkit.intake.ledger import load_status
from kbkit.vcs import git
from tests.curator.conftest import batch, make_clone, row
from tests.distill.world import DAY, ScriptedGateway, World, world_fixture

__all__ = ["world_fixture"]  # the real-git distill world of tests/distill

BUILTINS = [("kb", "check-knowledge-tree"), ("kb", "check-wiki-lint")]


def _broken_link_row() -> dict:  # type: ignore[type-arg]
    bad = row().copy()
    bad["section"] = bad["section"].replace(
        "keep the path relative.", "keep the path [relative](no-such-page.md)."
    )
    return bad


def _snapshot(clone: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(clone.rglob("*.md"))}


@pytest.mark.slow
@pytest.mark.parametrize("policy_line", ["validators: []", "validators:"])
def test_a_policy_cannot_turn_the_gate_off(tmp_path: Path, policy_line: str) -> None:
    clone = make_clone(tmp_path / "c", validators="real")
    assert not (clone / "tools").exists()  # nothing in the clone to run: kbkit's own
    policy = clone / "knowledge/policy.yaml"
    policy.write_text(policy.read_text() + f"\n{policy_line}\n")
    before = _snapshot(clone)
    curator = KnowledgeCurator(clone, today="2026-12-01")
    validation = curator.validate_proposals({"proposals": [_broken_link_row()]}, batch())
    with pytest.raises(KnowledgeValidatorError) as info:
        curator.apply(validation)
    result = info.value.result
    assert [r.command for r in result.runs] == BUILTINS[:1]
    assert result.status == "failed" and "tree/link-broken" in result.output
    assert _snapshot(clone) == before
    good = curator.validate_proposals({"proposals": [row()]}, batch())
    applied = curator.apply(good)
    assert applied.validators is not None
    assert [(r.command, r.status) for r in applied.validators.runs] == [
        (c, "passed") for c in BUILTINS
    ]


@pytest.mark.slow
def test_extra_validators_run_after_the_builtins(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "c")
    curator = KnowledgeCurator(clone, today="2026-12-01")
    result = curator.apply(curator.validate_proposals({"proposals": [row()]}, batch()))
    assert result.validators is not None
    assert [r.command for r in result.validators.runs] == [
        *BUILTINS,
        ("tools/check_knowledge_tree.py",),
        ("tools/check_wiki_lint.py",),
    ]


@pytest.mark.slow
def test_a_kbkit_folder_in_the_clone_is_never_imported(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "c", validators="real")
    marker = tmp_path / "imported"
    hostile = clone / "kbkit"
    hostile.mkdir()
    code = f"open({str(marker)!r}, 'w').close()\n"
    (hostile / "__init__.py").write_text(code)
    (hostile / "__main__.py").write_text(code)
    curator = KnowledgeCurator(clone, today="2026-12-01")
    result = curator.apply(curator.validate_proposals({"proposals": [row()]}, batch()))
    assert result.validators is not None and result.validators.status == "passed"
    assert not marker.exists()


def test_a_missing_extra_validator_is_a_configuration_error(
    clone: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (clone / "tools/check_wiki_lint.py").unlink()
    before = _snapshot(clone)
    reply = tmp_path / "reply.json"
    reply.write_text(json.dumps({"proposals": [row()]}))
    batch_file = tmp_path / "batch.json"
    batch_file.write_text(json.dumps(batch().to_dict()))
    args = ["--repo", str(clone), "--batch", str(batch_file), "--proposals", str(reply)]
    code = main(["curate", "apply", *args])
    _, err = capsys.readouterr()
    assert code == 2
    assert "tools/check_wiki_lint.py" in err and "Traceback" not in err
    assert _snapshot(clone) == before
    with pytest.raises(KnowledgeConfigurationError):
        KnowledgeCurator(clone).check_validators()


def _push_change(world: World, path: str, text: str | None, message: str) -> None:
    """What the user does in the knowledge repository: commit on main and push."""
    work = world.root / "user"
    if not work.exists():
        git.run_git(world.root, "clone", "--quiet", str(world.upstream), str(work))
    git.run_git(work, "pull", "--quiet", "origin", "main")
    target = work / path
    if text is None:
        git.run_git(work, "rm", "-r", "--quiet", path)
    else:
        target.write_text(text)
        git.run_git(work, "add", path)
    git.run_git(work, "commit", "--quiet", "-m", message)
    git.run_git(work, "push", "--quiet", "origin", "HEAD:main")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("broken", "error", "match"),
    [
        ("\nvalidators:\n  - [ci/check_links.py]\n", KnowledgeConfigurationError, "ci/check_"),
        ("\nvalidator_timeout: soon\n", UsageError, "validator_timeout"),
    ],
    ids=["missing-extra-validator", "bad-policy"],
)
def test_distill_without_tools_and_a_same_day_rerun_after_a_config_fix(
    world: World, broken: str, error: type[Exception], match: str
) -> None:
    _push_change(world, "tools", None, "no validator scripts in this repository")
    policy = (world.root / "user/knowledge/policy.yaml").read_text()
    _push_change(world, "knowledge/policy.yaml", policy + broken, "a configuration mistake")
    keys = world.record(1)
    gateway = ScriptedGateway({"acme/app#1": "VAL-2c"})
    with pytest.raises(error, match=match):
        world.run(gateway)
    assert gateway.calls == 0  # no model call spent on a gate that cannot run
    assert world.states(keys) == ["pending"]
    assert load_status(world.intake)[keys[0]]["attempts"] == 0  # no attempt consumed
    assert git.rev_parse(world.clone, "refs/heads/knowledge/intake-" + DAY) is None
    _push_change(world, "knowledge/policy.yaml", policy, "drop the custom validator")
    report = world.run(gateway)
    assert report.outcome == "shadowed" and report.commit and report.artifacts is not None
    transcript = (report.artifacts / "validators.txt").read_text()
    assert "$ kb check-knowledge-tree" in transcript and "$ kb check-wiki-lint" in transcript
    assert load_status(world.intake)[keys[0]]["attempts"] == 1


def test_a_caller_chosen_gate_replaces_the_builtins_and_cannot_be_empty(tmp_path: Path) -> None:
    """A host with its own fixed gate (the compat facade) names every command; the clone's
    policy cannot add to it or remove it, and an empty gate is refused."""
    from kbkit.curator import InvalidRequestError
    from tests.curator.conftest import EXTRA_VALIDATORS, validators_script

    clone = make_clone(tmp_path / "c")  # its policy lists two extra commands
    script = EXTRA_VALIDATORS[0]
    (clone / script).write_text(validators_script("fail"))
    curator = KnowledgeCurator(clone, today="2026-12-01", gate=[(script,)])
    with pytest.raises(KnowledgeValidatorError) as info:
        curator.apply(curator.validate_proposals({"proposals": [row()]}, batch()))
    assert [r.command for r in info.value.result.runs] == [(script,)]
    with pytest.raises(InvalidRequestError, match="at least one command"):
        KnowledgeCurator(clone, gate=[])
