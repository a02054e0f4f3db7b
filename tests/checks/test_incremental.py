"""Reusing the previous run never changes what a check reports.

A copy of kbkit's own tree in a real git repository is changed step by step; after every
step the cached run (which may reuse the snapshot) must equal a run without any cache, and
the steps that cannot affect cross-page results must actually be answered from the snapshot.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest
from tests.gitrepo import git

from kbkit.checks import incremental
from kbkit.checks.runner import run_validators
from kbkit.policy.model import load_policy

TODAY = date(2026, 11, 30)
BOTH = ("tree", "lint")
OWN_TREE = Path(__file__).resolve().parents[2] / "knowledge"
GUIDE = "knowledge/general/writing/guides/frontmatter-and-tags.md"

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def make_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(OWN_TREE, repo / "knowledge")
    policy = repo / "knowledge" / "policy.yaml"
    policy.write_text(policy.read_text() + "\nentry_page: CONTRIBUTING.md\n")
    (repo / "CONTRIBUTING.md").write_text("# Contributing\n\nShort.\n")
    (repo / "adapters" / "a").mkdir(parents=True)
    (repo / "adapters" / "a" / "manifest.yaml").write_text("knowledge: {}\n")
    (repo / "knowledge" / "local").mkdir()
    (repo / "knowledge" / "local" / "notes.md").write_text("# Notes\n")
    (repo / ".gitignore").write_text(".kbkit-cache/\nknowledge/local/\n")
    append(repo, GUIDE, "\nSee [the readme](../../../../README.md).\n")  # outside the root
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "tree")
    return repo


def append(repo: Path, rel: str, text: str) -> None:
    path = repo / rel
    path.write_text(path.read_text() + text)


def replace(repo: Path, rel: str, old: str, new: str) -> None:
    path = repo / rel
    assert old in path.read_text()
    path.write_text(path.read_text().replace(old, new, 1))


Step = Callable[[Path], object]  # a change to the repository; what it returns is unused
STEPS: list[tuple[str, Step, bool]] = [
    ("nothing changed", lambda repo: None, True),
    ("prose edit", lambda repo: append(repo, GUIDE, "\nOne more sentence.\n"), True),
    ("a secret", lambda repo: append(repo, GUIDE, "\nssh 10.1.2.3\n"), True),
    ("git tracks local/", lambda repo: git(repo, "add", "-f", "knowledge/local/notes.md"), True),
    ("entry page grows", lambda repo: append(repo, "CONTRIBUTING.md", "line\n" * 400), True),
    (
        "adapter manifest",
        lambda repo: (repo / "adapters/a/manifest.yaml").write_text("knowledge: [1]\n"),
        True,
    ),
    ("broken link", lambda repo: append(repo, GUIDE, "\n[x](missing.md)\n"), False),
    (
        "suppression",
        lambda repo: replace(
            repo,
            GUIDE,
            "ssh 10.1.2.3",
            "<!-- kb-disable-next-line tree/secret-ip: doc -->\nssh 10.1.2.3",
        ),
        False,
    ),
    ("outside target appears", lambda repo: (repo / "README.md").write_text("# R\n"), False),
    ("tags changed", lambda repo: replace(repo, GUIDE, "tags: [", "tags: [nope, "), False),
    ("page added", lambda repo: (repo / "knowledge/general/new.md").write_text("# New\n"), False),
    ("page removed", lambda repo: (repo / "knowledge/general/new.md").unlink(), False),
    ("nothing changed again", lambda repo: None, True),
]


def test_every_step_reports_what_a_run_without_cache_reports(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    policy = load_policy(repo)
    assert run_validators(repo, policy, BOTH, TODAY) == run_validators(
        repo, policy, BOTH, TODAY, use_cache=False
    )
    seen: set[str] = set()
    for name, step, reusable in STEPS:
        step(repo)
        expected = run_validators(repo, policy, BOTH, TODAY, use_cache=False)
        attempt = incremental.try_reuse(repo, policy, BOTH, TODAY, 0)
        assert isinstance(attempt, incremental.Reused) == reusable, name
        if isinstance(attempt, incremental.Reused):
            assert (attempt.findings, attempt.pages) == expected, name
        assert run_validators(repo, policy, BOTH, TODAY) == expected, name
        seen.update(f.rule_id for f in expected[0])
    # the steps really exercised the recomputed checks
    assert {"tree/secret-ip", "tree/local-tracked", "tree/entry-too-long"} <= seen
    assert {"tree/link-broken", "lint/tag-unknown"} <= seen
    assert any(rule.startswith("lint/adapter-") for rule in seen)


def test_a_duplicate_body_is_found_from_the_snapshot(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    policy = load_policy(repo)
    body = "\n".join(f"Plain sentence number {i} about nothing in particular." for i in range(8))
    for name in ("one", "two"):
        (repo / f"knowledge/general/writing/guides/{name}.md").write_text(
            f"---\ntitle: {name}\n---\n# {name}\n\n{body} {name}\n"
        )
    run_validators(repo, policy, BOTH, TODAY)
    replace(repo, "knowledge/general/writing/guides/two.md", f"{body} two", f"{body} one")
    replace(repo, "knowledge/general/writing/guides/two.md", "# two", "# one")
    attempt = incremental.try_reuse(repo, policy, BOTH, TODAY, 0)
    assert isinstance(attempt, incremental.Reused)
    assert "tree/duplicate-page" in {f.rule_id for f in attempt.findings}
    assert (attempt.findings, attempt.pages) == run_validators(
        repo, policy, BOTH, TODAY, use_cache=False
    )


def test_another_day_or_validator_set_is_never_reused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    policy = load_policy(repo)
    run_validators(repo, policy, BOTH, TODAY)
    assert not isinstance(
        incremental.try_reuse(repo, policy, BOTH, date(2027, 6, 1), 0), incremental.Reused
    )
    assert not isinstance(
        incremental.try_reuse(repo, policy, ("lint",), TODAY, 0), incremental.Reused
    )
    lint = run_validators(repo, policy, ("lint",), TODAY)
    assert lint == run_validators(repo, policy, ("lint",), TODAY, use_cache=False)
    assert isinstance(incremental.try_reuse(repo, policy, BOTH, TODAY, 0), incremental.Reused)


def test_a_corrupt_snapshot_is_ignored(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    policy = load_policy(repo)
    expected = run_validators(repo, policy, BOTH, TODAY)
    snapshot = next((repo / ".kbkit-cache").glob("result-*.marshal"))
    snapshot.write_bytes(b"\x00garbage")
    assert not isinstance(incremental.try_reuse(repo, policy, BOTH, TODAY, 0), incremental.Reused)
    assert run_validators(repo, policy, BOTH, TODAY) == expected
