"""Lock files never show up in a user's `git status`: they live in a self-ignoring folder
next to what they guard. Real git, real `kb` processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kbkit.infra.file_lock import lock_path_for, locked


def kb(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kbkit", *args], cwd=repo, capture_output=True, text=True
    )


@pytest.mark.slow
def test_recording_leaves_no_lock_in_git_status(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "pulls.json").write_text("[]")
    assert kb(repo, "intake", "record-prs", "--slug", "a/b", "--from", "pulls.json").returncode == 0
    kb(repo, "lessons", "forget", "--source", "task:x")  # takes the store lock, then refuses
    locks = sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*.lock"))
    assert "intake/.kbkit-locks/record.lock" in locks
    assert "intake/lessons/.kbkit-locks/store.lock" in locks
    status = subprocess.run(
        ["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=all"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert ".lock" not in status and ".kbkit-locks" not in status
    assert "pulls.json" in status  # git status does list what is not ignored


def test_the_lock_path_is_the_same_for_every_process(tmp_path: Path) -> None:
    guarded = tmp_path / "intake" / "events.jsonl"
    assert lock_path_for(guarded) == tmp_path / "intake" / ".kbkit-locks" / "events.jsonl.lock"
    with locked(guarded):
        assert lock_path_for(guarded).exists()
    assert (tmp_path / "intake" / ".kbkit-locks" / ".gitignore").read_text().endswith("*\n")
