"""The review step of the GitHub scan, through a fake `gh` that pages like GitHub: what each
PR costs in calls, what its event holds, and what a failure leaves."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from intake_factories import SLUG, make_pr
from test_github_scan import FakeGh, scan

from kbkit.curator.prompt import render_event
from kbkit.distill.evidence import to_event
from kbkit.intake.discussion import EVENT_BYTES, note_bytes
from kbkit.intake.ledger import load_events
from kbkit.intake.merged_prs import CURSOR_FILE
from kbkit.intake.schemas import EVENTS, schema_errors
from kbkit.intake.sources.github import files_endpoint, pulls_endpoint
from kbkit.intake.sources.github_reviews import MAX_CALLS

FIXTURES = Path(__file__).with_name("fixtures") / "reviews"
PULLS = pulls_endpoint(SLUG)
KEY = ("merged_pr", f"{SLUG}#57")


def recorded(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def threads_of(comments: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """GraphQL's threads for these comments: one per first comment, as recorded for PR 57."""
    known = {n["comments"]["nodes"][0]["databaseId"]: n for n in
             recorded("pr57-review-threads.json")["data"]["repository"]["pullRequest"]
             ["reviewThreads"]["nodes"] if n["comments"]["nodes"]}  # fmt: skip
    roots = [c["id"] for c in comments if "in_reply_to_id" not in c]
    return [
        {"root": root, "isResolved": known[root]["isResolved"] if root in known else False,
         "isOutdated": known[root]["isOutdated"] if root in known else False}
        for root in roots
    ]  # fmt: skip


def filler(count: int, start: int = 1874100000) -> list[dict[str, Any]]:
    """More comments shaped like the recorded ones: reviewers' remarks on other lines."""
    base = recorded("pr57-review-comments.json")[5]
    out = []
    for n in range(count):
        item = copy.deepcopy(base)
        item.update(id=start + n, body=f"Remark {n}: this branch needs a test of its own.",
                    line=200 + n % 50, html_url=f"https://github.com/{SLUG}/pull/57#discussion_r{start + n}")  # fmt: skip
        out.append(item)
    return out


def pr57(gh: FakeGh, comments: list[dict[str, Any]] | None = None) -> None:
    comments = recorded("pr57-review-comments.json") if comments is None else comments
    gh.route(PULLS, pages=[[{**make_pr(57), "user": {"login": "mei-lin", "type": "User"}}]])
    gh.route(files_endpoint(SLUG, 57), pages=[recorded("pr57-files.json")])
    gh.discussion(57, recorded("pr57-reviews.json"), comments,
                  recorded("pr57-issue-comments.json"), threads_of(comments))  # fmt: skip


def calls(gh: FakeGh) -> list[str]:
    return [c for c in gh.load()["calls"] if c not in (PULLS, files_endpoint(SLUG, 57))]


@pytest.fixture
def gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeGh:
    return FakeGh(tmp_path, monkeypatch)


def test_the_event_carries_the_accepted_suggestion_and_the_requested_changes_fenced(
    tmp_path: Path, gh: FakeGh
) -> None:
    """The issue's acceptance: both, within budget, fenced and attributed."""
    pr57(gh)
    assert scan(tmp_path) == 0
    row = load_events(tmp_path / "intake")[KEY]
    spent = len(row["diff_excerpt"].encode()) + sum(map(note_bytes, row["discussion"]["notes"]))
    assert spent <= EVENT_BYTES
    first, *_ = row["discussion"]["notes"]
    assert first["accepted"] == "suggestion" and first["author"] == "arjun-k"
    block = render_event(to_event(row), 1)
    assert block.startswith('<untrusted_data n="1" kind="merged_pr">')
    assert block.endswith("</untrusted_data>")
    assert f"| - id: {SLUG}#57:discussion_r1874021301" in block
    assert (
        "inline comment by arjun-k (MEMBER, reviewer); on tools/kbkit/infra/jsonl.py lines 46-49"
        in block
    )
    assert "ACCEPTED: the suggestion is in the final diff" in block
    assert f"| - id: {SLUG}#57:pullrequestreview-2453001101" in block
    assert "review summary by arjun-k (MEMBER, reviewer); the review requested changes" in block
    assert "ghp_" not in block and "kbkit-review[bot]" not in block
    assert schema_errors(EVENTS, row) == []  # `kb intake check` accepts the row


def test_the_schema_refuses_a_note_that_is_not_a_review_comment() -> None:
    pr = {"source_kind": "merged_pr", "source_id": f"{SLUG}#57", "repo": SLUG, "title": "t",
          "recorded_at": "2026-11-30T12:00:00Z", "via": "github", "number": 57,
          "url": "https://github.com/x", "author": "a", "merged_at": "2026-11-30T12:00:00Z",
          "labels": [], "draft": False, "summary": "", "diff_excerpt": "",
          "discussion": {"notes": [{"id": f"{SLUG}#57:note-1", "kind": "inline", "author": "a",
                                    "association": "MEMBER", "role": "reviewer", "text": "t"}],
                         "read": 1, "omitted": 0, "bots": 0, "complete": True}}  # fmt: skip
    [error] = schema_errors(EVENTS, pr)
    assert "discussion.notes[0].id" in error


def test_a_commented_pr_costs_four_review_calls_one_page_each(tmp_path: Path, gh: FakeGh) -> None:
    pr57(gh)
    assert scan(tmp_path) == 0
    assert calls(gh) == [
        f"repos/{SLUG}/pulls/57/reviews?per_page=100&page=1",
        f"repos/{SLUG}/pulls/57/comments?per_page=100&page=1",
        f"repos/{SLUG}/issues/57/comments?per_page=100&page=1",
        "graphql?name=kbkit&number=57&owner=kbkit-dev",
    ]
    # a second scan records nothing and reads no review again
    gh.load()["calls"] = []
    gh.save()
    assert scan(tmp_path) == 0 and gh.load()["calls"] == [PULLS]


