"""The repository boundary (`kbkit.infra.boundary`): real paths, real symlinks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kbkit.infra import boundary
from kbkit.infra.errors import UsageError
from tests.gitrepo import init_repo
from tests.outside import SECRET, fingerprint, victim


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    made = init_repo(tmp_path / "repo")
    (made / "knowledge/general").mkdir(parents=True)
    (made / "knowledge/general/real.md").write_text("in the tree\n")
    return made


def test_within_follows_every_symlink_and_dotdot(repo: Path, tmp_path: Path) -> None:
    out = victim(tmp_path)
    top = repo / "knowledge"
    os.symlink("real.md", top / "general/alias.md")
    os.symlink(out / "secret.md", top / "general/leak.md")
    os.symlink(out, top / "linked")
    assert boundary.within(top, top / "general/alias.md")
    assert not boundary.within(top, top / "general/leak.md")
    assert not boundary.within(top, top / "linked/secret.md")
    assert not boundary.within(top, top / "general/../../../victim/secret.md")
    assert not boundary.within(top, repo / "knowledge-other")  # a prefix is not a folder
    assert boundary.within(top, top)


def test_an_outside_path_is_refused_with_exit_2_naming_it_not_its_text(
    repo: Path, tmp_path: Path
) -> None:
    out = victim(tmp_path)
    before = fingerprint(out)
    link = repo / "knowledge/general/leak.md"
    os.symlink(out / "secret.md", link)
    with pytest.raises(boundary.OutsideRepository) as raised:
        boundary.confine(repo, link, "the page")
    assert isinstance(raised.value, UsageError) and raised.value.exit_code == 2
    message = str(raised.value)
    assert message == (
        "the page knowledge/general/leak.md leads outside the repository (through a symlink "
        "or `..`); refused: kbkit reads and writes only inside the repository"
    )
    assert SECRET not in message and raised.value.path == "knowledge/general/leak.md"
    assert fingerprint(out) == before


def test_knowledge_root_outside_is_refused_by_dotdot_or_by_link(repo: Path, tmp_path: Path) -> None:
    victim(tmp_path)
    with pytest.raises(boundary.OutsideRepository, match=r"knowledge root \.\./victim"):
        boundary.knowledge_top(repo, "../victim", str(repo / "knowledge/policy.yaml"))
    os.symlink(tmp_path / "victim", repo / "docs")
    with pytest.raises(boundary.OutsideRepository, match="knowledge root docs"):
        boundary.knowledge_top(repo, "docs")
    assert boundary.knowledge_top(repo, "knowledge") == Path(os.path.realpath(repo / "knowledge"))


def test_a_write_target_is_the_real_file_so_an_inside_link_stays_a_link(
    repo: Path, tmp_path: Path
) -> None:
    top = repo / "knowledge"
    os.symlink("real.md", top / "general/alias.md")
    target = boundary.write_target(top, top / "general/alias.md")
    assert target == Path(os.path.realpath(top / "general/real.md"))
    os.symlink(victim(tmp_path) / "secret.md", top / "general/leak.md")
    with pytest.raises(boundary.OutsideRepository):
        boundary.write_target(top, top / "general/leak.md")


def test_reads_stop_at_the_boundary_without_opening_the_file(repo: Path, tmp_path: Path) -> None:
    out = victim(tmp_path)
    top = repo / "knowledge"
    os.symlink(out / "secret.md", top / "general/leak.md")
    os.chmod(out / "secret.md", 0)  # an open would fail loudly; the read never tries
    try:
        assert boundary.read_within(top, top / "general/leak.md") is None
        assert boundary.text_within(top, top / "general/leak.md") is None
    finally:
        os.chmod(out / "secret.md", 0o644)
    assert boundary.text_within(top, top / "general/real.md") == "in the tree\n"
