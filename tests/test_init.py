"""`kb init`: a green starting tree, idempotent, never replacing what the user wrote."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml


def kb(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kbkit", *args], cwd=repo, capture_output=True, text=True
    )


def new_repo(path: Path) -> Path:
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def snapshot(repo: Path) -> dict[str, bytes]:
    return {
        p.relative_to(repo).as_posix(): p.read_bytes()
        for p in repo.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(repo).parts
    }


def test_init_writes_a_tree_that_passes_and_a_second_run_changes_nothing(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r")
    done = kb(repo, "init")
    assert done.returncode == 0, done.stderr
    for rel in (
        "knowledge/policy.yaml",
        "knowledge/_index.md",
        "knowledge/general/_index.md",
        "knowledge/repos/_index.md",
        ".gitattributes",
        ".gitignore",
        ".pre-commit-config.yaml",
    ):
        assert f"created {rel}" in done.stdout
    assert "intake/*.jsonl merge=union" in (repo / ".gitattributes").read_text()
    assert ".kbkit-cache/" in (repo / ".gitignore").read_text()
    config = yaml.safe_load((repo / ".pre-commit-config.yaml").read_text())
    hook_repo = config["repos"][0]
    assert hook_repo["rev"].startswith("v") and hook_repo["hooks"] == [{"id": "kb-check"}]
    assert kb(repo, "check").returncode == 0
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    assert kb(repo, "check", "--staged").returncode == 0  # the commit's tree is green too
    before = snapshot(repo)
    again = kb(repo, "init")
    assert again.returncode == 0 and "created" not in again.stdout and "added" not in again.stdout
    assert snapshot(repo) == before


def test_init_never_replaces_the_users_files(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r")
    (repo / "knowledge").mkdir()
    (repo / "knowledge" / "policy.yaml").write_text("version: 1\n# mine\n")
    (repo / ".gitignore").write_text("node_modules/")  # no final newline
    own_config = "repos:\n  - repo: local\n    hooks: []\n"
    (repo / ".pre-commit-config.yaml").write_text(own_config)
    done = kb(repo, "init")
    assert done.returncode == 0
    assert "kept    knowledge/policy.yaml" in done.stdout
    assert (repo / "knowledge" / "policy.yaml").read_text() == "version: 1\n# mine\n"
    ignore = (repo / ".gitignore").read_text().splitlines()
    assert ignore[0] == "node_modules/" and "state/" in ignore
    assert (repo / ".pre-commit-config.yaml").read_text() == own_config
    assert "add kbkit's hook under `repos:` yourself" in done.stdout
    assert "- id: kb-check" in done.stdout


def test_init_local_hook_runs_the_installed_kb(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r")
    assert kb(repo, "init", "--local-hook").returncode == 0
    hook = yaml.safe_load((repo / ".pre-commit-config.yaml").read_text())["repos"][0]
    assert hook["repo"] == "local"
    assert hook["hooks"][0]["entry"] == "kb check --staged"
    assert hook["hooks"][0]["language"] == "system"


def test_init_from_a_subdirectory_sets_up_the_git_top(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r")
    (repo / "src" / "deep").mkdir(parents=True)
    assert kb(repo / "src" / "deep", "init").returncode == 0
    assert (repo / "knowledge" / "policy.yaml").is_file()
    assert not (repo / "src" / "deep" / "knowledge").exists()
