"""A merged PR's review discussion as evidence: one `ReviewNote` per review summary, inline
comment or conversation comment, each citable by its id.

A note's id is its event's source ID, a colon and GitHub's anchor of the comment
(`acme/app#12:discussion_r345`, `...:pullrequestreview-678`, `...:issuecomment-901`), so a
rule's `^[acme/app#12:discussion_r345]` names exactly what the reviewer wrote. A note costs
the bytes of its text, hunk and path of its event's budget, which it shares with the diff
excerpt (`DIFF_EVENT_BYTES`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any

from kbkit.curator.errors import InvalidRequestError

KINDS = ("review", "inline", "conversation")
ROLES = ("reviewer", "author")
STATES = ("approved", "changes_requested", "commented", "dismissed")
ACCEPTED = ("suggestion", "requested-change")
# GitHub's comment anchors, and GitLab's (`note_N`, a merge request's note)
ANCHOR = re.compile(r"^(discussion_r|pullrequestreview-|issuecomment-|note_)[1-9][0-9]*$")
# What a review-note citation looks like, batch or not: `<source id>:<anchor>`.
NOTE_CITATION = re.compile(r"^\S+[#!][0-9]+:\S+$")  # `!`: a GitLab merge request
MAX_NOTES = 24
ID_BYTES = 300
TEXT_BYTES = 4096  # one note's text; the event's budget bounds them together
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


@dataclass(frozen=True)
class ReviewNote:
    """What one person said on a merged PR, where, and what became of it."""

    id: str  # `<source id>:<GitHub anchor>`: cite it as ^[<id>]
    kind: str  # review (a review's summary), inline (on a diff line), conversation
    author: str  # the login; `ghost` for a deleted account
    role: str  # reviewer, or author (the PR's own author)
    text: str
    association: str | None = None  # OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, ...
    state: str | None = None  # the review's verdict (an inline comment: its review's)
    accepted: str | None = None  # suggestion / requested-change: its text is in the final diff
    path: str | None = None
    line: int | None = None  # the (last) line it is about
    start_line: int | None = None  # the first line of a multi-line comment
    outdated: bool = False  # the lines changed after the comment
    resolved: bool | None = None  # the thread's state (None: unknown)
    in_reply_to: str | None = None  # the id of the note it answers
    at: str | None = None
    hunk: str | None = None  # the end of the diff hunk it is about

    def size(self) -> int:
        """Bytes of the event's budget: text, hunk and path (UTF-8)."""
        return sum(len((v or "").encode()) for v in (self.text, self.hunk, self.path))

    def check(self, where: str, source_id: str) -> None:
        """Raise InvalidRequestError naming the first bad field."""
        if not self.id.startswith(f"{source_id}:") or not ANCHOR.match(
            self.id[len(source_id) + 1 :]
        ):
            raise InvalidRequestError(
                f"{self.id[:80]!r} is not '{source_id}:' and a comment anchor "
                "(discussion_rN, pullrequestreview-N, issuecomment-N; GitLab's note_N)",
                field=f"{where}.id",
            )
        if len(self.id.encode()) > ID_BYTES:
            raise InvalidRequestError(f"longer than {ID_BYTES} bytes", field=f"{where}.id")
        for name, allowed in (("kind", KINDS), ("role", ROLES), ("state", STATES),
                              ("accepted", ACCEPTED)):  # fmt: skip
            value = getattr(self, name)
            if (value is not None or name in ("kind", "role")) and value not in allowed:
                raise InvalidRequestError(
                    f"{value!r} is not one of {', '.join(allowed)}", field=f"{where}.{name}"
                )
        for name in ("author", "association", "path", "in_reply_to", "at"):
            value = getattr(self, name)
            if value is None and name != "author":
                continue
            if not isinstance(value, str) or not value or _CONTROL.search(value) or "\n" in value:
                raise InvalidRequestError("must be one line of text", field=f"{where}.{name}")
        for name in ("text", "hunk"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise InvalidRequestError("expected a string", field=f"{where}.{name}")
        if len(self.text.encode()) > TEXT_BYTES:
            raise InvalidRequestError(f"more than {TEXT_BYTES} bytes", field=f"{where}.text")
        for name in ("line", "start_line"):
            value = getattr(self, name)
            if value is not None and (type(value) is not int or value < 1):
                raise InvalidRequestError("must be a positive integer", field=f"{where}.{name}")
        if type(self.outdated) is not bool:
            raise InvalidRequestError("must be true or false", field=f"{where}.outdated")
        if self.resolved is not None and type(self.resolved) is not bool:
            raise InvalidRequestError("must be true, false or null", field=f"{where}.resolved")

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: Any, where: str) -> ReviewNote:
        if not isinstance(data, dict):
            raise InvalidRequestError("expected a JSON object", field=where)
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise InvalidRequestError(f"unknown field(s) {', '.join(unknown)}", field=where)
        for name in ("id", "kind", "author", "role", "text"):
            if not isinstance(data.get(name), str):
                raise InvalidRequestError("is required (a string)", field=f"{where}.{name}")
        values = {k: v for k, v in data.items() if v is not None}
        values.setdefault("outdated", False)
        return cls(**values)
