"""Read one merged PR's review discussion from GitHub in a bounded number of calls, and attach
it (with the diff excerpt it shares the budget with) to the PR's event row.

The calls, per PR (README, "Review discussion"), each one page of 100, oldest first:
reviews (`GET /repos/O/R/pulls/N/reviews`, at most REVIEW_PAGES pages), inline review
comments (`GET /repos/O/R/pulls/N/comments`, at most COMMENT_PAGES), the conversation
(`GET /repos/O/R/issues/N/comments`, at most CONVERSATION_PAGES), and, only when there are
inline comments, the threads' resolution from GraphQL (`reviewThreads`, at most
THREAD_PAGES). A page shorter than 100 ends its list. So a PR nobody commented on costs 3
calls, the largest PR at most 10, and what is read is bounded by the pages, whatever the PR
holds; a discussion cut by a page cap says so (`complete: false`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol

from kbkit.infra.errors import InputError
from kbkit.infra.json_input import loads
from kbkit.intake.discussion import attach
from kbkit.intake.json_pages import Page, decode_pages
from kbkit.intake.notes import RawDiscussion, Thread
from kbkit.intake.sources.github_shapes import (
    parse_issue_comments,
    parse_review_comments,
    parse_reviews,
    parse_thread_page,
)
from kbkit.vcs import github

PER_PAGE = 100  # GitHub's maximum
REVIEW_PAGES = 2
COMMENT_PAGES = 3
CONVERSATION_PAGES = 2
THREAD_PAGES = 3
MAX_CALLS = REVIEW_PAGES + COMMENT_PAGES + CONVERSATION_PAGES + THREAD_PAGES

THREADS_QUERY = """\
query($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes { isResolved isOutdated comments(first: 1) { nodes { databaseId } } }
      }
    }
  }
}"""


class Reader(Protocol):
    """Where GitHub's answers come from: `gh` (GhReader) or recorded ones (RecordedReader)."""

    def get(self, endpoint: str) -> bytes: ...

    def graphql(self, query: str, variables: dict[str, str | int]) -> bytes: ...


class GhReader:
    """GitHub itself, through `gh api` (one page per call, never `--paginate`)."""

    def __init__(self, cwd: Path):
        self.cwd = cwd

    def get(self, endpoint: str) -> bytes:
        return github.api_get(endpoint, self.cwd)

    def graphql(self, query: str, variables: dict[str, str | int]) -> bytes:
        return github.api_graphql(query, variables, self.cwd)


class RecordedReader:
    """Answers recorded in one JSON file: {"ENDPOINT": response, ...}, GraphQL requests under
    `graphql?` plus their variables in name order (`graphql?name=R&number=N&owner=O`, then
    `graphql?after=CURSOR&name=R&...` for the next page).
    An endpoint it does not hold reads as an empty list, as a page past GitHub's last does."""

    def __init__(self, path: Path):
        self.label = str(path)
        try:
            self.answers: dict[str, Any] = loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(
                f"not a file of recorded GitHub answers ({exc})", path=str(path)
            ) from exc
        if not isinstance(self.answers, dict):
            raise InputError("expected {endpoint: answer, ...}", path=str(path))

    def get(self, endpoint: str) -> bytes:
        return json.dumps(self.answers.get(endpoint, [])).encode()

    def graphql(self, query: str, variables: dict[str, str | int]) -> bytes:
        key = graphql_key(variables)
        if key not in self.answers:
            raise InputError(f"no recorded answer for {key}", path=self.label)
        return json.dumps(self.answers[key]).encode()


def graphql_key(variables: dict[str, str | int]) -> str:
    """How a recorded GraphQL answer is filed: its variables, by name."""
    return "graphql?" + "&".join(f"{k}={variables[k]}" for k in sorted(variables))


def page_endpoint(base: str, page: int) -> str:
    return f"{base}?per_page={PER_PAGE}&page={page}"


def _pages(reader: Reader, base: str, cap: int) -> tuple[list[Page], bool, int]:
    """(pages read, whether the list ended before the cap, calls made)."""
    pages: list[Page] = []
    for number in range(1, cap + 1):
        endpoint = page_endpoint(base, number)
        label = f"gh api {endpoint}"
        page = decode_pages(label, reader.get(endpoint))
        if len(page) != 1 or type(page[0].value) is not list:
            raise InputError("expected one JSON array (one page)", path=label)
        pages.append(page[0])
        if len(page[0].value) < PER_PAGE:
            return pages, True, number
    return pages, False, cap


def read_discussion(slug: str, number: int, reader: Reader) -> tuple[RawDiscussion, int]:
    """Everything said on PR `number` of `slug` that kbkit reads, and the calls it took."""
    base = f"repos/{slug}"
    got, ended, calls = _pages(reader, f"{base}/pulls/{number}/reviews", REVIEW_PAGES)
    reviews = parse_reviews(f"gh api {base}/pulls/{number}/reviews", got)
    complete = ended
    got, ended, more = _pages(reader, f"{base}/pulls/{number}/comments", COMMENT_PAGES)
    comments = parse_review_comments(f"gh api {base}/pulls/{number}/comments", got)
    complete, calls = complete and ended, calls + more
    got, ended, more = _pages(reader, f"{base}/issues/{number}/comments", CONVERSATION_PAGES)
    conversation = parse_issue_comments(f"gh api {base}/issues/{number}/comments", got)
    complete, calls = complete and ended, calls + more
    threads: dict[int, Thread] = {}
    roots = {c.id for c in comments if c.in_reply_to is None}
    owner, name = slug.split("/", 1)
    variables: dict[str, str | int] = {"owner": owner, "name": name, "number": number}
    label = f"gh api graphql (review threads of {slug}#{number})"
    for _ in range(THREAD_PAGES if roots else 0):
        answer = reader.graphql(THREADS_QUERY, variables)
        page = parse_thread_page(label, decode_pages(label, answer))
        calls += 1
        threads.update((thread.root, thread) for thread in page.threads)
        if page.next_cursor is None or roots <= set(threads):
            break
        variables = {**variables, "after": page.next_cursor}
    return RawDiscussion(reviews, comments, conversation, threads, complete), calls


def attach_discussion(row: dict[str, Any], diff: str, reader: Reader) -> int:
    """Set the row's `diff_excerpt` and `discussion` from the PR's final `diff` and what its
    reviewers said, within the event's one budget; returns the calls it took."""
    slug, number = row["repo"], row["number"]
    raw, calls = read_discussion(slug, number, reader)
    attach(row, raw, diff)
    return calls
