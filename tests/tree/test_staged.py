"""Staged mode: hooks check the commit's tree (tracked and staged files), not the working
tree. Real git repositories, real `kb` processes and a real `pre-commit run`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kbkit.tree.staged import _names_v2, committed_walk, tracked_under
from kbkit.tree.walk import PACKED_KEY, walk_root
from kbkit.vcs.git_index import parse_index
from tests.gitrepo import git

POLICY = "version: 1\ntaxonomy:\n  tags: [general, knowledge]\n"
INDEX = """---
title: "{title}"
created: 2026-11-30
updated: 2026-11-30
type: index
tags: [general, knowledge]
sources: []
---

# {title}

The pages of this folder.
"""
PAGE = """---
title: "Draft"
created: 2026-11-30
updated: 2026-11-30
type: guide
tags: [general]
sources: []
---

# Draft

A page someone is still writing.
"""


def make_repo(path: Path) -> Path:
    """A committed, clean tree: knowledge/{general,repos}/_index.md and a policy."""
    (path / "knowledge" / "general").mkdir(parents=True)
    (path / "knowledge" / "repos").mkdir()
    (path / "knowledge" / "policy.yaml").write_text(POLICY)
    (path / "knowledge" / "general" / "_index.md").write_text(INDEX.format(title="General"))
    (path / "knowledge" / "repos" / "_index.md").write_text(INDEX.format(title="Repos"))
    git(path, "init", "-q")
    git(path, "add", "-A")
    git(path, "commit", "-qm", "init")
    return path


def kb(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kbkit", *args], cwd=repo, capture_output=True, text=True
    )


def write_draft(repo: Path) -> None:
    (repo / "knowledge" / "general" / "draft.md").write_text(PAGE)


def link_draft(repo: Path) -> None:
    with (repo / "knowledge" / "general" / "_index.md").open("a") as index:
        index.write("- [Draft](draft.md)\n")


def test_an_untracked_page_is_not_in_the_commits_tree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    write_draft(repo)
    (repo / "knowledge" / "general" / "drafts").mkdir()
    (repo / "knowledge" / "general" / "drafts" / "x.md").write_text(PAGE)
    walk = walk_root(repo / "knowledge", "knowledge")
    narrowed = committed_walk(walk, tracked_under(repo, "knowledge"), "knowledge")
    assert "general/draft.md" in walk.pages and "general/draft.md" not in narrowed.pages
    assert "drafts" not in narrowed.dirs_by_dir["general"]
    assert "general/drafts" not in narrowed.files_by_dir
    assert narrowed.pages == ["general/_index.md", "repos/_index.md"]
    keys = dict(zip(walk.pages, PACKED_KEY.iter_unpack(walk.packed_keys), strict=True))
    assert list(PACKED_KEY.iter_unpack(narrowed.packed_keys)) == [keys[p] for p in narrowed.pages]
    assert narrowed.digest != walk.digest  # a staged run never reuses a working-tree snapshot
    bare = walk_root(repo / "knowledge", "knowledge", stat_pages=False)  # a first run's walk
    narrowed_bare = committed_walk(bare, tracked_under(repo, "knowledge"), "knowledge")
    assert narrowed_bare == narrowed._replace(packed_keys=b"")


@pytest.mark.slow
def test_staged_ignores_an_untracked_draft_and_sees_a_staged_index(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    write_draft(repo)
    assert kb(repo, "check").returncode == 1  # the working tree: the draft is unregistered
    assert kb(repo, "check", "--staged").returncode == 0
    link_draft(repo)
    git(repo, "add", "knowledge/general/_index.md")
    assert kb(repo, "check").returncode == 0  # the working tree has both
    staged = kb(repo, "check", "--staged")
    assert staged.returncode == 1
    assert "knowledge/general/_index.md:13:11: tree/link-broken" in staged.stdout
    # the page is there, only not added: the message says what to do
    assert "knowledge/general/draft.md is on disk but not tracked: `git add` it" in staged.stdout
    git(repo, "add", "knowledge/general/draft.md")
    assert kb(repo, "check", "--staged").returncode == 0


def test_staged_outside_a_repository_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / ".git").rmdir()  # the suite's root marker: here no repository at all
    (tmp_path / "t" / "knowledge" / "general").mkdir(parents=True)
    (tmp_path / "t" / "knowledge" / "policy.yaml").write_text(POLICY)
    done = kb(tmp_path / "t", "check", "--staged")
    assert done.returncode == 2
    assert "not inside a git repository" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
def test_pre_commit_checks_what_is_committed_in_both_directions(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    hook = (
        "repos:\n  - repo: local\n    hooks:\n      - id: kb-check\n        name: kb check\n"
        f"        entry: {sys.executable} -m kbkit check --staged\n"
        "        language: system\n        pass_filenames: false\n        always_run: true\n"
    )
    (repo / ".pre-commit-config.yaml").write_text(hook)
    git(repo, "add", ".pre-commit-config.yaml")
    git(repo, "commit", "-qm", "hook")
    pre_commit = [sys.executable, "-m", "pre_commit"]
    home = {"PRE_COMMIT_HOME": str(tmp_path / "cache")}
    env = {**os.environ, **home}
    installed = subprocess.run([*pre_commit, "install"], cwd=repo, env=env, capture_output=True)
    assert installed.returncode == 0, installed.stderr

    def commit(message: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", "commit", "-qm", message], cwd=repo, env=env, capture_output=True, text=True
        )

    # An untracked draft page does not block an unrelated commit.
    write_draft(repo)
    (repo / "README.md").write_text("hello\n")
    git(repo, "add", "README.md")
    done = commit("unrelated")
    assert done.returncode == 0, done.stdout + done.stderr
    # A commit that stages the index but not the page it links fails.
    link_draft(repo)
    git(repo, "add", "knowledge/general/_index.md")
    done = commit("index only")
    assert done.returncode != 0
    assert "tree/link-broken" in done.stdout + done.stderr
    git(repo, "add", "knowledge/general/draft.md")
    done = commit("index and page")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_tracked_under_equals_git_ls_files_on_awkward_paths(tmp_path: Path, version: str) -> None:
    repo = make_repo(tmp_path / "r")
    awkward = [
        "docs/knowledge/general/ghost.md",  # the prefix inside a longer path
        "myknowledge/general/other.md",
        "knowledge/general/" + "/".join(["long-" * 10] * 6) + ".md",  # more than 256 bytes
        "knowledge/général/ünïcode.md",
        "knowledge/general/sp ace.md",
    ]
    for rel in awkward:
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text("x\n")
    (repo / "knowledge" / "general" / "ghost.md").write_text("untracked twin of a nested path\n")
    git(repo, "add", *awkward)
    git(repo, "update-index", "--index-version", version)
    listed = git(repo, "-c", "core.quotepath=off", "ls-files", "-z", "knowledge/")
    expected = {path[len("knowledge/") :] for path in listed.split("\0") if path}
    assert tracked_under(repo, "knowledge") == expected
    assert "general/ghost.md" not in expected


def test_the_quick_index_reading_matches_the_full_parser(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    for n in range(300):
        (repo / "knowledge" / "general" / f"p{n}.md").write_text("x\n")
    git(repo, "add", "-A")
    data = (repo / ".git" / "index").read_bytes()
    quick = _names_v2(data, b"knowledge/")
    assert quick is not None  # a plain repository takes the quick path
    assert quick == {
        p[len("knowledge/") :] for p in parse_index(data) if p.startswith("knowledge/")
    }
