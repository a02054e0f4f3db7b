"""Finding the repository root from anywhere inside it, as git, ruff and pre-commit do."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kbkit.infra.errors import UsageError
from kbkit.infra.paths import find_repo_root, repo_root

OWN_TREE = Path(__file__).resolve().parents[2] / "knowledge"


def test_the_nearest_policy_marks_the_root(tmp_path_factory: pytest.TempPathFactory) -> None:
    outer = tmp_path_factory.mktemp("outer")
    (outer / "knowledge").mkdir()
    (outer / "knowledge" / "policy.yaml").write_text("version: 1\n")
    deep = outer / "knowledge" / "general" / "x"
    deep.mkdir(parents=True)
    assert find_repo_root(deep) == outer
    assert find_repo_root(outer) == outer


def test_kbkit_yaml_marks_a_root_too(tmp_path_factory: pytest.TempPathFactory) -> None:
    top = tmp_path_factory.mktemp("top")
    (top / "kbkit.yaml").write_text("")
    (top / "a" / "b").mkdir(parents=True)
    assert find_repo_root(top / "a" / "b") == top


def test_the_git_top_stops_the_search(tmp_path_factory: pytest.TempPathFactory) -> None:
    outer = tmp_path_factory.mktemp("outer")
    (outer / "kbkit.yaml").write_text("")  # above the inner repository: never its root
    inner = outer / "inner"
    (inner / "docs").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(inner)], check=True)
    assert find_repo_root(inner / "docs") == inner


def test_no_root_anywhere_is_a_usage_error_naming_what_was_looked_for(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    lost = tmp_path_factory.mktemp("lost")
    with pytest.raises(UsageError, match=r"knowledge/policy\.yaml or kbkit\.yaml or a \.git"):
        find_repo_root(lost)


def test_repo_option_is_taken_as_given(tmp_path: Path) -> None:
    assert repo_root(str(tmp_path)) == tmp_path.absolute()
    with pytest.raises(UsageError, match="not a directory"):
        repo_root(str(tmp_path / "missing"))


@pytest.mark.slow
def test_kb_check_from_a_subdirectory_checks_the_whole_repository(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    repo = tmp_path_factory.mktemp("repo")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    shutil.copytree(OWN_TREE, repo / "knowledge")
    command = [sys.executable, "-m", "kbkit", "check", "--no-cache"]
    at_top = subprocess.run(command, cwd=repo, capture_output=True, text=True)
    inside = repo / "knowledge" / "general"
    below = subprocess.run(command, cwd=inside, capture_output=True, text=True)
    assert at_top.returncode == below.returncode == 0, below.stdout + below.stderr
    assert below.stdout == at_top.stdout
    assert "root-missing" not in below.stdout


@pytest.mark.slow
def test_kb_outside_any_repository_exits_2(tmp_path_factory: pytest.TempPathFactory) -> None:
    lost = tmp_path_factory.mktemp("lost")
    for command in (["check"], ["intake", "status"], ["lessons", "lint"]):
        done = subprocess.run(
            [sys.executable, "-m", "kbkit", *command], cwd=lost, capture_output=True, text=True
        )
        assert done.returncode == 2, (command, done.stdout, done.stderr)
        assert "no repository found" in done.stderr and "Traceback" not in done.stderr