def test_a_pr_nobody_commented_on_costs_three_calls_and_no_graphql(
    tmp_path: Path, gh: FakeGh
) -> None:
    gh.route(PULLS, pages=[[make_pr(7)]])
    gh.files(7, [])
    assert scan(tmp_path) == 0
    assert [c for c in gh.load()["calls"] if "/7/" in c and "files" not in c] == [
        f"repos/{SLUG}/pulls/7/reviews?per_page=100&page=1",
        f"repos/{SLUG}/pulls/7/comments?per_page=100&page=1",
        f"repos/{SLUG}/issues/7/comments?per_page=100&page=1",
    ]
    discussion = load_events(tmp_path / "intake")[("merged_pr", f"{SLUG}#7")]["discussion"]
    assert discussion == {"notes": [], "read": 0, "omitted": 0, "bots": 0, "complete": True}


@pytest.mark.slow
def test_a_second_page_is_read_and_its_comments_count(tmp_path: Path, gh: FakeGh) -> None:
    comments = recorded("pr57-review-comments.json") + filler(121)  # 130: two pages
    pr57(gh, comments)
    assert scan(tmp_path) == 0
    assert f"repos/{SLUG}/pulls/57/comments?per_page=100&page=2" in calls(gh)
    discussion = load_events(tmp_path / "intake")[KEY]["discussion"]
    assert discussion["read"] == 14 + 121 and discussion["complete"] is True
    assert discussion["notes"][0]["accepted"] == "suggestion"  # page 1's suggestion still first


@pytest.mark.slow
def test_a_2000_comment_pr_stays_bounded_in_calls_and_bytes(tmp_path: Path, gh: FakeGh) -> None:
    comments = recorded("pr57-review-comments.json") + filler(1991)
    pr57(gh, comments)
    assert scan(tmp_path) == 0
    made = calls(gh)
    assert len(made) <= MAX_CALLS == 10
    assert [c for c in made if "/pulls/57/comments" in c][-1].endswith("&page=3")  # the cap
    assert len([c for c in made if c.startswith("graphql")]) == 3
    row = load_events(tmp_path / "intake")[KEY]
    spent = len(row["diff_excerpt"].encode()) + sum(map(note_bytes, row["discussion"]["notes"]))
    assert spent <= EVENT_BYTES
    assert len(json.dumps(row, ensure_ascii=False).encode()) < 3 * EVENT_BYTES  # the whole row
    assert row["discussion"]["complete"] is False  # it says that it did not read everything
    assert schema_errors(EVENTS, row) == []
    assert row["discussion"]["notes"][0]["accepted"] == "suggestion"


def test_a_rate_limit_in_the_review_step_keeps_the_cursor_and_records_nothing_of_the_pr(
    tmp_path: Path, gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    pr57(gh)
    gh.state["routes"][f"repos/{SLUG}/pulls/57/comments"]["status"] = 403
    gh.state["routes"][f"repos/{SLUG}/pulls/57/comments"]["message"] = "API rate limit exceeded"
    gh.save()
    assert scan(tmp_path) == 4
    assert "rate limit" in capsys.readouterr().err
    assert not (tmp_path / "intake" / CURSOR_FILE).exists()
    assert KEY not in load_events(tmp_path / "intake")
    pr57(gh)  # GitHub answers again: the next scan records the PR with its discussion
    assert scan(tmp_path) == 0
    assert load_events(tmp_path / "intake")[KEY]["discussion"]["notes"]


def test_a_graphql_error_is_reported_as_github_said_it(
    tmp_path: Path, gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    pr57(gh)
    del gh.load()["threads"][f"{SLUG}#57"]
    gh.save()
    assert scan(tmp_path) == 1
    err = capsys.readouterr().err
    assert "Could not resolve to a PullRequest with the number of 57" in err
    assert "Traceback" not in err and KEY not in load_events(tmp_path / "intake")


def test_a_malformed_comment_page_records_nothing(
    tmp_path: Path, gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = recorded("pr57-review-comments.json")
    bad[2]["id"] = "1874021303"
    pr57(gh, bad)
    assert scan(tmp_path) == 1
    err = capsys.readouterr().err
    assert f"gh api repos/{SLUG}/pulls/57/comments" in err and "item 2" in err
    assert KEY not in load_events(tmp_path / "intake")


def test_recorded_answers_answer_like_github_and_a_bad_file_is_refused(tmp_path: Path) -> None:
    from kbkit.infra.errors import InputError
    from kbkit.intake.sources.github_reviews import RecordedReader, graphql_key

    good = tmp_path / "answers.json"
    good.write_text(json.dumps({"repos/o/r/pulls/1/reviews?per_page=100&page=1": [{"id": 1}],
                                graphql_key({"owner": "o", "name": "r", "number": 1}): {"data": {}}}))  # fmt: skip
    reader = RecordedReader(good)
    assert json.loads(reader.get("repos/o/r/pulls/1/reviews?per_page=100&page=1")) == [{"id": 1}]
    assert (
        json.loads(reader.get("repos/o/r/pulls/1/reviews?per_page=100&page=2")) == []
    )  # past the end
    assert json.loads(reader.graphql("q", {"number": 1, "owner": "o", "name": "r"})) == {"data": {}}
    with pytest.raises(InputError, match="no recorded answer"):
        reader.graphql("q", {"number": 2, "owner": "o", "name": "r"})
    for text in ("[1, 2]", "[" * 100_000, "{"):
        (tmp_path / "bad.json").write_text(text)
        with pytest.raises(InputError):
            RecordedReader(tmp_path / "bad.json")
