"""GitHub's review objects, checked: reviews, inline review comments, conversation comments
and the review threads' resolution, from the REST (and one GraphQL) response shapes.

Nothing is used unless it is well-formed: ids are positive integers, bodies strings no longer
than GitHub allows, timestamps real; anything else refuses the PR's recording with the
endpoint and item named. A deleted account (`user: null`) reads as `ghost`, as GitHub shows
it; an account of `type: Bot` (or a `[bot]` login) is marked as a bot.
"""

from __future__ import annotations

from typing import Any, NamedTuple, NoReturn

from kbkit.infra.errors import InputError
from kbkit.intake.json_pages import Page, page_items
from kbkit.intake.merged_prs import parse_time
from kbkit.intake.notes import Author, IssueComment, Review, ReviewComment, Thread

MAX_BODY = 65536  # GitHub's limit on a comment or review body
MAX_HUNK = 1 << 20  # a diff hunk is the file's diff up to the line: large, never unbounded
REVIEW_STATES = ("APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED", "PENDING")


class ThreadPage(NamedTuple):
    threads: list[Thread]
    next_cursor: str | None  # None: no further page


def _refuse(where: str, label: str, message: str) -> NoReturn:
    raise InputError(f"{where}: {message}", path=label)


def _id(item: dict[str, Any], field: str, where: str, label: str, *, optional: bool = False) -> Any:
    value = item.get(field)
    if value is None and optional:
        return None
    if type(value) is not int or value < 1:
        _refuse(where, label, f"`{field}` must be a positive integer, got {str(value)[:40]!r}")
    return value


def _line(item: dict[str, Any], field: str, where: str, label: str) -> int | None:
    value = item.get(field)
    if value is None:
        return None
    if type(value) is not int or value < 1:
        _refuse(where, label, f"`{field}` must be a positive integer or null")
    return value


def _text(item: dict[str, Any], field: str, where: str, label: str, limit: int = MAX_BODY) -> str:
    value = item.get(field)
    if value is None:
        return ""
    if type(value) is not str:
        _refuse(where, label, f"`{field}` must be a string or null")
    if len(value) > limit:
        _refuse(where, label, f"`{field}` is longer than GitHub allows ({len(value)} chars)")
    return value


def author_of(item: dict[str, Any], where: str, label: str) -> Author:
    """Who wrote it: `user: null` (a deleted account) is `ghost`, as GitHub shows it."""
    association = item.get("author_association") or "NONE"
    if type(association) is not str or not association.isupper() or len(association) > 40:
        _refuse(where, label, "`author_association` must be GitHub's upper-case word")
    user = item.get("user")
    if user is None:
        return Author("ghost", association, False)
    if type(user) is not dict or type(user.get("login")) is not str or not user["login"]:
        _refuse(where, label, "`user` must be null or an object with a `login`")
    login = user["login"][:100]
    bot = user.get("type") == "Bot" or login.lower().endswith("[bot]")
    return Author(login, association, bot)


def parse_reviews(label: str, pages: list[Page]) -> list[Review]:
    reviews = []
    for where, item in page_items(label, pages, "review"):
        state = item.get("state")
        if state not in REVIEW_STATES:
            _refuse(where, label, f"`state` {str(state)[:40]!r} is not a review state")
        submitted = item.get("submitted_at")
        at = None if submitted is None else parse_time(submitted, "submitted_at", where, label)
        reviews.append(
            Review(
                _id(item, "id", where, label),
                author_of(item, where, label),
                str(state),
                _text(item, "body", where, label),
                at,
            )
        )
    return reviews


def parse_review_comments(label: str, pages: list[Page]) -> list[ReviewComment]:
    comments = []
    for where, item in page_items(label, pages, "review comment"):
        path = item.get("path")
        if type(path) is not str or not path or len(path) > 4096:
            _refuse(where, label, "`path` must be the file's path")
        comments.append(
            ReviewComment(
                _id(item, "id", where, label),
                _id(item, "pull_request_review_id", where, label, optional=True),
                _id(item, "in_reply_to_id", where, label, optional=True),
                author_of(item, where, label),
                _text(item, "body", where, label),
                path,
                _line(item, "line", where, label),
                _line(item, "start_line", where, label),
                _line(item, "original_line", where, label),
                _line(item, "original_start_line", where, label),
                item.get("subject_type") == "file",
                _text(item, "diff_hunk", where, label, MAX_HUNK),
                parse_time(item.get("created_at"), "created_at", where, label),
            )
        )
    return comments


def parse_issue_comments(label: str, pages: list[Page]) -> list[IssueComment]:
    return [
        IssueComment(
            _id(item, "id", where, label),
            author_of(item, where, label),
            _text(item, "body", where, label),
            parse_time(item.get("created_at"), "created_at", where, label),
        )
        for where, item in page_items(label, pages, "comment")
    ]


def parse_thread_page(label: str, pages: list[Page]) -> ThreadPage:
    """One page of `repository.pullRequest.reviewThreads` (see `sources.github_reviews.THREADS_QUERY`)."""
    if len(pages) != 1 or type(pages[0].value) is not dict:
        _refuse("response", label, "expected one GraphQL response object")
    data: Any = pages[0].value.get("data")
    try:
        threads = data["repository"]["pullRequest"]["reviewThreads"]
        info, nodes = threads["pageInfo"], threads["nodes"]
    except (TypeError, KeyError):
        _refuse("response", label, "no `data.repository.pullRequest.reviewThreads`")
    if type(nodes) is not list or type(info) is not dict:
        _refuse("response", label, "`reviewThreads` must hold `nodes` and `pageInfo`")
    found: list[Thread] = []
    for index, node in enumerate(nodes):
        where = f"thread {index}"
        first = node.get("comments", {}).get("nodes") if type(node) is dict else None
        if type(first) is not list or type(node.get("isResolved")) is not bool:
            _refuse(where, label, "expected `isResolved` and `comments.nodes`")
        if not first:
            continue  # every comment of the thread was deleted: nothing to attach it to
        if type(first[0]) is not dict:
            _refuse(where, label, "a comment node must be an object")
        root = _id(first[0], "databaseId", where, label)
        found.append(Thread(root, node["isResolved"], node.get("isOutdated") is True))
    cursor = info.get("endCursor")
    more = info.get("hasNextPage") is True and type(cursor) is str and bool(cursor)
    return ThreadPage(found, cursor if more else None)
