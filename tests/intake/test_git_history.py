from __future__ import annotations

from pathlib import Path

import pytest
from intake_factories import SLUG
from tests.gitrepo import commit_files, git, init_repo

from kbkit.__main__ import main
from kbkit.intake.diff_excerpt import DOCS, SOURCE, TESTS, build_excerpt, classify
from kbkit.intake.ledger import load_events
from kbkit.intake.schemas import EVENTS, schema_errors
from kbkit.vcs.git import GitError, run_git


def history(repo: Path) -> Path:
    """main: a plain commit, a merged PR #12 (merge commit), a squash merge (#13)."""
    init_repo(repo)
    commit_files(
        repo,
        {"README.md": "# app\n", "src/app/validate.py": "def check():\n    pass\n"},
        "Initial import",
    )
    git(repo, "checkout", "-q", "-b", "fix/tags")
    commit_files(
        repo,
        {
            "docs/tags.md": "Tags may be a flow list.\n" * 3,
            "tests/test_validate.py": "def test_flow_list():\n    assert True\n",
            "src/app/validate.py": "def check(tags):\n    return list(tags)\n",
        },
        "Accept flow-list tags",
    )
    git(repo, "checkout", "-q", "main")
    git(
        repo,
        "merge",
        "-q",
        "--no-ff",
        "fix/tags",
        "-m",
        "Merge pull request #12 from dev/fix/tags\n\nValidators: accept flow-list tags\n\n"
        "The tag rule read the raw scalar.",
    )
    links = "def normalize(link):\n    return link.rstrip('/')\n"
    commit_files(
        repo,
        {"src/app/links.py": links},
        "Links: normalize trailing slashes (#13)\n\nDuplicate links slipped through.",
    )
    commit_files(repo, {"NOTES.txt": "not a PR\n"}, "Update notes")
    git(repo, "remote", "add", "origin", f"git@github.com:{SLUG}.git")
    return repo


def test_merge_and_squash_commits_become_rows_with_source_first_excerpts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = history(tmp_path / "app")
    assert main(["intake", "record-git", "--repo", str(repo)]) == 0
    events = load_events(repo / "intake")
    assert sorted(events) == [("merged_pr", f"{SLUG}#12"), ("merged_pr", f"{SLUG}#13")]
    merged = events[("merged_pr", f"{SLUG}#12")]
    assert merged["title"] == "Validators: accept flow-list tags"
    assert merged["summary"] == "The tag rule read the raw scalar."
    assert merged["via"] == "git" and merged["author"] == "kbkit tests"
    excerpt = merged["diff_excerpt"]
    order = [
        excerpt.index(f"--- {p}")
        for p in ("src/app/validate.py", "tests/test_validate.py", "docs/tags.md")
    ]
    assert order == sorted(order)
    squash = events[("merged_pr", f"{SLUG}#13")]
    assert squash["title"] == "Links: normalize trailing slashes"
    assert "+    return link.rstrip('/')" in squash["diff_excerpt"]
    assert all(schema_errors(EVENTS, row) == [] for row in events.values())
    assert "2 merged PR(s) recorded for kbkit-dev/kbkit" in capsys.readouterr().out
    assert main(["intake", "record-git", "--repo", str(repo)]) == 0
    assert "0 merged PR(s) recorded for kbkit-dev/kbkit, 2 already" in capsys.readouterr().out


def test_separate_ledger_repo_and_slug_option(tmp_path: Path) -> None:
    repo = history(tmp_path / "app")
    ledgers = tmp_path / "kb"
    ledgers.mkdir()
    assert (
        main(
            [
                "intake",
                "record-git",
                "--repo",
                str(ledgers),
                "--git",
                str(repo),
                "--slug",
                "acme/app",
                "--branch",
                "main",
            ]
        )
        == 0
    )
    assert sorted(load_events(ledgers / "intake")) == [
        ("merged_pr", "acme/app#12"),
        ("merged_pr", "acme/app#13"),
    ]
    assert not (repo / "intake").exists()


def test_no_remote_and_no_slug_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = init_repo(tmp_path / "r")
    commit_files(repo, {"a.py": "x = 1\n"}, "Start (#1)")
    assert main(["intake", "record-git", "--repo", str(repo)]) == 2
    assert "pass --slug OWNER/NAME" in capsys.readouterr().err


def test_unknown_branch_and_non_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = history(tmp_path / "app")
    assert main(["intake", "record-git", "--repo", str(repo), "--branch", "nope"]) == 2
    assert "no branch or commit 'nope'" in capsys.readouterr().err
    plain = tmp_path / "plain"
    plain.mkdir()
    assert main(["intake", "record-git", "--repo", str(plain), "--slug", SLUG]) == 2
    assert "not a git repository" in capsys.readouterr().err


def test_missing_git_says_how_to_fix_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(GitError, match="git is not installed or not on PATH; install git"):
        run_git(tmp_path, "status")


def test_missing_git_is_exit_4_from_a_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = history(tmp_path / "app")
    empty = tmp_path / "no-git"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    code = main(["intake", "record-git", "--repo", str(repo), "--slug", SLUG])
    err = capsys.readouterr().err
    assert "git is not installed or not on PATH" in err, err
    assert "Traceback" not in err
    assert code == 4  # an environment problem, as README's guarantees say


def test_classify_paths() -> None:
    assert classify("tools/kbkit/links.py") == SOURCE
    assert classify("tests/intake/test_ledger.py") == TESTS
    assert classify("src/app/validate_test.go") == TESTS
    assert classify("web/button.spec.ts") == TESTS
    assert classify("docs/guide/intro.py") == DOCS
    assert classify("README.rst") == DOCS
    assert classify("CHANGELOG.md") == DOCS


def _diff(path: str, hunks: list[list[str]]) -> str:
    out = f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
    for number, lines in enumerate(hunks, 1):
        out += f"@@ -{number},3 +{number},3 @@\n" + "".join(line + "\n" for line in lines)
    return out


def test_excerpt_orders_by_class_then_size_and_stays_under_8_kib() -> None:
    diff = (
        _diff("docs/a.md", [["+doc"]])
        + _diff("tests/test_a.py", [["+t1", "+t2"]])
        + _diff("src/a.py", [[" ctx", "+small"], ["-old", "+new", "+more"]])
    )
    excerpt = build_excerpt(diff)
    assert [excerpt.index(s) for s in ("+more", "+small", "+t1", "+doc")] == sorted(
        excerpt.index(s) for s in ("+more", "+small", "+t1", "+doc")
    )
    big = _diff("src/big.py", [[f"+line {i} " + "é" * 40 for i in range(300)]])
    big += _diff("src/other.py", [["+x"]])
    limited = build_excerpt(big)
    assert len(limited.encode()) <= 8192
    assert "… (hunk truncated)" in limited and "+line 0 " in limited
    assert build_excerpt("") == ""


def test_excerpt_counts_omitted_hunks() -> None:
    diff = "".join(_diff(f"src/m{i}.py", [[f"+{i}" + "y" * 3000]]) for i in range(5))
    excerpt = build_excerpt(diff)
    assert len(excerpt.encode()) <= 8192 and excerpt.endswith("… 3 more hunk(s) omitted\n")
