"""A world for distill tests: real bare upstream and fork repositories, a ledger, and the
real `gh` talking to a stateful GitHub stand-in (`github_standin`)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kbkit.demo import make_knowledge_repo
from kbkit.distill import job as distill
from kbkit.distill.pr_record import decode
from kbkit.distill.publication import settings_from_env
from kbkit.intake.ledger import load_status, record_events
from kbkit.vcs import git
from tests.conftest import PROJECT
from tests.distill.github_standin import Fault, StandIn, missing_tools, serve

UPSTREAM, FORK = "kbkit-dev/knowledge", "kb-bot/knowledge"
DAY = "2026-11-30"
VAL = "repos/kbkit/components/validators/rules"
STATES = {"open": "OPEN", "closed": "CLOSED"}
# what the old `gh pr ...` names meant, as REST calls: (method, path ending)
CALLS = {
    "pr list": ("GET", "/pulls"),
    "pr create": ("POST", "/pulls"),
    "pr edit": ("PATCH", ""),
    "pr comment": ("POST", "/comments"),
}


def section(rule_id: str, source_id: str, title: str | None = None) -> str:
    return "\n".join(
        [
            f"### {rule_id} — {title or f'Lesson from {source_id}'}",
            "",
            "- Trigger: a check changes how it reads pages.",
            "- Must: add an ok case and a bad case for the change.",
            "- Must not: change a check without a case.",
            f"- Acceptance: both cases pass in `make test`. ^[{source_id}]",
        ]
    )


class ScriptedGateway:
    """Proposes one rule per event on the validators page, numbered by the test."""

    name = "scripted"

    def __init__(self, rules: dict[str, str] | None = None, reply: str | None = None):
        self.rules = rules or {}
        self.reply = reply
        self.calls = 0
        self.prompts: list[str] = []

    def complete(self, prompt: str, schema: dict[str, Any]) -> str:
        self.calls += 1
        self.prompts.append(prompt)
        if self.reply is not None:
            return self.reply
        proposals = []
        for source_id, rule_id in self.rules.items():
            if f'"{source_id}"' not in prompt:
                continue
            proposals.append(
                {
                    "target": VAL,
                    "rule_id": rule_id,
                    "title": f"Lesson from {source_id}",
                    "after": None,
                    "group": None,
                    "section": section(rule_id, source_id),
                    "citations": [source_id],
                    "rationale": "test",
                }
            )
        return json.dumps({"proposals": proposals})


class World:
    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch, hub: StandIn):
        self.root = root
        self.monkeypatch = monkeypatch
        self.hub = hub
        seed = root / "seed"
        seed.mkdir()
        make_knowledge_repo(PROJECT, seed)
        self.upstream = root / "upstream.git"
        self.fork = root / "fork.git"
        git.run_git(root, "clone", "--quiet", "--bare", str(seed), str(self.upstream))
        git.run_git(root, "clone", "--quiet", "--bare", str(seed), str(self.fork))
        hub.add_repo(UPSTREAM, self.upstream)
        hub.add_repo(FORK, self.fork)
        self.intake = root / "project" / "intake"
        self.state = root / "project" / "state"
        self.env: dict[str, str] = {}
        self.faults: dict[tuple[str, str], Fault] = {}
        hub.fault = self._fault

    def _fault(self, method: str, path: str) -> Fault | None:
        for (want, ending), fault in self.faults.items():
            if method == want and (path.endswith(ending) if ending else path.split("/")[-1].isdigit()):  # fmt: skip
                return fault
        return None

    def review(self) -> None:
        self.env = {
            "KBKIT_POST_MODE": "review",
            "KBKIT_KNOWLEDGE_PR_ENABLED": "true",
            "KBKIT_KNOWLEDGE_FORK_SLUG": FORK,
            "KBKIT_KNOWLEDGE_FORK_URL": str(self.fork),
            "KBKIT_KNOWLEDGE_REPO_SLUG": UPSTREAM,
        }
        for name, value in self.env.items():
            self.monkeypatch.setenv(name, value)

    def record(self, *numbers: int, title: str | None = None) -> list[tuple[str, str]]:
        rows = [
            {
                "source_kind": "merged_pr",
                "source_id": f"acme/app#{n}",
                "repo": "acme/app",
                "number": n,
                "title": title or f"Change number {n}",
                "summary": f"What PR {n} taught us.",
                "url": f"https://github.com/acme/app/pull/{n}",
                "merged_at": f"2026-11-29T10:{n % 60:02d}:00Z",
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

    def fail(self, call: str, status: int = 422, *, late: float = 0.0, page: str = "json") -> None:
        """Make an API call fail (a `status` error object, nothing done; `page` "html" or
        "empty": GitHub's front-end error page instead), or, with `late`, succeed on GitHub's
        side and answer only after `late` seconds."""
        fault = Fault("late", delay=late) if late else Fault("fail", status, page=page)
        self.faults[CALLS[call]] = fault

    def heal(self) -> None:
        self.faults.clear()

    def prs(self) -> list[dict[str, Any]]:
        """Every PR of the upstream, as a reviewer sees it."""
        shown = []
        for pull in self.hub.pulls[UPSTREAM]:
            state = "MERGED" if pull.merged_at else STATES[pull.state]
            comments = self.hub.comments.get((UPSTREAM, pull.number), [])
            shown.append(
                {
                    "number": pull.number,
                    "state": state,
                    "title": pull.title,
                    "body": pull.body,
                    "headRefName": pull.head_ref,
                    "baseRefName": pull.base_ref,
                    "headRefOid": self.hub.head_sha(pull),
                    "comments": [{"body": c["body"]} for c in comments],
                    "record": decode(pull.body),
                }
            )
        return shown

    @property
    def clone(self) -> Path:
        return self.state / "clone"

    def branch_commits(self, repo: Path, rev: str) -> list[str]:
        return git.run_git(repo, "rev-list", rev).split()

    def merge_pr(self, number: int, state: str = "MERGED", method: str = "merge") -> None:
        """What a reviewer does on GitHub: merge (merge commit, squash or rebase) or close."""
        if state == "MERGED":
            assert self.hub.merge(UPSTREAM, number, method, self.root / f"merge-{number}")
        else:
            self.hub.close(UPSTREAM, number)

    def main_page(self, document: str = VAL) -> str:
        return git.run_git(self.upstream, "show", f"main:knowledge/{document}.md")

    def commit_on_main(
        self, document: str, text: str | Callable[[str], str], message: str = "A hand edit"
    ) -> None:
        """A person edits a page on upstream main directly (not through a PR)."""
        work = self.root / "hand-edit"
        git.run_git(self.root, "clone", "--quiet", str(self.upstream), str(work))
        page = work / "knowledge" / f"{document}.md"
        page.write_text(text(page.read_text()) if callable(text) else text)
        git.commit_paths(work, [str(page.relative_to(work))], message + "\n")
        git.run_git(work, "push", "--quiet", "origin", "HEAD:main")
        shutil.rmtree(work)


@pytest.fixture(name="world")
def world_fixture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[World]:
    """A fresh upstream, fork and ledger, and the real gh pointed at a fresh stand-in."""
    why = missing_tools()
    if why:
        pytest.skip(why)
    hub = StandIn(lambda: "2026-11-30T06:00:00Z")
    certs = tmp_path_factory.getbasetemp() / "standin-certs"
    with serve(hub, tmp_path, certs) as env:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("KBKIT_GH_TIMEOUT", "20")
        monkeypatch.setenv("KBKIT_GH_RETRY_PAUSE", "0.05")
        yield World(tmp_path, monkeypatch, hub)
