"""`kb check` and `kb fix` stay inside the repository (`kbkit.infra.boundary`): a page or an
index that is a symlink out of the tree is neither read nor written, a knowledge root
outside is refused with exit 2, and a symlink inside the tree stays a symlink. Real git
repositories, real symlinks, a real folder beside the repository holding a secret."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tests.gitrepo import git
from tests.kbtree import kb, make_tree, page_text
from tests.outside import SECRET, fingerprint, victim

UNQUOTED = "---\ntitle: Notes on things\ntype: guide\ntags: [general]\n---\n\n# Notes\n\nText.\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    made = make_tree(tmp_path / "team", {"old": "x"})
    git(made, "init", "-q", "-b", "main")
    git(made, "add", "-A")
    git(made, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "init")
    return made


def _said(*runs: object) -> str:
    return "".join(f"{run.stdout}{run.stderr}" for run in runs)  # type: ignore[attr-defined]


def _refuse_fixes(repo: Path) -> None:
    """A page size limit that quoting a title crosses: the re-check finds a new finding and
    every fix is refused."""
    size = len(UNQUOTED.encode())
    policy = repo / "knowledge/policy.yaml"
    policy.write_text(policy.read_text() + f"limits:\n  near_bytes: {size + 1}\n")


def _refusals(text: str) -> list[str]:
    return [line for line in text.splitlines() if "leads outside" in line]


@pytest.mark.parametrize("diff", [True, False], ids=["diff", "fix"])
def test_a_page_linked_outside_is_never_read_nor_written_by_fix(
    repo: Path, tmp_path: Path, diff: bool
) -> None:
    out = victim(tmp_path)
    before = fingerprint(out)
    leak = repo / "knowledge/general/leak.md"
    os.symlink(out / "secret.md", leak)  # unregistered, title unquoted: fixable findings
    (repo / "knowledge/general/notes.md").write_text(UNQUOTED)
    index = (repo / "knowledge/general/_index.md").read_text()
    done = kb(repo, "fix", *(["--diff"] if diff else []))
    assert SECRET not in _said(done)
    assert "Traceback" not in done.stderr
    assert leak.is_symlink() and os.readlink(leak) == str(out / "secret.md")
    assert fingerprint(out) == before
    if diff:
        assert '+title: "Notes on things"' in done.stdout  # the other page's fix is shown
        assert "leak.md" not in "".join(
            line for line in done.stdout.splitlines() if line.startswith("+")
        )
    else:
        # the page is reported (kb check's refusal), never linked from the index by its title
        assert "knowledge/general/leak.md" in done.stdout
        assert SECRET not in (repo / "knowledge/general/_index.md").read_text()
        assert "leak.md" not in (repo / "knowledge/general/_index.md").read_text()
        assert (repo / "knowledge/general/_index.md").read_text() != index  # notes.md linked
        assert '"Notes on things"' in (repo / "knowledge/general/notes.md").read_text()


@pytest.mark.parametrize("refused", [False, True], ids=["kept", "refused"])
def test_an_index_linked_outside_stays_a_link_even_when_the_fix_is_refused(
    repo: Path, tmp_path: Path, refused: bool
) -> None:
    out = victim(tmp_path)
    index = repo / "knowledge/general/_index.md"
    index.unlink()
    os.symlink(out / "general/_index.md", index)
    (repo / "knowledge/general/notes.md").write_text(UNQUOTED)
    if refused:
        _refuse_fixes(repo)
    before = fingerprint(out)
    page_before = (repo / "knowledge/general/notes.md").read_bytes()
    done = kb(repo, "fix")
    assert SECRET not in _said(done)
    assert index.is_symlink() and os.readlink(index) == str(out / "general/_index.md")
    assert fingerprint(out) == before
    if refused:
        assert done.returncode == 1
        assert (repo / "knowledge/general/notes.md").read_bytes() == page_before
    else:
        assert '"Notes on things"' in (repo / "knowledge/general/notes.md").read_text()


@pytest.mark.parametrize("where", ["knowledge/policy.yaml", "kbkit.yaml"])
def test_a_knowledge_root_outside_the_repository_is_refused(
    repo: Path, tmp_path: Path, where: str
) -> None:
    out = victim(tmp_path)
    (out / "general/_index.md").write_text(UNQUOTED)  # a fixable page there
    policy = repo / where
    text = policy.read_text() if policy.exists() else "version: 1\n"
    policy.write_text(text + "knowledge_root: ../victim\n")
    before = fingerprint(out)
    runs = [kb(repo, "check"), kb(repo, "fix", "--diff"), kb(repo, "fix")]
    for run in runs:
        assert run.returncode == 2, run.stdout + run.stderr
        assert _refusals(run.stderr) == [
            f"kb: error: the knowledge root ../victim (knowledge_root in {where}) leads outside "
            "the repository (through a symlink or `..`); refused: kbkit reads and writes only "
            "inside the repository"
        ]
        assert "Traceback" not in run.stderr
    assert SECRET not in _said(*runs)
    assert fingerprint(out) == before


def test_a_knowledge_folder_that_links_outside_is_refused(repo: Path, tmp_path: Path) -> None:
    out = victim(tmp_path)
    (out / "general/_index.md").write_text(UNQUOTED)
    os.rename(repo / "knowledge/policy.yaml", repo / "kbkit.yaml")
    os.rename(repo / "knowledge", tmp_path / "moved")
    os.symlink(out, repo / "knowledge")
    before = fingerprint(out)
    runs = [kb(repo, "check"), kb(repo, "fix", "--diff"), kb(repo, "fix")]
    for run in runs:
        assert run.returncode == 2, run.stdout + run.stderr
        assert len(_refusals(run.stderr)) == 1
        assert "the knowledge root knowledge (knowledge_root in kbkit.yaml)" in run.stderr
    assert SECRET not in _said(*runs)
    assert fingerprint(out) == before
    assert (repo / "knowledge").is_symlink()


def test_a_policy_file_linked_outside_is_refused_unread(repo: Path, tmp_path: Path) -> None:
    out = victim(tmp_path)
    (out / "policy.yaml").write_text(f"version: 1\n# {SECRET}\nbad: [\n")
    policy = repo / "knowledge/policy.yaml"
    policy.unlink()
    os.symlink(out / "policy.yaml", policy)
    done = kb(repo, "check")
    assert done.returncode == 2
    assert _refusals(done.stderr) == [
        "kb: error: the policy file knowledge/policy.yaml leads outside the repository (through a "
        "symlink or `..`); refused: kbkit reads and writes only inside the repository"
    ]
    assert SECRET not in _said(done)


def test_a_policy_file_that_is_a_broken_symlink_is_an_error(repo: Path) -> None:
    policy = repo / "knowledge/policy.yaml"
    os.rename(policy, repo / "knowledge/real-policy.yaml")
    os.symlink("gone-policy.yaml", policy)
    for command in ("check", "fix"):
        done = kb(repo, command)
        assert done.returncode == 2, done.stdout + done.stderr
        assert done.stderr == (
            "kb: error: knowledge/policy.yaml: the policy file is a broken symlink (its target "
            "does not exist); fix the link or remove it to use the default policy\n"
        )
    os.unlink(policy)
    os.symlink("real-policy.yaml", policy)  # a link inside the repository is followed
    assert kb(repo, "check").returncode == 0


@pytest.mark.parametrize("refused", [False, True], ids=["kept", "refused"])
def test_a_symlinked_page_inside_the_tree_stays_a_symlink(repo: Path, refused: bool) -> None:
    general = repo / "knowledge/general"
    (general / "real.md").write_text(UNQUOTED)  # unregistered too: its index gets a link
    os.symlink("real.md", general / "alias.md")
    if refused:
        _refuse_fixes(repo)
    before = (general / "real.md").read_bytes()
    done = kb(repo, "fix")
    assert "Traceback" not in done.stderr
    assert (general / "alias.md").is_symlink() and os.readlink(general / "alias.md") == "real.md"
    assert (general / "real.md").is_file() and not (general / "real.md").is_symlink()
    if refused:
        assert done.returncode == 1
        assert (general / "real.md").read_bytes() == before
    else:
        # written once, through the link's target: the title quoted exactly once
        assert (general / "real.md").read_text().count('title: "Notes on things"') == 1
        assert 'Notes on things"\ntype' in (general / "real.md").read_text()


def test_a_new_link_to_a_committed_page_is_written_through(repo: Path) -> None:
    """The link is new (a change not committed, so its `updated:` is bumped) while its
    target is committed: the bump lands in the target and the link stays a link."""
    target = repo / "knowledge/repos/target.md"
    target.write_text(page_text("Target", "x", updated="2026-01-02"))
    index = repo / "knowledge/repos/_index.md"
    index.write_text(index.read_text() + "\n- [Target](target.md)\n")
    git(repo, "add", "-A")
    git(repo, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "target")
    alias = repo / "knowledge/general/alias.md"
    os.symlink("../repos/target.md", alias)
    done = kb(repo, "fix")
    assert "Traceback" not in done.stderr, done.stdout + done.stderr
    assert alias.is_symlink() and os.readlink(alias) == "../repos/target.md"
    assert "updated: 2026-11-30" in target.read_text()


def test_a_folder_whose_index_links_outside_never_lends_its_title(
    repo: Path, tmp_path: Path
) -> None:
    """`tree/child-unregistered`: the link added to the parent's index takes the folder's
    index title, which is never read from outside."""
    out = victim(tmp_path)
    (repo / "knowledge/general/sub").mkdir()
    os.symlink(out / "_index.md", repo / "knowledge/general/sub/_index.md")
    before = fingerprint(out)
    runs = [kb(repo, "fix", "--diff"), kb(repo, "fix")]
    assert SECRET not in _said(*runs)
    assert SECRET not in (repo / "knowledge/general/_index.md").read_text()
    assert (repo / "knowledge/general/sub/_index.md").is_symlink()
    assert fingerprint(out) == before
