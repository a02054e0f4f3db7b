"""`kb intake record-prs --repo OWNER/NAME`: the scan through a fake `gh api` (real shapes)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from intake_factories import SLUG, make_pr

from kbkit.__main__ import main
from kbkit.intake.ledger import load_events
from kbkit.intake.merged_prs import CURSOR_FILE, advance_cursor, read_cursor
from kbkit.intake.sources import github as github_source
from kbkit.intake.sources.github import files_endpoint, pulls_endpoint

PULLS = pulls_endpoint(SLUG).rpartition("&page=")[0]  # the fake's route: every page of it
PAGE1 = pulls_endpoint(SLUG, 1)
SOURCE_PATCH = "@@ -1,2 +1,2 @@\n-old = 1\n+new = 2\n context\n"
TEST_PATCH = "@@ -5 +5 @@\n-assert old\n+assert new\n"


class FakeGh:
    """The fake `gh` on PATH, and its state file."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        bin_dir = root / "bin"
        bin_dir.mkdir()
        gh = bin_dir / "gh"
        source = (Path(__file__).parent / "fake_gh_api.py").read_text()
        gh.write_text(f"#!{sys.executable}\n{source}")
        gh.chmod(0o755)
        self.state_file = root / "gh-state.json"
        self.state: dict[str, Any] = {"routes": {}}
        self.save()
        monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
        monkeypatch.setenv("FAKE_GH_STATE", str(self.state_file))
        monkeypatch.setenv("KBKIT_GH_RETRY_PAUSE", "0.05")  # a 5xx is sent again: quickly here

    def save(self) -> None:
        self.state_file.write_text(json.dumps(self.state))

    def load(self) -> dict[str, Any]:
        self.state = json.loads(self.state_file.read_text())
        return self.state

    def route(self, endpoint: str, **answer: Any) -> None:
        self.state["routes"][endpoint] = answer
        self.save()

    def files(self, number: int, files: list[dict[str, Any]]) -> None:
        """The PR's files, and a review discussion nobody wrote anything in."""
        self.route(files_endpoint(SLUG, number), pages=[files])
        self.discussion(number)

    def discussion(
        self,
        number: int,
        reviews: list[dict[str, Any]] | None = None,
        comments: list[dict[str, Any]] | None = None,
        conversation: list[dict[str, Any]] | None = None,
        threads: list[dict[str, Any]] | None = None,
    ) -> None:
        """The PR's reviews, inline comments, conversation (whole lists, served a page at a
        time as GitHub does) and its review threads' state (GraphQL)."""
        for base, items in discussion_routes(number, reviews, comments, conversation):
            self.state["routes"][base] = {"items": items}
        self.state.setdefault("threads", {})[f"{SLUG}#{number}"] = threads or []
        self.save()


def discussion_routes(
    number: int,
    reviews: list[dict[str, Any]] | None,
    comments: list[dict[str, Any]] | None,
    conversation: list[dict[str, Any]] | None,
) -> list[tuple[str, list[dict[str, Any]]]]:
    base = f"repos/{SLUG}"
    return [
        (f"{base}/pulls/{number}/reviews", reviews or []),
        (f"{base}/pulls/{number}/comments", comments or []),
        (f"{base}/issues/{number}/comments", conversation or []),
    ]


@pytest.fixture
def gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeGh:
    return FakeGh(tmp_path, monkeypatch)


def scan(tmp_path: Path, *args: str) -> int:
    (tmp_path / "work").mkdir(exist_ok=True)
    return main(["intake", "record-prs", "--repo", SLUG, *args])


def both_files(gh: FakeGh, number: int) -> None:
    gh.files(
        number,
        [
            {"filename": "tests/test_x.py", "status": "modified", "patch": TEST_PATCH},
            {"filename": "src/x.py", "status": "modified", "patch": SOURCE_PATCH},
            {"filename": "logo.png", "status": "added"},  # binary: no patch
        ],
    )


