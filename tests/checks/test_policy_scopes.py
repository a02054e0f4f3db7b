"""Severities and required frontmatter per path glob, applied after the checks run."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

from kbkit.checks import incremental
from kbkit.checks.runner import run_validators
from kbkit.checks.scopes import scopes
from kbkit.policy.model import load_policy, policy_from_file
from kbkit.rulebook.findings import ERROR, WARNING

TODAY = date(2026, 11, 30)
BOTH = ("tree", "lint")
CASE = Path(__file__).resolve().parents[1] / "cases/knowledge-tree/bad/rule-severity-per-glob/repo"


def make_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(CASE, repo)
    return repo


def ip_severities(findings: list) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for f in findings:
        if f.rule_id == "tree/secret-ip":
            found.setdefault(f.path, set()).add(f.severity)
    return found


def test_later_overrides_win_and_globs_are_relative_to_the_knowledge_root(tmp_path: Path) -> None:
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text(
        "rules: {lint/orphan: warning}\n"
        "overrides:\n"
        "  - files: ['general/**']\n    rules: {lint/orphan: error}\n"
        "  - files: ['*.draft.md']\n    rules: {lint/orphan: off}\n"
    )
    scope = scopes(policy_from_file(policy_file))
    assert scope.severity("knowledge/repos/a.md", "lint/orphan", WARNING) == WARNING
    assert scope.severity("knowledge/general/a.md", "lint/orphan", WARNING) == ERROR
    assert scope.severity("knowledge/general/x/a.draft.md", "lint/orphan", WARNING) == "off"
    assert scope.severity("knowledge/general/a.md", "lint/stale", WARNING) == WARNING


def test_severities_follow_a_policy_change_on_warm_runs(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    policy_path = repo / "knowledge/policy.yaml"
    first = run_validators(repo, load_policy(repo), BOTH, TODAY)  # writes the caches
    assert ip_severities(first[0]) == {
        "knowledge/general/page.md": {WARNING},
        "knowledge/general/other.md": {ERROR},
    }
    # turn the rule back to error everywhere: the cached run must not keep the old severities
    policy_path.write_text("rules:\n  tree/secret-ip: error\n")
    policy = load_policy(repo)
    warm = run_validators(repo, policy, BOTH, TODAY)
    assert warm == run_validators(repo, policy, BOTH, TODAY, use_cache=False)
    assert ip_severities(warm[0]) == {
        "knowledge/general/page.md": {ERROR},
        "knowledge/general/other.md": {ERROR},
        "knowledge/general/lab/hosts.md": {ERROR},
    }
    # a change that reuses the snapshot still gets this policy's severities
    page = repo / "knowledge/general/lab/hosts.md"
    page.write_text(page.read_text() + "\nMore prose.\n")
    attempt = incremental.try_reuse(repo, policy, BOTH, TODAY, 0)
    assert isinstance(attempt, incremental.Reused)
    assert attempt.findings == run_validators(repo, policy, BOTH, TODAY, use_cache=False)[0]
    # and switching it off again on a warm run drops every finding of the rule
    policy_path.write_text("rules:\n  tree/secret-ip: off\n")
    policy = load_policy(repo)
    assert ip_severities(run_validators(repo, policy, BOTH, TODAY)[0]) == {}


def test_a_folder_glob_matches_the_folder_findings_too(tmp_path: Path) -> None:
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text(
        "overrides:\n  - files: [plugins/]\n    rules: {tree/too-many-pages: 'off'}\n"
    )
    from kbkit.checks.scopes import apply_severities
    from kbkit.rulebook.findings import Finding

    folder = Finding("knowledge/general/plugins", 0, "tree/too-many-pages", WARNING, "x")
    other = folder._replace(path="knowledge/general/other")
    kept = apply_severities([folder, other], policy_from_file(policy_file))
    assert kept == [other]


def _decide_by_name(folder: str, policy: object) -> str:
    _decided.append(folder)
    return f"verdict of {folder}"


_decided: list[str] = []


def test_a_folder_is_decided_once_however_its_pages_interleave(tmp_path: Path) -> None:
    """Pages are read by file name, so one folder's pages come between others': the verdict
    of each folder is still decided once per policy, and a new policy decides again."""
    from kbkit.checks.scopes import folder_verdict

    policy = load_policy(make_repo(tmp_path))
    pages = [f"{folder}/{name}.md" for name in ("a", "b", "c") for folder in ("x", "y/z", "w")]
    _decided.clear()
    verdicts = [folder_verdict(rel, policy, _decide_by_name) for rel in pages]
    assert verdicts == [f"verdict of {rel.rpartition('/')[0]}" for rel in pages]
    assert sorted(_decided) == ["w", "x", "y/z"]
    (tmp_path / "policy.yaml").write_text("rules: {lint/orphan: warning}\n")
    other = policy_from_file(tmp_path / "policy.yaml")
    assert folder_verdict("x/a.md", other, _decide_by_name) == "verdict of x"
    assert _decided.count("x") == 2
