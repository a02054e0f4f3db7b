"""The folder a check starts walking before its policy is loaded (`kbkit.policy.root_guess`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import kbkit.tree.walk as walk_module
from kbkit.policy import model
from kbkit.policy.root_guess import POLICY_FILE, USUAL_ROOT, root_guess


def test_the_policy_file_is_the_one_the_loader_reads() -> None:
    assert POLICY_FILE == model.TOP_LEVEL_FILE


@pytest.mark.parametrize(
    ("policy", "guess"),
    [
        ("version: 1\nextends: docfx\nknowledge_root: docs\n", "docs"),
        ("knowledge_root: 'website/docs/'  # the site\n", "website/docs"),
        ('version: 1\nknowledge_root: "content"\n', "content"),
        ("version: 1\nextends: public-docs\n", USUAL_ROOT),  # the profile decides
        ("roots:\n  knowledge_root: docs\n", USUAL_ROOT),  # not at the top level
        ("knowledge_root: ../elsewhere\n", USUAL_ROOT),
        ("knowledge_root: docs/../..\n", USUAL_ROOT),
        ("knowledge_root: .\n", USUAL_ROOT),  # the whole repository: never walked on a guess
        ("knowledge_root: 'docs\n", USUAL_ROOT),  # quotes that do not close
        ("knowledge_root: my docs\n", USUAL_ROOT),
        ("knowledge_root: [docs]\n", USUAL_ROOT),
    ],
)
def test_the_guess_is_the_plain_folder_kbkit_yaml_names(
    tmp_path: Path, policy: str, guess: str
) -> None:
    (tmp_path / POLICY_FILE).write_text(policy)
    assert root_guess(tmp_path) == guess


def test_without_a_policy_file_the_guess_is_the_usual_root(tmp_path: Path) -> None:
    assert root_guess(tmp_path) == USUAL_ROOT


def test_a_symlinked_or_special_policy_file_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside.yaml"
    outside.write_text("knowledge_root: docs\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / POLICY_FILE).symlink_to(outside)
    assert root_guess(repo) == USUAL_ROOT
    (repo / POLICY_FILE).unlink()
    os.mkfifo(repo / POLICY_FILE)  # opened without blocking, refused by its kind
    assert root_guess(repo) == USUAL_ROOT


@pytest.fixture
def events(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """In order: the root of each walk a check starts, and "(policy loaded)"."""
    found: list[str] = []
    real_aside, real_load = walk_module.walk_aside, model.load_policy

    def recording(top: Path, root: str, *args: object) -> object:
        found.append(root)
        return real_aside(top, root, *args)  # type: ignore[arg-type]

    def loading(*args: object) -> object:
        found.append("(policy loaded)")
        return real_load(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(walk_module, "walk_aside", recording)
    monkeypatch.setattr(model, "load_policy", loading)
    return found


def test_a_check_walks_the_root_kbkit_yaml_names_once(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    events: list[str],
) -> None:
    """A tree under docs/ is walked once, from the start (before, the walk began only once
    the policy was loaded); a wrong guess is walked again under the policy's root."""
    from kbkit.__main__ import main

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n[gone](gone.md)\n")
    (tmp_path / POLICY_FILE).write_text(
        "version: 1\nextends: public-docs\nknowledge_root: docs\nindex_page: index.md\n"
    )
    argv = ["check", "--repo", str(tmp_path), "--format", "json", "--today", "2026-11-30"]
    assert main([*argv, "--no-cache"]) == 1
    assert "gone.md" in capsys.readouterr().out
    assert events == ["docs", "(policy loaded)"]  # begun before the policy's imports

    # a guess the policy does not confirm (a top-level line the loader reads otherwise
    # cannot occur, so the guess is made wrong here) is walked again, with the same result
    import kbkit.policy.root_guess as guess_module

    monkeypatch.setattr(guess_module, "root_guess", lambda repo: "docs/other")
    (tmp_path / "docs" / "other").mkdir()
    events.clear()
    assert main([*argv, "--no-cache"]) == 1
    assert "gone.md" in capsys.readouterr().out
    assert events == ["docs/other", "(policy loaded)", "docs"]


def test_a_guessed_root_that_leads_outside_is_never_walked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], events: list[str]
) -> None:
    """`docs` a symlink to a folder outside the repository: no walk starts there (not even
    on the guess, before the policy refuses the root), and the check exits 2 naming it."""
    from kbkit.__main__ import main

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "private-name.md").write_text("# Private\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "docs").symlink_to(outside)
    (repo / POLICY_FILE).write_text("version: 1\nextends: public-docs\nknowledge_root: docs\n")
    assert root_guess(repo) == "docs"
    assert main(["check", "--repo", str(repo), "--today", "2026-11-30"]) == 2
    assert events == ["(policy loaded)"]  # and no walk at all
    shown = capsys.readouterr()
    assert "docs" in shown.err and "private-name" not in shown.out + shown.err
