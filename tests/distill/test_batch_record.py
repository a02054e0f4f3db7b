"""What was decided travels with the ledgers (#40 point 2): a batch distilled on one fresh
runner is told, proposal by proposal, by `kb report` on a second fresh clone that only ran
`kb intake sync --pull` (no `state/`, no artifacts): the documented daily setup."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbkit.__main__ import main
from kbkit.demo import make_knowledge_repo
from kbkit.distill import job
from kbkit.distill.models import RecordingGateway
from kbkit.distill.publication import settings_from_env
from tests.conftest import PROJECT
from tests.distill.world import VAL, ScriptedGateway, section
from tests.gitrepo import commit_files, git, init_repo
from tests.intake.intake_factories import SLUG, make_pr, write_pages

DAY = "2026-11-30"


def proposal(rule_id: str, source: str, title: str) -> dict[str, object]:
    return {"target": VAL, "rule_id": rule_id, "title": title, "after": None, "group": None,
            "section": section(rule_id, source, title), "citations": [source], "rationale": "t"}  # fmt: skip


REPLY = json.dumps({"proposals": [
    proposal("VAL-2c", f"{SLUG}#1", "Cases for every check change"),
    proposal("VAL-2c", f"{SLUG}#2", "A second rule with the same id"),
]})  # fmt: skip


def clone(tmp_path: Path, origin: Path, name: str) -> Path:
    work = tmp_path / name
    git(tmp_path, "clone", "--quiet", str(origin), str(work))
    git(work, "config", "user.email", "bot@example.com")
    git(work, "config", "user.name", "bot")
    return work


@pytest.mark.slow
def test_a_leads_fresh_clone_reports_what_the_model_proposed_and_what_was_decided(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("KBKIT_NOW", f"{DAY}T09:00:00Z")
    seed = init_repo(tmp_path / "seed")
    commit_files(seed, {"README.md": "team\n", "intake/config.yaml": f"repo: {SLUG}\n"}, "init")
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "--quiet", "--bare", str(seed), str(origin))
    knowledge_seed = tmp_path / "knowledge-seed"
    knowledge_seed.mkdir()
    make_knowledge_repo(PROJECT, knowledge_seed)
    knowledge = tmp_path / "knowledge.git"
    git(tmp_path, "clone", "--quiet", "--bare", str(knowledge_seed), str(knowledge))

    runner = clone(tmp_path, origin, "runner")  # today's fresh runner
    pulls = write_pages(tmp_path / "pulls.json", [[make_pr(1), make_pr(2)]])
    assert main(["intake", "record-prs", "--repo", str(runner), "--from", str(pulls)]) == 0
    replay = tmp_path / "replay.jsonl"  # the fake model: one reply, recorded from a dry run
    options = job.Options(runner / "intake", runner / "state", str(knowledge), DAY,
                          RecordingGateway(ScriptedGateway(reply=REPLY), replay),
                          settings_from_env({}, str(knowledge), ""), dry_run=True, quiet=True)  # fmt: skip
    job.run(options)
    assert main(["distill", "--repo", str(runner), "--knowledge-repo", str(knowledge),
                 "--today", DAY, "--model", f"replay:{replay}", "--quiet"]) == 0  # fmt: skip
    assert main(["intake", "sync", "--repo", str(runner), "--push"]) == 0
    assert "batches.jsonl" in git(origin, "ls-tree", "-r", "--name-only", "kbkit/intake-state")

    lead = clone(tmp_path, origin, "lead")  # a lead's clone: no state/, no artifacts
    assert main(["intake", "sync", "--repo", str(lead), "--pull"]) == 0
    assert not (lead / "state").exists()
    capsys.readouterr()
    assert main(["report", "--repo", str(lead), "--format", "json"]) == 0
    curator = json.loads(capsys.readouterr().out)["curator"]
    totals = curator["totals"]
    assert (totals["batches"], totals["proposals"], totals["accepted"], totals["rejected"]) == (
        1,
        2,
        1,
        1,
    )
    decided = {(d["rule_id"], d["title"], d["decision"], d["reason"]) for d in curator["decisions"]}
    assert ("VAL-2c", "Cases for every check change", "accepted", None) in decided
    [refused] = [d for d in curator["decisions"] if d["decision"] == "rejected"]
    assert refused["title"] == "A second rule with the same id" and refused["reason"]
    [batch] = curator["batches"]
    assert batch["state"] == "shadowed" and batch["gate"] == "passed" and batch["artifact"] is None
    capsys.readouterr()
    assert main(["report", "--repo", str(lead)]) == 0  # the markdown a job summary shows
    summary = capsys.readouterr().out
    assert "2 proposals in 1 batch: 1 accepted, 1 rejected" in summary
    assert "Cases for every check change" in summary
