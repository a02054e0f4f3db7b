"""Where the policy is found: kbkit.yaml, knowledge/policy.yaml, or beside its own root."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbkit.__main__ import main
from kbkit.infra.errors import UsageError
from kbkit.policy.model import load_policy


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository folder of its own (the suite marks tmp_path itself with a kbkit.yaml)."""
    folder = tmp_path / "repo"
    folder.mkdir()
    return folder


def page(repo: Path, rel: str, text: str) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def site(repo: Path) -> None:
    page(repo, "source/manual/_index.md", "# Manual\n\n- [Setup](setup.md)\n")
    page(repo, "source/manual/setup.md", "# Setup\n\nText.\n")


def test_a_policy_beside_its_root_is_found(repo: Path) -> None:
    site(repo)
    page(repo, "source/policy.yaml", "knowledge_root: 'source/'  # the site\nroots: [manual]\n")
    page(repo, "config/policy.yaml", "knowledge_root: [not, kbkit]\n")  # another tool's
    policy = load_policy(repo)
    assert policy.path == repo / "source/policy.yaml"
    assert policy.knowledge_root == "source"


def test_a_top_level_kbkit_yaml_comes_first(repo: Path) -> None:
    site(repo)
    page(repo, "kbkit.yaml", "knowledge_root: source\nroots: [manual]\n")
    page(repo, "source/policy.yaml", "knowledge_root: source\nroots: [elsewhere]\n")
    assert load_policy(repo).path == repo / "kbkit.yaml"


def test_two_candidates_are_a_usage_error(repo: Path) -> None:
    page(repo, "a/policy.yaml", "knowledge_root: a\n")
    page(repo, "b/policy.yaml", "knowledge_root: b\n")
    with pytest.raises(UsageError, match="a/policy.yaml, b/policy.yaml"):
        load_policy(repo)


def test_without_a_policy_file_the_output_says_which_defaults_apply(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site(repo)
    page(repo, "source/policy.yaml", "knowledge_root: src\n")  # names another folder
    code = main(["check-knowledge-tree", "--repo", str(repo)])
    err = capsys.readouterr().err
    assert code == 1  # knowledge/general and knowledge/repos are missing
    assert "no policy file found" in err
    assert "built-in profile 'default': knowledge_root knowledge, roots general, repos" in err
    main(["check-knowledge-tree", "--repo", str(repo), "--policy", "default"])
    assert "no policy file found" not in capsys.readouterr().err
