"""GitHub's error objects and gh's own error output are shown as GitHub's (or gh's) words;
authentication and rate limits exit 4. Files given with `--from`, and a `gh` on PATH that
answers as gh 2.23 does (its words and exit codes taken from the real gh)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from kbkit.__main__ import main
from kbkit.vcs import github

SLUG = "acme/app"
DOCS = "https://docs.github.com/rest"

ANSWERS = {
    "bad credentials": ({"message": "Bad credentials", "documentation_url": DOCS, "status": "401"}, 4),
    "no status field": ({"message": "Bad credentials", "documentation_url": DOCS}, 4),
    "requires authentication": ({"message": "Requires authentication", "documentation_url": DOCS}, 4),
    "rate limit": ({"message": "API rate limit exceeded for user ID 1.", "documentation_url": DOCS, "status": "403"}, 4),
    "secondary rate limit": ({"message": "You have exceeded a secondary rate limit.", "documentation_url": DOCS}, 4),
    "not found": ({"message": "Not Found", "documentation_url": DOCS, "status": "404"}, 1),
}  # fmt: skip


@pytest.mark.parametrize(("answer", "code"), ANSWERS.values(), ids=ANSWERS.keys())
@pytest.mark.parametrize("command", ["record-prs", "mailbox"])
def test_a_file_holding_githubs_error_says_what_github_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], answer: dict[str, str], code: int,
    command: str,
) -> None:  # fmt: skip
    saved = tmp_path / "answer.json"
    saved.write_text(json.dumps(answer, indent=2))
    assert (
        main(["intake", command, "--repo", str(tmp_path), "--slug", SLUG, "--from", str(saved)])
        == code
    )
    err = capsys.readouterr().err
    assert err.startswith(f"kb: error: {saved}:1: the file holds GitHub's error answer")
    assert f"GitHub said: {answer['message']}" in err and "base.repo" not in err
    assert not (tmp_path / "intake").exists()  # nothing recorded, no cursor


def _gh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stdout: str, stderr: str, code: int
) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    gh = folder / "gh"
    gh.write_text(
        f"#!{sys.executable}\nimport sys\nsys.stdout.write({stdout!r})\n"
        f"sys.stderr.write({stderr!r})\nsys.exit({code})\n"
    )
    gh.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")


NO_LOGIN = (
    "To get started with GitHub CLI, please run:  gh auth login\n"
    "Alternatively, populate the GH_TOKEN environment variable with a GitHub API "
    "authentication token.\n"
)  # what gh 2.23 prints, with exit code 4, when it has no token at all


def test_gh_without_credentials_is_exit_4_in_ghs_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _gh(tmp_path, monkeypatch, "", NO_LOGIN, 4)
    assert main(["intake", "record-prs", "--repo", SLUG]) == 4
    err = capsys.readouterr().err
    assert "GitHub said: To get started with GitHub CLI, please run: gh auth login" in err
    with pytest.raises(github.GitHubCredentials, match="gh auth login"):
        github.api_post(f"repos/{SLUG}/pulls", {}, tmp_path)


@pytest.mark.parametrize(
    ("stderr", "kind", "words"),
    [
        ("gh: Bad credentials (HTTP 401)\n", github.GitHubCredentials, "Bad credentials (HTTP 401)"),
        ("gh: API rate limit exceeded for user ID 1. (HTTP 403)\n", github.GitHubUnavailable,
         "API rate limit exceeded for user ID 1. (HTTP 403)"),
        ("gh: Not Found (HTTP 404)\n", github.GitHubError, "Not Found (HTTP 404)"),
        ("HTTP 502: Bad Gateway (https://api.github.com/graphql)\n", github.GitHubUnavailable,
         "Bad Gateway (https://api.github.com/graphql) (HTTP 502)"),
        # GitHub's front end answers many 5xx with an HTML page or nothing: gh prints the
        # status alone (its api command, pkg/cmd/api/api.go, for a body that is not JSON).
        ("gh: HTTP 502\n", github.GitHubUnavailable, "an error page with no message (HTTP 502)"),
        ("gh: HTTP 504\n", github.GitHubUnavailable, "an error page with no message (HTTP 504)"),
        ("gh: HTTP 422\n", github.GitHubError, "an error page with no message (HTTP 422)"),
    ],
)  # fmt: skip
def test_gh_error_output_is_classified_by_githubs_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stderr: str, kind: type, words: str
) -> None:
    _gh(tmp_path, monkeypatch, "", stderr, 1)
    with pytest.raises(kind) as caught:
        github.api_post(f"repos/{SLUG}/pulls", {}, tmp_path)
    assert type(caught.value) is kind and f"GitHub said: {words}" in str(caught.value)
    assert getattr(caught.value, "exit_code", None) == (1 if kind is github.GitHubError else 4)


def test_an_error_object_on_stdout_wins_over_ghs_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = json.dumps({"message": "Resource not accessible by integration", "status": "403",
                       "documentation_url": DOCS})  # fmt: skip
    _gh(tmp_path, monkeypatch, body, "gh: Resource not accessible (HTTP 403)\n", 1)
    with pytest.raises(
        github.GitHubError, match="GitHub said: Resource not accessible by integration"
    ):
        github.api_paginate(f"repos/{SLUG}/pulls", tmp_path)


@pytest.mark.parametrize(
    "stderr",
    [
        'Get "https://api.github.com/repos/o/r/pulls": dial tcp 140.82.121.6:443: i/o timeout\n',
        'Get "https://api.github.com/repos/o/r/pulls": read tcp 10.0.0.2:5->1.2.3.4:443: read: '
        "connection reset by peer\n",
        'Post "https://api.github.com/graphql": net/http: TLS handshake timeout\n',
        'Get "https://api.github.com/repos/o/r/pulls": EOF\n',
        "unexpected end of JSON input\n",  # a JSON error page with an empty body
        "invalid character '<' looking for beginning of value\n",  # HTML sent as JSON
    ],
)
def test_no_answer_from_github_is_the_network_exit_4(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stderr: str
) -> None:
    _gh(tmp_path, monkeypatch, "", stderr, 1)
    with pytest.raises(github.GitHubUnavailable, match="GitHub could not be reached") as caught:
        github.api_post(f"repos/{SLUG}/pulls", {}, tmp_path)
    assert caught.value.exit_code == 4


def test_a_refusal_that_mentions_eof_is_still_a_refusal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GitHub's own words with a status are never read as a network failure."""
    _gh(tmp_path, monkeypatch, "", "gh: Reference EOF does not exist (HTTP 422)\n", 1)
    with pytest.raises(github.GitHubError) as caught:
        github.api_post(f"repos/{SLUG}/pulls", {}, tmp_path)
    assert type(caught.value) is github.GitHubError and caught.value.exit_code == 1
