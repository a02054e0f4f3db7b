"""Two daily loops built through the commands (`kb intake record-prs`, `kb distill` with a
recorded fake model): a healthy one, and a sick one with failed events, a refused batch
and an event pending for 87 days. The report's first screen must tell them apart."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kbkit.__main__ import main
from kbkit.demo import make_knowledge_repo
from kbkit.distill import job
from kbkit.distill.models import RecordingGateway
from kbkit.distill.publication import settings_from_env
from tests.conftest import PROJECT
from tests.distill.world import VAL, ScriptedGateway, section
from tests.gitrepo import git
from tests.intake.intake_factories import SLUG, make_pr, write_pages

DAY = "2026-11-30"
NOW = f"{DAY}T12:00:00Z"


@contextmanager
def clock(moment: str) -> Iterator[None]:
    saved = os.environ.get("KBKIT_NOW")
    os.environ["KBKIT_NOW"] = moment
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("KBKIT_NOW", None)
        else:
            os.environ["KBKIT_NOW"] = saved


def proposal(rule_id: str, number: int, title: str) -> dict[str, object]:
    source = f"{SLUG}#{number}"
    return {"target": VAL, "rule_id": rule_id, "title": title, "after": None, "group": None,
            "section": section(rule_id, source, title), "citations": [source], "rationale": "t"}  # fmt: skip


def _knowledge(root: Path) -> Path:
    seed = root / "knowledge-seed"
    seed.mkdir(parents=True)
    make_knowledge_repo(PROJECT, seed)
    bare = root / "knowledge.git"
    git(root, "clone", "--quiet", "--bare", str(seed), str(bare))
    return bare


def _initialised(repo: Path) -> Path:
    """A repository `kb init` set up: a small, clean knowledge tree (its answer is green)."""
    (repo / ".git").mkdir(parents=True)  # kbkit's repository marker (git ignores it)
    assert main(["init", "--repo", str(repo), "--local-hook"]) == 0
    return repo


def _record(repo: Path, numbers: list[int], at: str) -> None:
    merged = at.replace("T09:", "T08:")  # merged an hour before it is recorded
    pulls = write_pages(repo / f"pulls-{numbers[0]}.json", [[make_pr(n, updated_at=merged) for n in numbers]])  # fmt: skip
    with clock(at):
        assert main(["intake", "record-prs", "--repo", str(repo), "--from", str(pulls)]) == 0


def _distill(repo: Path, knowledge: Path, reply: str, *flags: str) -> int:
    """One `kb distill` run answered by a fake model: `reply`, recorded from a dry run."""
    replay = repo / "replay.jsonl"
    events = int(flags[flags.index("--max-events") + 1]) if "--max-events" in flags else 20
    with clock(NOW):
        job.run(job.Options(repo / "intake", repo / "state", str(knowledge), DAY,
                            RecordingGateway(ScriptedGateway(reply=reply), replay),
                            settings_from_env({}, str(knowledge), ""), max_events=events,
                            dry_run=True, quiet=True))  # fmt: skip
        return main(["distill", "--repo", str(repo), "--knowledge-repo", str(knowledge), "--today",
                     DAY, "--model", f"replay:{replay}", "--quiet", *flags])  # fmt: skip


def healthy_loop(root: Path) -> Path:
    """Two merged PRs recorded this morning, distilled: both rules accepted (shadow)."""
    repo = _initialised(root / "healthy")
    _record(repo, [1, 2], f"{DAY}T09:00:00Z")
    reply = json.dumps({"proposals": [proposal("VAL-2c", 1, "Cases for every check change"),
                                      proposal("VAL-2d", 2, "Name the page in every finding")]})  # fmt: skip
    assert _distill(repo, _knowledge(root / "healthy-k"), reply) == 0
    return repo


def sick_loop(root: Path) -> Path:
    """An event recorded 87 days ago still pending; two new ones whose batch the model got
    wholly refused (the same rule id twice and one already taken) at an attempt cap of one:
    both failed."""
    repo = _initialised(root / "sick")
    _record(repo, [7], "2026-09-04T09:00:00Z")  # 87 days before the report
    _record(repo, [8, 9], f"{DAY}T09:00:00Z")
    reply = json.dumps({"proposals": [proposal("VAL-1a", 8, "A rule whose id is taken"),
                                      proposal("VAL-1a", 9, "The same taken id again")]})  # fmt: skip
    code = _distill(repo, _knowledge(root / "sick-k"), reply, "--max-events", "2", "--max-attempts", "1")  # fmt: skip
    assert code == 1  # every proposal refused
    return repo
