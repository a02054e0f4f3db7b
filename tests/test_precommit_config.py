"""The pre-commit contract: local hooks only, pinned like the venv, the whole-tree validator
on every commit, and the two hooks kbkit publishes for other repositories."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from pre_commit.clientlib import load_config, load_manifest

from kbkit.commands.registry import COMMANDS

PROJECT = Path(__file__).resolve().parents[1]
CONFIG = PROJECT / ".pre-commit-config.yaml"
MANIFEST = PROJECT / ".pre-commit-hooks.yaml"
CONSTRAINTS = PROJECT / "requirements" / "constraints.txt"
PUBLISHED = {"kb-check-knowledge-tree", "kb-check-wiki-lint", "kb-check", "kb-intake-check"}
TREE_HOOKS = {"kb-check-knowledge-tree", "kb-check-wiki-lint", "kb-check"}
WHOLE_TREE_HOOK = "kb-check"


def normalize(name: str) -> str:
    """PEP 503 name normalization (`PyYAML` == `pyyaml`, `pre_commit` == `pre-commit`)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pins() -> dict[str, str]:
    found = {}
    for line in CONSTRAINTS.read_text("utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name, version = line.split("==", 1)
            found[normalize(name)] = version.strip()
    return found


def runtime_dependencies() -> set[str]:
    project = tomllib.loads((PROJECT / "pyproject.toml").read_text("utf-8"))["project"]
    return {
        normalize(re.split(r"[<>=!~ ;\[]", dep, maxsplit=1)[0]) for dep in project["dependencies"]
    }


def config() -> dict[str, Any]:
    return yaml.safe_load(CONFIG.read_text("utf-8"))


def hooks() -> dict[str, dict[str, Any]]:
    return {hook["id"]: hook for repo in config()["repos"] for hook in repo["hooks"]}


def requirement(spec: str) -> tuple[str, str]:
    name, sep, version = spec.partition("==")
    assert sep, f"additional dependency {spec!r} is not pinned with =="
    return normalize(name), version


def test_both_files_are_valid_for_pre_commit_itself() -> None:
    load_config(str(CONFIG))
    assert {hook["id"] for hook in load_manifest(str(MANIFEST))} == PUBLISHED


def test_only_local_repositories() -> None:
    assert [repo["repo"] for repo in config()["repos"]] == ["local"]


def test_every_hook_is_language_python() -> None:
    assert {hook["language"] for hook in hooks().values()} == {"python"}
    assert {hook["language"] for hook in yaml.safe_load(MANIFEST.read_text("utf-8"))} == {"python"}


def test_additional_dependencies_are_pinned_like_the_venv() -> None:
    expected = pins()
    for hook_id, hook in hooks().items():
        for spec in hook.get("additional_dependencies", []):
            name, version = requirement(spec)
            if name in expected:
                assert version == expected[name], (
                    f"{hook_id}: {spec} but constraints pin {expected[name]}"
                )


def test_hygiene_and_ruff_hooks_are_present() -> None:
    present = hooks()
    for hook_id in (
        "trailing-whitespace",
        "end-of-file-fixer",
        "check-yaml",
        "check-merge-conflict",
    ):
        assert present[hook_id]["entry"].split()[0] in {
            "trailing-whitespace-fixer",
            hook_id,
        }
        assert [requirement(d)[0] for d in present[hook_id]["additional_dependencies"]] == [
            "pre-commit-hooks"
        ]
    assert present["ruff"]["entry"].startswith("ruff check")
    assert present["ruff-format"]["entry"].startswith("ruff format")
    for hook_id in ("ruff", "ruff-format"):
        assert present[hook_id]["additional_dependencies"] == [f"ruff=={pins()['ruff']}"]


def test_the_whole_tree_hook_runs_on_every_commit_without_filenames() -> None:
    hook = hooks()[WHOLE_TREE_HOOK]
    assert hook["pass_filenames"] is False
    assert hook["always_run"] is True
    interpreter, script, mode = hook["entry"].split()
    assert interpreter == "python"
    assert mode == "--staged"  # the commit's tree, not the working tree
    assert (PROJECT / script).is_file()
    installed = {requirement(d)[0] for d in hook["additional_dependencies"]}
    assert installed == runtime_dependencies(), "the hook env needs exactly kbkit's runtime deps"


def test_the_global_exclude_spares_byte_exact_fixtures_only() -> None:
    exclude = re.compile(config()["exclude"])
    assert exclude.search("tests/cases/knowledge-tree/bad/crlf/repo/knowledge/general/x.md")
    assert exclude.search("intake/samples/github-pulls.json")
    for kept in (
        "knowledge/general/_index.md",
        "tools/kbkit/pages/page.py",
        "tests/test_readme.py",
    ):
        assert not exclude.search(kept)


@pytest.mark.parametrize("hook_id", sorted(TREE_HOOKS))
def test_published_hooks_check_the_whole_tree_with_the_installed_kb(hook_id: str) -> None:
    hook = {h["id"]: h for h in yaml.safe_load(MANIFEST.read_text("utf-8"))}[hook_id]
    assert hook["pass_filenames"] is False
    assert hook["always_run"] is True
    assert hook["files"] == "^knowledge/"
    program, *words, mode = hook["entry"].split()
    command = " ".join(words)
    assert mode == "--staged"  # the commit's tree: untracked drafts never block a commit
    scripts = tomllib.loads((PROJECT / "pyproject.toml").read_text("utf-8"))["project"]["scripts"]
    assert program in scripts
    assert command in COMMANDS
    assert hook_id == f"kb-{command}"


def _tree_copy(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(PROJECT / "knowledge", repo / "knowledge")
    return repo


@pytest.mark.slow
def test_the_hook_entry_checks_a_tree_and_fails_on_a_missing_root(tmp_path: Path) -> None:
    repo = _tree_copy(tmp_path)
    entry = [sys.executable, str(PROJECT / hooks()[WHOLE_TREE_HOOK]["entry"].split()[1])]
    ok = subprocess.run([*entry, "--repo", str(repo)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    shutil.rmtree(repo / "knowledge" / "repos")
    bad = subprocess.run([*entry, "--repo", str(repo)], capture_output=True, text=True)
    assert bad.returncode == 1
    assert "knowledge/repos: tree/root-missing" in bad.stdout


@pytest.mark.stress
def test_pre_commit_passes_on_a_fresh_clone(tmp_path: Path) -> None:
    """Builds the hook environments from the package index (slow the first time)."""
    if shutil.which("git") is None or not (PROJECT / ".git").exists():
        pytest.skip("needs git and a git checkout of the project")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(PROJECT), str(clone)], check=True)
    result = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--show-diff-on-failure"],
        cwd=clone,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "kb check" in result.stdout


def test_published_intake_hook_checks_the_ledgers_with_the_installed_kb() -> None:
    hook = {h["id"]: h for h in yaml.safe_load(MANIFEST.read_text("utf-8"))}["kb-intake-check"]
    assert hook["pass_filenames"] is False
    assert hook["files"] == "^intake/.*\\.jsonl$"
    assert hook["entry"] == "kb intake check"
    assert "intake check" in COMMANDS


@pytest.mark.slow
def test_local_intake_hook_fails_on_a_bad_ledger_line(tmp_path: Path) -> None:
    entry = {
        h["id"]: h for r in yaml.safe_load(CONFIG.read_text("utf-8"))["repos"] for h in r["hooks"]
    }["kb-intake-check"]["entry"]
    script = PROJECT / entry.split()[1]
    (tmp_path / "intake").mkdir()
    (tmp_path / "intake" / "events.jsonl").write_text('{"source_kind": "merged_pr"}\n')
    bad = subprocess.run(
        [sys.executable, str(script), "--repo", str(tmp_path)], capture_output=True, text=True
    )
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "events.jsonl:1" in bad.stdout + bad.stderr


def test_every_text_file_the_hooks_read_ends_with_one_line_break() -> None:
    """What the end-of-file-fixer hook asks of every tracked text file outside the config's
    `exclude`: one line break at the end, not two. (The hooks run on a fresh clone only in
    `make stress`; three pages ending in a blank line once made them fail there.)"""
    if shutil.which("git") is None or not (PROJECT / ".git").exists():
        pytest.skip("needs git and a git checkout of the project")
    from identify.identify import tags_from_path

    exclude = re.compile(yaml.safe_load(CONFIG.read_text("utf-8"))["exclude"])
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=PROJECT, capture_output=True, check=True
    ).stdout.decode()
    bad = []
    for name in filter(None, listed.split("\0")):
        path = PROJECT / name
        if exclude.search(name) or not path.is_file() or path.is_symlink():
            continue
        if "text" not in tags_from_path(str(path)):
            continue
        data = path.read_bytes()
        if data and (not data.endswith(b"\n") or data.endswith(b"\n\n")):
            bad.append(name)
    assert bad == []
