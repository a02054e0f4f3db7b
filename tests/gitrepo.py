"""Real git repositories for tests: the one `git`, `init_repo` and `commit_files` every test uses."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(repo: Path, *args: str) -> str:
    """`git -C repo args...`; its stdout. A failure fails the test with git's own message."""
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


def init_repo(path: Path) -> Path:
    """An empty repository on branch main at `path` (created when missing)."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    return path


def commit_files(repo: Path, files: dict[str, str], message: str) -> str:
    """Write `files` (repo-relative name -> text), commit everything; the commit's hash."""
    for name, text in files.items():
        target = repo / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()
