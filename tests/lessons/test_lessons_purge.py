"""`kb lessons forget --purge`: every copy kbkit made, a run killed at any step finishes on
the next one, and a store committed to git gets the command that rewrites its history."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import PROJECT
from tests.gitrepo import git, init_repo

from kbkit.__main__ import main
from kbkit.lessons.store import LessonStore

SECRET = "customer ledger id 4471 exposed"
STEPS = (
    "purge-planned",
    "purge-evidence",
    "purge-lessons",
    "purge-outcomes",
    "purge-events",
    "purge-bundles",
    "purge-caches",
)


def seeded(repo: Path, make_task, monkeypatch) -> None:
    """Two tasks, T1's lesson promoted and injected into a bundle next to T2's."""
    tasks = [
        make_task("T1", findings=[("F1", "confirmed", "idor", SECRET)]),
        make_task("T2", findings=[("F1", "confirmed", "xss", "search box")]),
    ]
    (repo / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tasks))
    assert (
        main(["lessons", "extract", "--from", str(repo / "tasks.jsonl"), "--repo", str(repo)]) == 0
    )
    assert main(["lessons", "promote", "--min-support", "1", "--repo", str(repo)]) == 0
    monkeypatch.setenv("KBKIT_LESSONS", "inject")
    (repo / "n.json").write_text(
        json.dumps({"id": "N1", "status": "running", "company": "acme", "category": "web"})
    )
    (repo / "p.txt").write_text("PLANNER\n")
    args = ["lessons", "bundle", "--task", str(repo / "n.json"), "--planner", str(repo / "p.txt")]
    args += ["--worker", str(repo / "p.txt"), "--out", str(repo / "bundle"), "--repo", str(repo)]
    assert main(args) == 0
    monkeypatch.delenv("KBKIT_LESSONS")
    assert SECRET in (repo / "bundle" / "planner.txt").read_text()


def copies(repo: Path) -> list[str]:
    """Every file under the repository that still holds the secret text."""
    return sorted(
        str(path.relative_to(repo))
        for path in repo.rglob("*")
        if path.is_file()
        and ".git" not in path.parts
        and SECRET.encode() in path.read_bytes()
        and path.name != "tasks.jsonl"
    )


def test_purge_reaches_every_copy(tmp_path: Path, make_task, monkeypatch, capsys) -> None:
    seeded(tmp_path, make_task, monkeypatch)
    assert "intake/events.jsonl" in copies(tmp_path) and "bundle/lessons.json" in copies(tmp_path)
    capsys.readouterr()
    assert (
        main(["lessons", "forget", "--source", "task:T1", "--purge", "--repo", str(tmp_path)]) == 0
    )
    out = capsys.readouterr().out
    assert "1 promoted event(s) emptied, 1 bundle(s) rewritten" in out
    assert copies(tmp_path) == []
    bundle = json.loads((tmp_path / "bundle" / "lessons.json").read_text())
    assert [x["action"] for x in bundle["lessons"]] == ["Confirmed xss: search box"]
    planner = (tmp_path / "bundle" / "planner.txt").read_text()
    assert (
        planner.startswith("PLANNER\n\n<prior-outcomes>") and "Confirmed xss: search box" in planner
    )
    assert main(["intake", "check", "--repo", str(tmp_path)]) == 0  # the ledger stays valid
    assert "git history" not in out  # not a git repository


def _kb(repo: Path, *args: str, kill_at: str | None = None) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, PYTHONPATH=f"{PROJECT}{os.pathsep}{PROJECT / 'tools'}")
    hooks = ["-m", "tests.step_hooks", *(["--kill-at", kill_at] if kill_at else []), "--"]
    return subprocess.run(
        [sys.executable, *hooks, *args, "--repo", str(repo)],
        env=env,
        capture_output=True,
        cwd=PROJECT,
    )


@pytest.mark.slow
@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("rerun", ["purge", "extract"])
def test_a_purge_killed_at_any_step_finishes_on_the_next_run(
    tmp_path: Path, make_task, monkeypatch, step: str, rerun: str
) -> None:
    seeded(tmp_path, make_task, monkeypatch)
    killed = _kb(tmp_path, "lessons", "forget", "--source", "task:T1", "--purge", kill_at=step)
    assert killed.returncode == -9, killed.stderr
    if rerun == "purge":
        again = _kb(tmp_path, "lessons", "forget", "--source", "task:T1", "--purge")
        assert again.returncode == 0, again.stderr
        assert b"purged task:T1" in again.stdout or b"already forgotten and purged" in again.stdout
    else:  # any later write to the store finishes it first
        (tmp_path / "t3.json").write_text(
            json.dumps(make_task("T3", findings=[("F1", "confirmed", "rce", "x")]))
        )
        assert _kb(tmp_path, "lessons", "extract", str(tmp_path / "t3.json")).returncode == 0
        assert main(["lessons", "show", str(tmp_path / "n.json"), "--repo", str(tmp_path)]) == 0
    assert copies(tmp_path) == []
    state = LessonStore.for_repo(tmp_path).state()
    assert not state.purges and "T1" in state.forgotten


@pytest.mark.slow
def test_a_store_committed_to_git_gets_the_command_that_rewrites_history(
    tmp_path: Path, make_task, monkeypatch, capsys
) -> None:
    repo = init_repo(tmp_path / "repo")
    (repo / "kbkit.yaml").write_text("")
    seeded(repo, make_task, monkeypatch)
    shutil.rmtree(repo / "bundle")
    (repo / "tasks.jsonl").unlink()
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "lessons")
    capsys.readouterr()
    assert main(["lessons", "forget", "--source", "task:T1", "--purge", "--repo", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "git history still holds the purged text" in out
    command = next(
        line.strip()
        for line in out.splitlines()
        if "filter-repo" in line and line.startswith("    ")
    )
    expressions = Path(command.rsplit(" ", 1)[1])
    assert SECRET not in expressions.read_text()  # the rows are named by id, not by text
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "purge")
    assert SECRET in git(repo, "log", "-p", "--all")
    if (
        shutil.which("git-filter-repo") is None
        and not (Path(sys.executable).parent / "git-filter-repo").exists()
    ):
        pytest.skip("git-filter-repo is not installed")
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run(command.split(), env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert SECRET not in git(repo, "log", "-p", "--all")
    assert "Confirmed xss: search box" in git(repo, "log", "-p", "--all")  # the rest stays
    assert main(["lessons", "lint", "--repo", str(repo)]) in (0, 1)
    assert (
        json.loads((repo / "intake/lessons/lessons.jsonl").read_text().splitlines()[0])["cue"]
        == "xss"
    )


def test_a_purge_rerun_after_the_evidence_is_gone_removes_the_lesson_text(
    tmp_path: Path, make_task, capsys
) -> None:
    """T1 and T2 both support one lesson. T1's purge keeps its text (T2 still supports it)
    and removes T1's evidence rows; T2 is then forgotten without --purge. Rerunning T1's
    purge finds no evidence rows of T1 left, yet the lesson T1 touched has no live evidence
    now: its text goes, found through T1's tombstones."""
    tasks = [make_task(t, findings=[("F1", "confirmed", "idor", SECRET)]) for t in ("T1", "T2")]
    (tmp_path / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tasks))
    repo = ["--repo", str(tmp_path)]
    assert main(["lessons", "extract", "--from", str(tmp_path / "tasks.jsonl"), *repo]) == 0
    lessons = tmp_path / "intake" / "lessons" / "lessons.jsonl"
    evidence = tmp_path / "intake" / "lessons" / "evidence.jsonl"
    assert main(["lessons", "forget", "--source", "task:T1", "--purge", *repo]) == 0
    assert SECRET in lessons.read_text()  # T2 still supports it: kept
    assert '"task":"T1"' not in evidence.read_text()  # T1's evidence rows are gone
    assert main(["lessons", "forget", "--source", "task:T2", *repo]) == 0
    capsys.readouterr()
    assert main(["lessons", "forget", "--source", "task:T1", "--purge", *repo]) == 0
    out = capsys.readouterr().out
    assert "purged task:T1: 1 row(s) removed from the lessons logs" in out, out
    assert SECRET not in lessons.read_text()
    assert main(["lessons", "lint", *repo]) == 0  # the store stays readable
    capsys.readouterr()
    # a third run has nothing left to remove, and says so
    assert main(["lessons", "forget", "--source", "task:T1", "--purge", *repo]) == 0
    assert "already forgotten and purged; nothing left to remove" in capsys.readouterr().out
