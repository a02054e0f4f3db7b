"""GitHub's review objects as recorded (tests/intake/fixtures/reviews/), and malformed ones
refused with the endpoint and item named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kbkit.infra.errors import InputError
from kbkit.intake.json_pages import decode_pages
from kbkit.intake.sources.github_shapes import (
    parse_issue_comments,
    parse_review_comments,
    parse_reviews,
    parse_thread_page,
)

FIXTURES = Path(__file__).with_name("fixtures") / "reviews"


def recorded(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def pages(value: Any) -> Any:
    return decode_pages("gh api x", json.dumps(value).encode())


def test_reviews_with_a_deleted_author_and_a_bot() -> None:
    reviews = {r.id: r for r in parse_reviews("x", pages(recorded("pr57-reviews.json")))}
    assert reviews[2453001101].state == "CHANGES_REQUESTED"
    assert reviews[2453001101].author.association == "MEMBER"
    assert reviews[2453001103].author.login == "ghost"  # `user: null`
    assert reviews[2453001104].author.bot  # `type: Bot`
    assert reviews[2453001102].body == ""


def test_review_comments_keep_lines_ranges_replies_and_outdated_positions() -> None:
    comments = {
        c.id: c for c in parse_review_comments("x", pages(recorded("pr57-review-comments.json")))
    }
    suggestion = comments[1874021301]
    assert (suggestion.start_line, suggestion.line, suggestion.review_id) == (46, 49, 2453001101)
    assert suggestion.in_reply_to is None and suggestion.hunk.startswith("@@ -40,12")
    assert comments[1874021302].in_reply_to == 1874021301
    outdated = comments[1874021305]
    assert outdated.line is None and outdated.original_line == 13
    assert comments[1874021306].author.login == "ghost"
    assert comments[1874021309].file_level and comments[1874021309].line is None


def test_conversation_and_threads() -> None:
    conversation = parse_issue_comments("x", pages(recorded("pr57-issue-comments.json")))
    assert [c.author.bot for c in conversation] == [True, False, False, False]
    assert conversation[3].author.login == "ghost"
    page = parse_thread_page("x", pages(recorded("pr57-review-threads.json")))
    assert page.next_cursor is None  # hasNextPage false
    threads = {t.root: t for t in page.threads}
    assert threads[1874021301].resolved and not threads[1874021301].outdated
    assert threads[1874021305].outdated
    assert len(page.threads) == 7  # the thread whose comments were all deleted is skipped


def _comment(**change: Any) -> dict[str, Any]:
    return {**recorded("pr57-review-comments.json")[0], **change}


@pytest.mark.parametrize(
    ("item", "message"),
    [
        (_comment(id="1874021301"), "`id` must be a positive integer"),
        (_comment(id=0), "`id` must be a positive integer"),
        (_comment(in_reply_to_id=-1), "`in_reply_to_id` must be a positive integer"),
        (_comment(body=7), "`body` must be a string or null"),
        (_comment(body="x" * 70000), "longer than GitHub allows"),
        (_comment(path=None), "`path` must be the file's path"),
        (_comment(line="49"), "`line` must be a positive integer or null"),
        (_comment(user={"id": 3}), "`user` must be null or an object with a `login`"),
        (_comment(author_association="member; rm"), "upper-case word"),
        (_comment(created_at="2099-01-01T00:00:00Z"), "outside"),
    ],
)
def test_a_malformed_comment_is_refused_naming_the_item(item: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError) as info:
        parse_review_comments("gh api repos/o/r/pulls/57/comments", pages([item]))
    assert message in str(info.value)
    assert str(info.value).startswith("gh api repos/o/r/pulls/57/comments: page 1 (line 1), item 0")


def test_a_review_state_github_never_sends_is_refused() -> None:
    review = {**recorded("pr57-reviews.json")[0], "state": "MERGED"}
    with pytest.raises(InputError, match="is not a review state"):
        parse_reviews("x", pages([review]))


@pytest.mark.parametrize(
    "answer",
    [
        {"data": {"repository": {"pullRequest": None}}},
        {"data": {"repository": {"pullRequest": {"reviewThreads": {"nodes": {}, "pageInfo": {}}}}}},
        {"data": {"repository": {"pullRequest": {"reviewThreads": {
            "pageInfo": {}, "nodes": [{"isResolved": "yes", "comments": {"nodes": []}}]}}}}},
    ],
)  # fmt: skip
def test_a_malformed_threads_answer_is_refused(answer: Any) -> None:
    with pytest.raises(InputError):
        parse_thread_page("gh api graphql", pages(answer))
