"""End to end, as a new user would, from the README alone: every command of README.md's
```sh blocks run as written in a reader's shell (a fresh HOME, no virtual environment; kbkit
cloned from this checkout instead of the forge): install, a first green check, the
pre-commit hook; then real commits through real pre-commit, from a shell whose PATH holds
neither kbkit nor pre-commit (as a GUI client's), that must pass and must fail, and
`kb check` from a subdirectory; and the published hook through `pre-commit try-repo` and
pinned to a commit. No file is copied from kbkit's checkout. A few minutes (pip installs);
marked `e2e`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.doc_blocks import (
    FORGE_URL,
    blocks,
    new_repository,
    plain_env,
    run,
    script,
    shell_blocks,
)
from tests.gitrepo import git

PROJECT = Path(__file__).resolve().parents[1]

pytestmark = [
    pytest.mark.slow,  # make test-all: pip into a new venv, real pre-commit
    pytest.mark.e2e,
]

DRAFT = """---
title: "Deploys"
created: 2026-11-30
updated: 2026-11-30
type: guide
tags: [general]
sources: []
---

# Deploys

How this team ships a release, step by step.
"""


def shell(repo: Path, text: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", text], cwd=repo, env=env, capture_output=True, text=True, timeout=900
    )


def test_a_new_repository_adopts_kbkit_by_the_readme(tmp_path: Path) -> None:
    readme = shell_blocks(PROJECT / "README.md")
    assert [block for block in readme if block.skip is None], "README.md runs no command"
    home = tmp_path / "home"
    home.mkdir()
    env = plain_env(home)
    repo = new_repository(tmp_path / "team-repo", env)

    done = run(script(readme), repo, env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    kb = home / ".kbkit" / "bin" / "kb"
    assert kb.is_file() and "Set up kbkit" in git(repo, "log", "--format=%s", "-1")
    assert "kbkit check passed" in done.stdout  # the first green check
    assert git(repo, "status", "--porcelain") == ""  # no lock, cache or venv left to commit
    hook = (repo / ".pre-commit-config.yaml").read_text()
    assert "language: python" in hook and "language: system" not in hook

    # From here on, a shell with neither kbkit nor pre-commit on PATH (a GUI client's).
    bare = plain_env(home)
    assert shell(repo, "command -v kb || command -v pre-commit", bare).returncode == 1
    # An untracked draft page does not block an unrelated commit.
    draft = repo / "knowledge" / "general" / "deploys.md"
    draft.write_text(DRAFT)
    (repo / "README.md").write_text("# team repo\n\nNow with kbkit.\n")
    done = shell(repo, "git commit -qam 'Unrelated change'", bare)
    assert done.returncode == 0, done.stdout + done.stderr
    # A commit that stages the index but not the page it links fails.
    index = repo / "knowledge" / "general" / "_index.md"
    index.write_text(index.read_text() + "\n- [Deploys](deploys.md)\n")
    done = shell(repo, "git add knowledge/general/_index.md && git commit -qm x", bare)
    assert done.returncode != 0
    assert "tree/link-broken" in done.stdout + done.stderr
    assert "not found" not in done.stdout + done.stderr  # no "Executable `kb` not found"
    # With the page staged too, it passes.
    done = shell(repo, "git add knowledge && git commit -qm 'Deploy guide'", bare)
    assert done.returncode == 0, done.stdout + done.stderr

    # `kb check` from a subdirectory checks the whole repository.
    top = subprocess.run([str(kb), "check"], cwd=repo, capture_output=True, text=True, env=env)
    inside = repo / "knowledge" / "general"
    below = subprocess.run([str(kb), "check"], cwd=inside, capture_output=True, text=True, env=env)
    assert top.returncode == below.returncode == 0, below.stdout + below.stderr
    assert below.stdout == top.stdout and "3 page(s)" in below.stdout

    # `kb distill` distills a merged PR into a day-branch commit, the gate run by the
    # installed kbkit (the repository has no validator scripts of its own).
    distill_a_merged_pr(repo, kb, env)

    # Nothing of kbkit's checkout was copied into the repository.
    ours = {p.name for p in (PROJECT / "tools" / "kbkit").glob("*.py")}
    tracked = git(repo, "ls-files").split()
    assert not [path for path in tracked if Path(path).name in ours]


RULES = """---
title: "Team rules"
created: 2026-11-30
updated: 2026-11-30
type: rule
tags: [general]
sources: []
---

