"""The pure-Python git index reader against indexes written by real git (v2, v3, v4)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from kbkit.vcs.git_index import GitIndexError, find_git_dir, parse_index, tracked_paths
from tests.gitrepo import git

pytestmark = pytest.mark.skipif(
    shutil.which("git") is None, reason="git is needed to write indexes"
)

NAMES = [
    "README.md",
    "knowledge/general/_index.md",
    "knowledge/local/a-very-long-folder-name/notes.md",
    "knowledge/local/a-very-long-folder-name/notes2.md",
    "knowledge/local/b.txt",
    "knowledge/localized.md",
    "tools/x.py",
    "ünïcode/päge.md",
]


def make_repo(path: Path, version: int | None = None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    for name in NAMES:
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(f"{name}\n")
    git(path, "add", "-A")
    if version is not None:
        git(path, "update-index", "--index-version", str(version))
    return path


def git_ls_files(repo: Path) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(repo), "-c", "core.quotePath=false", "ls-files", "-z"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [name for name in out.split("\0") if name]


@pytest.mark.parametrize("version", [2, 4])  # git writes v3 only with extended flags (below)
def test_paths_match_git_ls_files(tmp_path: Path, version: int) -> None:
    repo = make_repo(tmp_path / "repo", version)
    assert (repo / ".git" / "index").read_bytes()[7] == version
    found = tracked_paths(repo)
    assert found is not None
    prefix, paths = found
    assert prefix == ""
    assert paths == git_ls_files(repo)
    assert sorted(paths) == sorted(NAMES)


def test_extended_flags_in_v3(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "knowledge/local/intent.md").write_text("x\n")
    git(repo, "add", "-N", "knowledge/local/intent.md")  # intent-to-add sets an extended flag
    git(repo, "update-index", "--index-version", "3")
    assert (repo / ".git" / "index").read_bytes()[7] == 3
    found = tracked_paths(repo)
    assert found is not None
    assert "knowledge/local/intent.md" in found[1]
    assert found[1] == git_ls_files(repo)


def test_subfolder_of_a_repository_gets_a_prefix(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "outer")
    found = tracked_paths(repo / "knowledge")
    assert found is not None
    assert found[0] == "knowledge"


def test_worktree_gitdir_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    git(repo, "commit", "-q", "-m", "one")
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(worktree))
    assert (worktree / ".git").is_file()
    found = tracked_paths(worktree)
    assert found is not None
    assert sorted(found[1]) == sorted(NAMES)


def test_no_repository_and_fresh_repository(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    if find_git_dir(plain) is None:  # the temp folder itself is not inside a repository
        assert tracked_paths(plain) is None
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    git(fresh, "init", "-q")
    assert tracked_paths(fresh) == ("", [])


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"JUNK" + b"\0" * 20,
        b"DIRC\0\0\0\x09\0\0\0\0",
        b"DIRC\0\0\0\x02\0\0\0\x05" + b"\0" * 30,
    ],
    ids=["empty", "bad-signature", "bad-version", "truncated"],
)
def test_corrupt_indexes_raise_a_readable_error(data: bytes) -> None:
    with pytest.raises(GitIndexError):
        parse_index(data)


def test_local_tracked_without_git_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import date

    from kbkit.checks.runner import run_validators
    from kbkit.policy.model import builtin_policy

    repo = make_repo(tmp_path / "repo", 4)
    (repo / "knowledge/general/_index.md").write_text("# General\n")
    (repo / "knowledge/repos").mkdir()
    (repo / "knowledge/repos/_index.md").write_text("# Repos\n")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no git binary anywhere
    findings, _ = run_validators(repo, builtin_policy("default"), ("tree",), date(2026, 11, 30))
    assert [(f.path, f.rule_id) for f in findings if f.rule_id == "tree/local-tracked"] == [
        ("knowledge/local/a-very-long-folder-name/notes.md", "tree/local-tracked"),
        ("knowledge/local/a-very-long-folder-name/notes2.md", "tree/local-tracked"),
        ("knowledge/local/b.txt", "tree/local-tracked"),
    ]


@pytest.mark.parametrize("version", [2, 4])
def test_paths_under_a_folder(tmp_path: Path, version: int) -> None:
    """`under` keeps only the folder's paths; an intact v2/v3 index without the folder's name
    is answered without parsing, a v4 index (compressed paths) is always parsed."""
    repo = make_repo(tmp_path / "repo", version)
    local = [
        "knowledge/local/a-very-long-folder-name/notes.md",
        "knowledge/local/a-very-long-folder-name/notes2.md",
        "knowledge/local/b.txt",
    ]
    assert tracked_paths(repo, "knowledge/local/") == ("", local)
    git(repo, "rm", "-q", "--cached", "-r", "knowledge/local")
    assert tracked_paths(repo, "knowledge/local/") == ("", [])


def test_a_corrupt_index_is_parsed_even_when_the_folder_is_absent(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", 2)
    git(repo, "rm", "-q", "--cached", "-r", "knowledge/local")
    index = repo / ".git" / "index"
    data = bytearray(index.read_bytes())
    data[8:12] = (10**6).to_bytes(4, "big")  # an entry count past the end; checksum broken
    index.write_bytes(bytes(data))
    with pytest.raises(GitIndexError):
        tracked_paths(repo, "knowledge/local/")


def split_repo(path: Path) -> Path:
    """A repository whose index is split (core.splitIndex): the local/ page lives only in
    the shared index, the main index file holds the changes since."""
    repo = make_repo(path)
    git(repo, "config", "core.splitIndex", "true")
    git(repo, "update-index", "--split-index")
    (repo / "knowledge/general/new.md").write_text("new\n")
    git(repo, "add", "knowledge/general/new.md")
    return repo


def test_split_index_lists_the_shared_paths(tmp_path: Path) -> None:
    repo = split_repo(tmp_path / "repo")
    main = (repo / ".git" / "index").read_bytes()
    assert list((repo / ".git").glob("sharedindex.*"))
    assert "knowledge/local/b.txt" not in parse_index(main)  # only in the shared index
    found = tracked_paths(repo)
    assert found is not None
    assert found[1] == git_ls_files(repo)
    assert tracked_paths(repo, "knowledge/local/") == (
        "",
        [
            "knowledge/local/a-very-long-folder-name/notes.md",
            "knowledge/local/a-very-long-folder-name/notes2.md",
            "knowledge/local/b.txt",
        ],
    )


def test_split_index_local_page_is_reported(tmp_path: Path) -> None:
    from datetime import date

    from kbkit.checks.runner import run_validators
    from kbkit.policy.model import builtin_policy

    repo = split_repo(tmp_path / "repo")
    (repo / "knowledge/repos").mkdir()
    (repo / "knowledge/repos/_index.md").write_text("# Repos\n")
    findings, _ = run_validators(repo, builtin_policy("default"), ("tree",), date(2026, 11, 30))
    assert [f.path for f in findings if f.rule_id == "tree/local-tracked"] == [
        "knowledge/local/a-very-long-folder-name/notes.md",
        "knowledge/local/a-very-long-folder-name/notes2.md",
        "knowledge/local/b.txt",
    ]


def test_split_index_without_git_is_a_readable_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = split_repo(tmp_path / "repo")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no git binary anywhere
    with pytest.raises(GitIndexError, match="split index"):
        tracked_paths(repo, "knowledge/local/")
