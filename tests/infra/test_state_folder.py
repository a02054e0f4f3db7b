"""State folders ignore themselves: git never sees what kbkit derives (real git)."""

from __future__ import annotations

from pathlib import Path

from kbkit.infra.state_folder import make_state_folder
from tests.gitrepo import git, init_repo


def test_a_state_folder_and_its_files_stay_untracked(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    folder = make_state_folder(repo / "a" / "cache", "a test cache; safe to delete")
    (folder / "data.bin").write_bytes(b"x")
    assert (folder / ".gitignore").read_text() == "# a test cache; safe to delete\n*\n"
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""


def test_an_existing_gitignore_is_kept(tmp_path: Path) -> None:
    folder = tmp_path / "state"
    folder.mkdir()
    (folder / ".gitignore").write_text("*\n!keep\n")
    make_state_folder(folder, "ignored note")
    assert (folder / ".gitignore").read_text() == "*\n!keep\n"


def test_a_gitignore_a_power_cut_left_empty_is_written_again(tmp_path: Path) -> None:
    folder = tmp_path / "state"
    folder.mkdir()
    (folder / ".gitignore").write_text("")  # what a lost unsynced write may leave
    make_state_folder(folder, "a test cache")
    assert (folder / ".gitignore").read_text() == "# a test cache\n*\n"


def test_the_gitignore_is_written_without_fsync(tmp_path: Path, monkeypatch) -> None:
    import os

    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", synced.append)
    make_state_folder(tmp_path / "state", "a test cache")
    assert synced == []  # two fsyncs were a tenth of a cold small check's fixed cost
    assert sorted(p.name for p in (tmp_path / "state").iterdir()) == [".gitignore"]