@pytest.mark.slow
def test_scan_reads_every_page_records_merged_prs_with_excerpts_and_moves_cursor(
    tmp_path: Path, gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    page1 = [make_pr(3, updated_at="2026-11-29T12:00:00Z"), make_pr(2, merged=False)]
    page2 = [make_pr(1, draft=True, updated_at="2026-11-28T09:00:00Z")]
    gh.route(PULLS, pages=[page1, page2])
    for number in (1, 3):
        both_files(gh, number)
    assert scan(tmp_path) == 0
    events = load_events(tmp_path / "intake")
    assert sorted(key[1] for key in events) == [f"{SLUG}#1", f"{SLUG}#3"]
    excerpt = events[("merged_pr", f"{SLUG}#3")]["diff_excerpt"]
    assert excerpt.index("src/x.py") < excerpt.index("tests/test_x.py")  # source hunks first
    assert events[("merged_pr", f"{SLUG}#1")]["draft"] is True
    assert read_cursor(tmp_path / "intake") == {SLUG: "2026-11-29T12:00:00Z"}
    out = capsys.readouterr().out
    assert "2 merged PR(s) recorded" in out and "1 closed without merging skipped" in out
    # a second scan stops at the cursor minus the overlap: one page, no files, nothing new
    gh.load()["calls"] = []
    gh.save()
    assert scan(tmp_path) == 0
    assert gh.load()["calls"] == [PAGE1]
    out = capsys.readouterr().out
    assert "0 merged PR(s) recorded, 1 already recorded" in out
    assert "back to 2026-11-29T11:00:00Z" in out and "first scan" not in out


def test_pr_with_no_files_is_recorded_with_an_empty_excerpt(tmp_path: Path, gh: FakeGh) -> None:
    gh.route(PULLS, pages=[[make_pr(7)]])
    gh.files(7, [])
    assert scan(tmp_path) == 0
    assert load_events(tmp_path / "intake")[("merged_pr", f"{SLUG}#7")]["diff_excerpt"] == ""


@pytest.mark.slow
def test_crash_between_pages_records_nothing_and_keeps_the_cursor(
    tmp_path: Path, gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    advance_cursor(tmp_path / "intake", {SLUG: "2026-11-20T00:00:00Z"})
    before = (tmp_path / "intake" / CURSOR_FILE).read_bytes()
    gh.route(PULLS, pages=[[make_pr(3)], [make_pr(2)]], fail_after=1, status=502,
             message="Server Error")  # fmt: skip
    assert scan(tmp_path) == 4
    err = capsys.readouterr().err
    assert "GitHub failed" in err and "HTTP 502" in err and "Traceback" not in err
    assert (tmp_path / "intake" / CURSOR_FILE).read_bytes() == before
    assert load_events(tmp_path / "intake") == {}
    # the next run, with GitHub healthy again, re-reads and records the page it lost
    gh.route(PULLS, pages=[[make_pr(3)], [make_pr(2)]])
    gh.files(3, [])
    gh.files(2, [])
    assert scan(tmp_path) == 0
    assert len(load_events(tmp_path / "intake")) == 2


def test_partial_page_printed_with_success_records_nothing(
    tmp_path: Path, gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    gh.route(PULLS, pages=[[make_pr(3)], json.dumps([make_pr(2)])[:150]])
    assert scan(tmp_path) == 1
    assert "malformed JSON" in capsys.readouterr().err
    assert not (tmp_path / "intake" / CURSOR_FILE).exists()
    assert load_events(tmp_path / "intake") == {}


def test_rate_limit_stops_with_the_reset_time_and_keeps_the_cursor(
    tmp_path: Path, gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    gh.state["rate_limit_reset"] = 1796000000
    gh.route(PULLS, status=403, message="API rate limit exceeded for user ID 1.")
    assert scan(tmp_path) == 4
    err = capsys.readouterr().err
    assert "rate limit" in err and "resets at 2026-11-30T" in err
    assert not (tmp_path / "intake" / CURSOR_FILE).exists()


@pytest.mark.slow
def test_rate_limit_while_fetching_files_keeps_earlier_rows_but_not_the_cursor(
    tmp_path: Path, gh: FakeGh
) -> None:
    gh.route(PULLS, pages=[[make_pr(n, updated_at=f"2026-11-29T1{n}:00:00Z") for n in (2, 1)]])
    gh.files(2, [])
    gh.route(files_endpoint(SLUG, 1), status=429, message="secondary rate limit")
    assert scan(tmp_path) == 4
    assert not (tmp_path / "intake" / CURSOR_FILE).exists()
    gh.files(1, [])
    assert scan(tmp_path) == 0
    assert len(load_events(tmp_path / "intake")) == 2
    assert read_cursor(tmp_path / "intake") == {SLUG: "2026-11-29T12:00:00Z"}


def test_bad_credentials_are_the_environment_exit_4(
    tmp_path: Path, gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    gh.route(PULLS, status=401, message="Bad credentials")
    assert scan(tmp_path) == 4
    err = capsys.readouterr().err
    assert "refused the credentials" in err and "GH_TOKEN" in err and "Traceback" not in err
    assert "GitHub said: Bad credentials" in err
    assert not (tmp_path / "intake").exists() or not (tmp_path / "intake" / CURSOR_FILE).exists()


def test_dry_run_lists_what_would_be_recorded_and_writes_nothing(
    tmp_path: Path, gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    gh.route(PULLS, pages=[[make_pr(5), make_pr(4, merged=False)]])
    assert scan(tmp_path, "--dry-run") == 0
    out = capsys.readouterr().out
    assert f"{SLUG}#5 merged" in out and "1 merged PR(s) would be recorded" in out
    assert "dry run: nothing written" in out
    assert not (tmp_path / "intake" / CURSOR_FILE).exists()
    assert load_events(tmp_path / "intake") == {}
    assert gh.load()["calls"] == [PAGE1]  # no files fetched either


def test_without_a_repository_it_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["intake", "record-prs"]) == 2
    assert "--repo OWNER/NAME" in capsys.readouterr().err


def test_without_gh_it_is_exit_4_says_how_to_install_it_and_records_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "no-gh"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    code = scan(tmp_path)
    err = capsys.readouterr().err
    assert "gh (the GitHub CLI) is not installed or not on PATH" in err, err
    assert "install it (`apt-get install gh`) and set GH_TOKEN" in err
    assert "Traceback" not in err
    assert code == 4  # an environment problem, as README's guarantees say
    assert not (tmp_path / "intake").exists() or not (tmp_path / "intake" / CURSOR_FILE).exists()


def history(count: int, newest: str = "2026-11-30T11:00:00Z") -> list[list[dict[str, Any]]]:
    """`count` closed pulls, one every 37 minutes back from `newest` (one in 25 merged), in
    pages of 100, most recently updated first."""
    from datetime import datetime, timedelta

    top = datetime.fromisoformat(newest.replace("Z", "+00:00"))
    items = [
        make_pr(
            count - i,
            merged=i % 25 == 0,
            updated_at=(top - timedelta(minutes=37 * i)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        )
        for i in range(count)
    ]
    return [items[n : n + 100] for n in range(0, count, 100)]


@pytest.mark.slow
def test_the_cursor_bounds_the_scan_of_a_long_history(
    tmp_path: Path, gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    """3,000 closed pulls: a scan whose cursor is an hour old reads one page, not thirty."""
    pages = history(3000)
    gh.route(PULLS, pages=pages)
    advance_cursor(tmp_path / "intake", {SLUG: "2026-11-30T10:00:00Z"})
    for item in pages[0][:4]:
        gh.files(item["number"], [])
    assert scan(tmp_path) == 0  # the page's first PR is the only merged one in the hour
    assert gh.load()["calls"][:1] == [PAGE1]
    assert [c for c in gh.load()["calls"] if "/pulls?" in c] == [PAGE1]
    assert "1 merged PR(s) recorded, 0 already recorded, 3 closed without merging" in capsys.readouterr().out  # fmt: skip


@pytest.mark.slow
def test_a_first_scan_takes_a_window_and_says_what_it_left(
    tmp_path: Path, gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    pages = history(3000)
    gh.route(PULLS, pages=pages)
    in_window = [
        i for page in pages for i in page if i["updated_at"] >= "2026-11-23T12:00:00Z" and i["merged_at"]
    ]  # fmt: skip
    for item in in_window:
        gh.files(item["number"], [])
    assert scan(tmp_path) == 0
    calls = [c for c in gh.load()["calls"] if "/pulls?" in c]
    assert len(calls) == 4  # three pages reach back 7 days, and one count of all closed PRs
    out = capsys.readouterr().out
    assert f"{len(in_window)} merged PR(s) recorded" in out
    # the count (3,000 at one a page) minus those inside the window: the older ones on the
    # third page are left too
    window = [i for page in pages for i in page if i["updated_at"] >= "2026-11-23T12:00:00Z"]
    assert 200 < len(window) < 300
    left = 3000 - len(window)
    assert f"first scan of {SLUG}: pull requests updated since 2026-11-23T12:00:00Z only; about {left} older" in out  # fmt: skip
    assert f"kb intake record-prs --repo {SLUG} --since YYYY-MM-DD" in out
    # a backfill reads back to --since; the cursor stays where it is
    cursor = read_cursor(tmp_path / "intake")
    older = [
        i for page in pages for i in page
        if "2026-11-20T00:00:00Z" <= i["updated_at"] < "2026-11-23T12:00:00Z" and i["merged_at"]
    ]  # fmt: skip
    for item in older:
        gh.files(item["number"], [])
    assert scan(tmp_path, "--since", "2026-11-20") == 0
    assert f"{len(older)} merged PR(s) recorded" in capsys.readouterr().out
    assert read_cursor(tmp_path / "intake") == cursor


def test_since_must_be_a_date(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert scan(tmp_path, "--since", "last week") == 2
    assert "--since 'last week': write a day (YYYY-MM-DD)" in capsys.readouterr().err


@pytest.mark.slow
def test_a_first_scan_counts_the_older_prs_on_its_last_page(
    tmp_path: Path, gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    """The whole history fits the pages read, the last reaching past the window: the PRs
    older than the window there are left, and said (not "0 older")."""
    pages = history(290)
    gh.route(PULLS, pages=pages)
    window = [i for page in pages for i in page if i["updated_at"] >= "2026-11-23T12:00:00Z"]
    for item in window:
        if item["merged_at"]:
            gh.files(item["number"], [])
    assert scan(tmp_path) == 0
    out = capsys.readouterr().out
    left = 290 - len(window)
    assert 0 < left < 100
    assert f"only; about {left} older" in out


def test_the_source_interface_reads_one_pull_requests_diff_and_discussion(
    tmp_path: Path, gh: FakeGh
) -> None:
    both_files(gh, 5)
    change = github_source.read_change(SLUG, 5, tmp_path)
    assert "diff --git a/src/x.py b/src/x.py\n" in change.diff and SOURCE_PATCH in change.diff
    assert "logo.png" not in change.diff  # binary: nothing to show
    assert change.discussion.complete and change.discussion.conversation == []
    assert github_source.change_id(SLUG, "5") == f"{SLUG}#5"
