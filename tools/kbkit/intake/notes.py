"""What was said on one merged change, whatever its host: the notes every source reads.

GitHub's reviews, inline review comments, conversation comments and thread states map onto
these one to one; GitLab's merge request notes map onto the inline comments (a note on a
diff line) and the conversation (any other note). `discussion.fit` ranks them and fits them
into the event's budget; it never asks which host they came from.
"""

from __future__ import annotations

from typing import NamedTuple

MAINTAINERS = ("OWNER", "MEMBER", "COLLABORATOR")


class Author(NamedTuple):
    login: str  # "ghost" for a deleted account
    association: str  # OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, ... as GitHub says
    bot: bool


class Review(NamedTuple):
    id: int
    author: Author
    state: str  # APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED or PENDING
    body: str
    at: str | None  # submitted_at (a pending review has none)


class ReviewComment(NamedTuple):
    """One inline comment on the diff (GitHub's `GET /repos/O/R/pulls/N/comments`, GitLab's
    `DiffNote`)."""

    id: int
    review_id: int | None  # pull_request_review_id
    in_reply_to: int | None  # the thread's first comment (GitHub points every reply there)
    author: Author
    body: str
    path: str
    line: int | None  # the (last) line on the current diff; None when outdated
    start_line: int | None  # first line of a multi-line comment
    original_line: int | None
    original_start_line: int | None
    file_level: bool  # subject_type "file": about the file, no line
    hunk: str
    at: str
    anchor: str = "discussion_r"  # the host's anchor before the id (GitLab: `note_`)


class IssueComment(NamedTuple):
    """One comment of the change's conversation (GitHub's `GET /repos/O/R/issues/N/comments`,
    a GitLab note that is not on a diff line)."""

    id: int
    author: Author
    body: str
    at: str
    anchor: str = "issuecomment-"  # the host's anchor before the id (GitLab: `note_`)


class Thread(NamedTuple):
    """A review thread's state (GitHub's GraphQL `reviewThreads`; REST has none of it)."""

    root: int  # the id of its first comment
    resolved: bool
    outdated: bool


class RawDiscussion(NamedTuple):
    """What the host said about one change, as read (see the source's module)."""

    reviews: list[Review]
    comments: list[ReviewComment]
    conversation: list[IssueComment]
    threads: dict[int, Thread]  # by the thread's first comment id
    complete: bool  # False: a page cap stopped the reading before the host's last page
