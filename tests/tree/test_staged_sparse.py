"""`--staged` on split, sparse and sparse-index repositories (real git): the commit's tree.

A split index keeps most entries in a shared file, a sparse checkout leaves folders off the
disk, a sparse index stores such a folder as one entry: each must read as the commit's tree,
so a clean commit passes and a broken link is still reported, also one on a page the
checkout does not have (its staged content is read from git).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.gitrepo import git
from tests.kbtree import kb, make_tree, page_text

pytestmark = pytest.mark.slow  # make test-all: sparse checkouts and split indexes in real git

APP = page_text("App", "See [general](../../general/_index.md).", kind="index").replace(
    "tags: [general]", "tags: [repos]"
)


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    repo = make_tree(tmp_path / "origin", {"guide": "A guide."})
    git(repo, "init", "-q", "-b", "main")
    (repo / "knowledge/repos/app").mkdir()
    (repo / "knowledge/repos/app/_index.md").write_text(APP)
    index = repo / "knowledge/repos/_index.md"
    index.write_text(index.read_text() + "\n- [app](app/_index.md)\n")
    (repo / "tools").mkdir()
    (repo / "tools/a.py").write_text("x = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "init")
    assert kb(repo, "check", "--staged").returncode == 0
    return repo


def _clone(origin: Path, name: str) -> Path:
    clone = origin.parent / name
    git(origin.parent, "clone", "-q", str(origin), name)
    return clone


def _findings(repo: Path) -> tuple[int, list[tuple[str, str]]]:
    done = kb(repo, "check", "--staged", "--format", "json")
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout)
    return report["summary"]["pages"], [(f["path"], f["rule"]) for f in report["findings"]]


def test_a_split_index_reads_as_the_whole_index(origin: Path) -> None:
    repo = _clone(origin, "split")
    git(repo, "update-index", "--split-index")
    assert list((repo / ".git").glob("sharedindex.*"))
    assert _findings(repo) == (4, [])
    index = repo / "knowledge/general/_index.md"
    index.write_text(index.read_text() + "- [new](new.md)\n")
    git(repo, "add", "knowledge/general/_index.md")
    assert _findings(repo)[1] == [("knowledge/general/_index.md", "tree/link-broken")]


@pytest.mark.parametrize("sparse_index", [False, True], ids=["sparse", "sparse-index"])
def test_a_sparse_checkout_reads_the_pages_it_does_not_have_from_git(
    origin: Path, sparse_index: bool
) -> None:
    repo = _clone(origin, "sparse")
    if sparse_index:
        git(repo, "sparse-checkout", "init", "--cone", "--sparse-index")
        git(repo, "sparse-checkout", "set", "knowledge/general", "tools")
        assert "knowledge/repos/" in git(repo, "ls-files", "--sparse").split("\n")
    else:
        git(repo, "sparse-checkout", "set", "--cone", "knowledge/general", "tools")
    assert not (repo / "knowledge/repos").exists()
    assert _findings(repo) == (4, [])  # clean: nothing blocks the commit
    # a staged link into the folder the checkout leaves out resolves, a wrong one does not
    index = repo / "knowledge/general/_index.md"
    index.write_text(index.read_text() + "- [app](../repos/app/_index.md) [x](../repos/x.md)\n")
    git(repo, "add", "knowledge/general/_index.md")
    done = kb(repo, "check", "--staged")
    assert done.returncode == 1
    assert "broken link '../repos/x.md': nothing at knowledge/repos/x.md" in done.stdout
    assert "repos/app" not in done.stdout


def test_a_page_off_the_disk_is_checked_from_its_staged_content(origin: Path) -> None:
    repo = _clone(origin, "sparse-bad")
    # break a page outside the cone in the origin, then leave it off this clone's disk
    app = origin / "knowledge/repos/app/_index.md"
    app.write_text(app.read_text().replace("../../general/_index.md", "../../general/gone.md"))
    git(origin, "commit", "-q", "-am", "break app")
    git(repo, "pull", "-q")
    git(repo, "sparse-checkout", "set", "--cone", "knowledge/general", "tools")
    assert not (repo / "knowledge/repos/app/_index.md").exists()
    assert _findings(repo)[1] == [("knowledge/repos/app/_index.md", "tree/link-broken")]
    # the working tree (not --staged) checks only what is on disk
    assert kb(repo, "check").returncode == 1  # repos/ root missing from this disk


def test_a_deletion_not_staged_is_still_in_the_commit(origin: Path) -> None:
    repo = _clone(origin, "deleted")
    (repo / "knowledge/general/guide.md").unlink()
    assert _findings(repo) == (4, [])  # the index still has the page: the commit is clean
    git(repo, "rm", "-q", "--cached", "knowledge/general/guide.md")
    assert _findings(repo)[1] == [("knowledge/general/_index.md", "tree/link-broken")]