# Team rules

## 1. Releases

### TEAM-1a — Tag every release

- Trigger: a release is cut.
- Must: tag the commit as vX.Y.Z.
- Must not: release from an untagged commit.
- Acceptance: every release has a tag. ^[team/repo#1]
"""

MERGED_PR = {
    "number": 7,
    "title": "Deploy: retry the upload on timeout",
    "html_url": "https://github.com/team/repo/pull/7",
    "state": "closed",
    "user": {"login": "dev"},
    "body": "Uploads time out on large releases; retry them.",
    "created_at": "2026-11-28T00:00:00Z",
    "updated_at": "2026-11-29T10:00:00Z",
    "merged_at": "2026-11-29T10:00:00Z",
    "merge_commit_sha": "7" * 40,
    "draft": False,
    "labels": [],
    "base": {"repo": {"full_name": "team/repo"}},
}


def reply_proposing(rule_id: str, after: str, citation: str) -> str:
    """A model reply (kbkit's wire shape) that adds one rule to general/rules."""
    section = "\n".join(
        [
            f"### {rule_id} — Retry uploads that time out",
            "",
            "- Trigger: a release upload times out.",
            "- Must: retry the upload with backoff.",
            "- Must not: mark the release done after a failed upload.",
            f"- Acceptance: a timed-out upload is retried and the release completes. ^[{citation}]",
        ]
    )
    proposal = {
        "target": "general/rules",
        "rule_id": rule_id,
        "title": "Retry uploads that time out",
        "after": after,
        "group": None,
        "section": section,
        "citations": [citation],
        "rationale": "the PR's fix, as a rule",
    }
    return json.dumps({"proposals": [proposal]})


def distill_a_merged_pr(repo: Path, kb: Path, env: dict[str, str]) -> None:
    """A rules page, a merged PR recorded, and `kb distill` with a replay model: the first
    run names the request it has no reply for, the second commits on the day branch."""
    (repo / "knowledge" / "general" / "rules.md").write_text(RULES)
    index = repo / "knowledge" / "general" / "_index.md"
    index.write_text(index.read_text() + "- [Team rules](rules.md)\n")
    done = shell(repo, "git add knowledge && git commit -qm 'Rules'", env)
    assert done.returncode == 0, done.stdout + done.stderr
    pulls = repo.parent / "pulls.json"
    pulls.write_text(json.dumps([MERGED_PR]))
    record = [str(kb), "intake", "record-prs", "--from", str(pulls), "--slug", "team/repo"]
    assert subprocess.run(record, cwd=repo, env=env, capture_output=True).returncode == 0
    replay = repo.parent / "replay.jsonl"
    replay.write_text("")
    run = [str(kb), "distill", "--knowledge-repo", str(repo), "--model", f"replay:{replay}"]
    missed = subprocess.run(run, cwd=repo, env=env, capture_output=True, text=True)
    found = re.search(r"no recorded reply for request (sha256:[0-9a-f]{64})", missed.stderr)
    assert missed.returncode == 1 and found, missed.stderr
    reply = reply_proposing("TEAM-1b", "TEAM-1a", "team/repo#7")
    replay.write_text(json.dumps({"key": found.group(1), "reply": reply}) + "\n")
    done = subprocess.run(run, cwd=repo, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "accepted: TEAM-1b on general/rules" in done.stdout
    clone = repo / "state" / "clone"
    log = git(clone, "log", "--format=%B", "-1", "knowledge/intake-2026-11-30")
    assert "Kbkit-Source: merged_pr team/repo#\u200b7" in log  # inert: no cross-reference
    rules = git(clone, "show", "knowledge/intake-2026-11-30:knowledge/general/rules.md")
    assert "### TEAM-1a" in rules and "### TEAM-1b — Retry uploads that time out" in rules
    status = subprocess.run(
        [str(kb), "intake", "status", "--format", "json"], cwd=repo, env=env, capture_output=True
    )
    assert json.loads(status.stdout)["counts"] == {"merged_pr": {"shadowed": 1}}


def test_the_published_hook_checks_what_is_committed(tmp_path: Path) -> None:
    """`pre-commit try-repo CHECKOUT kb-check`: pre-commit installs kbkit from this checkout's
    `.pre-commit-hooks.yaml` into its own environment and runs the published hook."""
    repo = tmp_path / "team-repo"
    repo.mkdir()
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    init = subprocess.run(
        [sys.executable, "-m", "kbkit", "init"], cwd=repo, capture_output=True, text=True
    )
    assert init.returncode == 0, init.stderr
    git(repo, "add", "-A")
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "kbkit"], check=True, env=env)
    try_repo = [sys.executable, "-m", "pre_commit", "try-repo", str(PROJECT), "kb-check"]

    (repo / "knowledge" / "general" / "deploys.md").write_text(DRAFT)  # untracked
    done = subprocess.run(try_repo, cwd=repo, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    index = repo / "knowledge" / "general" / "_index.md"
    index.write_text(index.read_text() + "\n- [Deploys](deploys.md)\n")
    git(repo, "add", "knowledge/general/_index.md")
    done = subprocess.run(try_repo, cwd=repo, env=env, capture_output=True, text=True)
    assert done.returncode == 1
    assert "tree/link-broken" in done.stdout
    assert done.stdout.count("tree/link-broken") == 1  # the single hook: printed once


def test_the_published_hook_pinned_to_a_commit_blocks_a_bad_commit(tmp_path: Path) -> None:
    """The README's hook for a team: kbkit's repository hook, `rev:` a commit that exists
    (no release tag has been pushed), installed by pre-commit into its own environment. The
    commits run from a shell with neither kbkit nor the project's venv on PATH."""
    home = tmp_path / "home"
    home.mkdir()
    env = plain_env(home)
    repo = new_repository(tmp_path / "team-repo", env)
    init = subprocess.run(
        [sys.executable, "-m", "kbkit", "init", "--local-hook"],
        cwd=repo, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(PROJECT / "tools")},
    )  # fmt: skip
    assert init.returncode == 0, init.stderr
    sha = git(PROJECT, "rev-parse", "HEAD").strip()
    # the README's snippet, with this checkout for the forge and its HEAD for COMMIT-SHA
    snippet = next(
        block.text
        for block in blocks(PROJECT / "README.md")
        if block.info == "yaml" and "id: kb-check" in block.text
    )
    assert "rev: COMMIT-SHA" in snippet
    config = snippet.replace(FORGE_URL, str(PROJECT)).replace("COMMIT-SHA", sha)
    (repo / ".pre-commit-config.yaml").write_text(config)
    installed = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"], cwd=repo, env=env, capture_output=True
    )
    assert installed.returncode == 0, installed.stderr
    assert shell(repo, "command -v kb", env).returncode == 1
    done = shell(repo, "git add -A && git commit -qm 'Set up kbkit'", env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

    index = repo / "knowledge" / "general" / "_index.md"
    index.write_text(index.read_text() + "\n- [Deploys](deploys.md)\n")
    done = shell(repo, "git commit -qam 'Link a page that is not there'", env)
    assert done.returncode == 1
    assert "tree/link-broken" in done.stdout + done.stderr
    (repo / "knowledge" / "general" / "deploys.md").write_text(DRAFT)
    done = shell(repo, "git add -A && git commit -qm 'Deploy guide'", env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
