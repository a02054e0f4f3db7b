"""`kb init` stays inside the repository (`kbkit.infra.boundary`): a site config that names
a docs folder outside it, a knowledge folder or a file it writes that is a symlink out of
it, are refused with exit 2 before anything is read there or written anywhere."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitrepo import init_repo
from tests.kbtree import kb
from tests.outside import SECRET, fingerprint, victim


def _files(repo: Path) -> list[str]:
    return sorted(str(p.relative_to(repo)) for p in repo.rglob("*") if ".git" not in p.parts)


@pytest.mark.parametrize(
    ("config", "text"),
    [
        ("mkdocs.yml", "site_name: x\ndocs_dir: ../victim\n"),
        ("book.toml", '[book]\ntitle = "x"\nsrc = "../victim"\n'),
    ],
)
def test_a_site_config_naming_a_folder_outside_is_refused(
    tmp_path: Path, config: str, text: str
) -> None:
    out = victim(tmp_path)
    repo = init_repo(tmp_path / "repo")
    (repo / config).write_text(text)
    before, files = fingerprint(out), _files(repo)
    done = kb(repo, "init", "--local-hook")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr == (
        f"kb: error: the knowledge root ../victim (knowledge_root in {config}) leads outside "
        "the repository (through a symlink or `..`); refused: kbkit reads and writes only "
        "inside the repository\n"
    )
    assert SECRET not in done.stdout + done.stderr
    assert fingerprint(out) == before
    assert _files(repo) == files  # no policy pointing outside, nothing written at all


def test_a_knowledge_folder_linked_outside_is_refused(tmp_path: Path) -> None:
    out = victim(tmp_path)
    repo = init_repo(tmp_path / "repo")
    os.symlink(out, repo / "knowledge")
    before, files = fingerprint(out), _files(repo)
    done = kb(repo, "init", "--local-hook")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "the knowledge root knowledge leads outside the repository" in done.stderr
    assert SECRET not in done.stdout + done.stderr
    assert fingerprint(out) == before and _files(repo) == files


@pytest.mark.parametrize(
    "name",
    [
        ".gitignore",  # files init writes
        ".gitattributes",
        ".pre-commit-config.yaml",
        "mkdocs.yml",  # files site detection reads
        ".obsidian/community-plugins.json",
    ],
)
def test_a_file_init_reads_or_writes_that_links_outside_is_refused(
    tmp_path: Path, name: str
) -> None:
    out = victim(tmp_path)
    (out / "linked").write_text(f"# {SECRET}\n")
    repo = init_repo(tmp_path / "repo")
    if name.startswith(".obsidian/"):  # a vault: its settings are read
        (repo / ".obsidian").mkdir()
        (repo / "Home.md").write_text("# Home\n")
    os.symlink(out / "linked", repo / name)
    before, files = fingerprint(out), _files(repo)
    done = kb(repo, "init", "--local-hook")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(f"kb: error: the file {name} leads outside the repository")
    assert SECRET not in done.stdout + done.stderr
    assert fingerprint(out) == before and _files(repo) == files


def test_links_inside_the_repository_are_fine(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    (repo / "shared").mkdir()
    (repo / "shared/gitignore").write_text("*.tmp\n")
    os.symlink("shared/gitignore", repo / ".gitignore")
    done = kb(repo, "init", "--local-hook")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (repo / ".gitignore").is_symlink()
    assert ".kbkit-cache/" in (repo / "shared/gitignore").read_text()


def test_sampled_pages_outside_or_not_regular_are_passed_over(tmp_path: Path) -> None:
    # init reads a sample of pages to tell a vault by its links (five pages linking by
    # name make one): a page linked out of the repository is not read, so the four here
    # stay four, and a FIFO named like a page is not opened (it would wait forever)
    out = victim(tmp_path)
    (out / "names.md").write_text(f"# {SECRET}\n\n[[A]] [[B]] [[C]]\n")
    repo = init_repo(tmp_path / "repo")
    for n in range(4):
        (repo / f"Note {n}.md").write_text(f"# {n}\n\nSee [[Note {(n + 1) % 4}]].\n")
    os.symlink(out / "names.md", repo / "Linked.md")
    os.mkfifo(repo / "Pipe.md")
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "init", "--local-hook"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,  # a FIFO opened for reading would wait here forever
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Obsidian" not in done.stdout and SECRET not in done.stdout + done.stderr
