"""A world for distill tests: real bare upstream and fork repos, a ledger, a fake `gh`."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from kbkit.demo import make_knowledge_repo
from kbkit.distill import job as distill
from kbkit.distill.publication import settings_from_env
from kbkit.intake.ledger import load_status, record_events
from kbkit.vcs import git
from tests.conftest import PROJECT

UPSTREAM, FORK = "kbkit-dev/knowledge", "kb-bot/knowledge"
DAY = "2026-11-30"
VAL = "repos/kbkit/components/validators/rules"


class ScriptedGateway:
    """Proposes one rule per event on the validators page, numbered by the test."""

    name = "scripted"

    def __init__(self, rules: dict[str, str] | None = None, reply: str | None = None):
        self.rules = rules or {}
        self.reply = reply
        self.calls = 0

    def complete(self, prompt: str, schema: dict[str, Any]) -> str:
        self.calls += 1
        if self.reply is not None:
            return self.reply
        proposals = []
        for source_id, rule_id in self.rules.items():
            if f'"{source_id}"' not in prompt:
                continue
            section = "\n".join(
                [
                    f"### {rule_id} — Lesson from {source_id}",
                    "",
                    "- Trigger: a check changes how it reads pages.",
                    "- Must: add an ok case and a bad case for the change.",
                    "- Must not: change a check without a case.",
                    f"- Acceptance: both cases pass in `make test`. ^[{source_id}]",
                ]
            )
            proposals.append(
                {
                    "target": VAL,
                    "rule_id": rule_id,
                    "title": f"Lesson from {source_id}",
                    "after": None,
                    "group": None,
                    "section": section,
                    "citations": [source_id],
                    "rationale": "test",
                }
            )
        return json.dumps({"proposals": proposals})


class World:
    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch):
        self.root = root
        self.monkeypatch = monkeypatch
        seed = root / "seed"
        seed.mkdir()
        make_knowledge_repo(PROJECT, seed)
        self.upstream = root / "upstream.git"
        self.fork = root / "fork.git"
        git.run_git(root, "clone", "--quiet", "--bare", str(seed), str(self.upstream))
        git.run_git(root, "clone", "--quiet", "--bare", str(seed), str(self.fork))
        self.intake = root / "project" / "intake"
        self.state = root / "project" / "state"
        self.gh_state = root / "gh.json"
        self.gh_state.write_text(
            json.dumps({"repos": {UPSTREAM: str(self.upstream), FORK: str(self.fork)}, "prs": []})
        )
        bin_dir = root / "bin"
        bin_dir.mkdir()
        gh = bin_dir / "gh"
        gh.write_text(f"#!{sys.executable}\n" + (Path(__file__).parent / "fake_gh.py").read_text())
        gh.chmod(0o755)
        self.bin = bin_dir
        monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
        monkeypatch.setenv("FAKE_GH_STATE", str(self.gh_state))
        self.env: dict[str, str] = {}

    def review(self) -> None:
        self.env = {
            "POST_MODE": "review",
            "KNOWLEDGE_PR_ENABLED": "true",
            "KNOWLEDGE_FORK_SLUG": FORK,
            "KNOWLEDGE_FORK_URL": str(self.fork),
            "KNOWLEDGE_REPO_SLUG": UPSTREAM,
        }
        for name, value in self.env.items():
            self.monkeypatch.setenv(name, value)

    def record(self, *numbers: int) -> list[tuple[str, str]]:
        rows = [
            {
                "source_kind": "merged_pr",
                "source_id": f"acme/app#{n}",
                "repo": "acme/app",
                "number": n,
                "title": f"Change number {n}",
                "summary": f"What PR {n} taught us.",
                "url": f"https://github.com/acme/app/pull/{n}",
                "merged_at": "2026-11-29T10:00:00Z",
                "recorded_at": f"2026-11-29T10:00:{n % 60:02d}Z",
            }
            for n in numbers
        ]
        record_events(self.intake, rows)
        return [("merged_pr", f"acme/app#{n}") for n in numbers]

    def options(self, gateway: Any, **extra: Any) -> distill.Options:
        values: dict[str, Any] = {
            "intake_dir": self.intake,
            "state_dir": self.state,
            "knowledge_repo": str(self.upstream),
            "day": DAY,
            "gateway": gateway,
            "settings": settings_from_env(self.env, str(self.upstream), ""),
            "quiet": True,
        }
        values.update(extra)
        return distill.Options(**values)

    def run(self, gateway: Any, **extra: Any) -> distill.Report:
        return distill.run(self.options(gateway, **extra))

    def states(self, keys: list[tuple[str, str]]) -> list[str]:
        status = load_status(self.intake)
        return [status[k]["state"] for k in keys]

    def gh(self) -> dict[str, Any]:
        return json.loads(self.gh_state.read_text())  # type: ignore[no-any-return]

    def set_gh(self, **changes: Any) -> None:
        data = self.gh()
        data.update(changes)
        self.gh_state.write_text(json.dumps(data))

    @property
    def clone(self) -> Path:
        return self.state / "clone"

    def branch_commits(self, repo: Path, rev: str) -> list[str]:
        out = git.run_git(repo, "rev-list", rev)
        return out.split()

    def merge_pr(self, number: int, state: str = "MERGED") -> None:
        """What a reviewer does on GitHub: merge (a real merge commit) or close the PR."""
        data = self.gh()
        pr = next(p for p in data["prs"] if p["number"] == number)
        head = git.run_git(self.fork, "rev-parse", f"refs/heads/{pr['headRefName']}").strip()
        if state == "MERGED":
            work = self.root / f"merge-{number}"
            git.run_git(self.root, "clone", "--quiet", str(self.upstream), str(work))
            git.run_git(work, "fetch", "--quiet", str(self.fork), pr["headRefName"])
            git.run_git(work, "merge", "--quiet", "--no-ff", "-m", f"Merge #{number}", "FETCH_HEAD")
            git.run_git(work, "push", "--quiet", "origin", "HEAD:main")
            shutil.rmtree(work)
        pr["state"] = state
        pr["headRefOid"] = head
        self.gh_state.write_text(json.dumps(data))


@pytest.fixture(name="world")
def world_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    """A fresh upstream, fork, ledger and fake gh for one test."""
    return World(tmp_path, monkeypatch)
