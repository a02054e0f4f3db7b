"""A merged PR's review discussion as evidence: attributed notes, ranked, and fitted with the
diff excerpt into the event's one budget.

Each note is one review summary, inline comment or conversation comment, with a citable id
(`OWNER/NAME#N:discussion_r<id>`, `...:pullrequestreview-<id>`, `...:issuecomment-<id>`:
GitHub's own anchors, so `https://HOST/OWNER/NAME/pull/N#<anchor>` is the comment; GitLab's
`GROUP/PROJECT!N:note_<id>`, as `.../-/merge_requests/N#note_<id>` is), who wrote it
(login, association, reviewer or the PR's author), what it is about (file, lines, the tail
of the diff hunk) and its state (the review's verdict, outdated, resolved, accepted).

Order (README, "Review discussion"): suggestions and requested changes whose text landed in
the final diff, then changes requested, resolved threads, other reviewer comments; last the
PR author's own notes and chatter ("LGTM", "Done."). Bots are left out and counted. A thread
travels as a unit (its first comment, then the replies), so a reply never appears without
what it answers. The budget is the event's 8 KiB, shared with the diff excerpt: the ranked
reviewer notes take up to half, the excerpt what they leave, and notes that did not fit
(chatter last) whatever the excerpt leaves. Text is redacted (`redact_secrets`) and its
mentions and references made inert (`kbkit.infra.inert`) before anything is stored.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from kbkit.infra import inert
from kbkit.infra.secret_tokens import redact_secrets
from kbkit.intake.diff_excerpt import MAX_EXCERPT_BYTES, build_excerpt
from kbkit.intake.notes import (
    MAINTAINERS,
    Author,
    RawDiscussion,
    ReviewComment,
)
from kbkit.intake.suggestions import (
    added_lines,
    has_suggestion,
    requested_change_landed,
    suggestion_landed,
)

EVENT_BYTES = MAX_EXCERPT_BYTES  # the diff excerpt and the discussion together
FIRST_SHARE = EVENT_BYTES // 2  # what ranked reviewer notes may take before the excerpt
MAX_NOTES = 24  # per event: every note is a citable id in the model's schema
NOTE_TEXT_BYTES = 1500
HUNK_BYTES = 600
HUNK_LINES = 12
ACCEPTED, CHANGES, RESOLVED, REVIEWER, LAST = range(5)
_WORD = re.compile(r"[A-Za-z0-9_']+")


class _Unit(NamedTuple):
    tier: int
    order: tuple[int, str, int]  # maintainers first, then time, then id
    notes: list[dict[str, Any]]


def note_bytes(note: dict[str, Any]) -> int:
    """What a note costs of the event's budget: its text, hunk and path in UTF-8 bytes (the
    curator's `ReviewNote.size` counts the same)."""
    return sum(len(str(note.get(k) or "").encode()) for k in ("text", "hunk", "path"))


def is_chatter(text: str) -> bool:
    """A short acknowledgement (`LGTM`, `Thanks!`, `Done.`, `+1`): three words at most and no code."""
    return "`" not in text and len(_WORD.findall(text)) <= 3


def clean(text: str, limit: int = NOTE_TEXT_BYTES) -> str:
    """Stored text: credentials redacted, cut to `limit` bytes at a line end where it can be,
    then mentions and references made inert."""
    text = redact_secrets(text.replace("\r\n", "\n").strip())
    data = text.encode()
    if len(data) > limit:
        cut = data[: limit - 4].decode("utf-8", "ignore")
        at = cut.rfind("\n")
        text = (cut[:at] if at > limit // 2 else cut).rstrip() + " …"
    return inert.markdown(text)


def hunk_tail(hunk: str, first: int | None, last: int | None) -> str:
    """The `@@` header and the last lines of a comment's hunk: the lines it is about (GitHub's
    hunk ends at the commented line) and a little context, within HUNK_BYTES."""
    lines = redact_secrets(hunk.replace("\r\n", "\n")).rstrip("\n").split("\n")
    if not lines or not lines[0]:
        return ""
    span = last - first + 1 if first and last and last >= first else 1
    keep = min(span + 3, HUNK_LINES)
    header = [lines[0]] if lines[0].startswith("@@") else []
    body = lines[len(header) :]
    tail = body[-keep:]
    text = "\n".join(header + (["…"] if len(body) > len(tail) else []) + tail)
    while len(text.encode()) > HUNK_BYTES and len(tail) > 1:
        tail = tail[1:]
        text = "\n".join(header + ["…"] + tail)
    return text.encode()[:HUNK_BYTES].decode("utf-8", "ignore")


def _role(author: Author, pr_author: str) -> str:
    same = pr_author != "ghost" and author.login.lower() == pr_author.lower()
    return "author" if same else "reviewer"


def _order(author: Author, at: str | None, ident: int) -> tuple[int, str, int]:
    return (0 if author.association in MAINTAINERS else 1, at or "", ident)


def _note(
    source_id: str, anchor: str, kind: str, author: Author, role: str, text: str, **extra: Any
) -> dict[str, Any]:
    note: dict[str, Any] = {
        "id": f"{source_id}:{anchor}",
        "kind": kind,
        "author": author.login,
        "association": author.association,
        "role": role,
    }
    # left out when unknown or not so (`resolved: false` is kept: GitHub said so)
    note.update({k: v for k, v in extra.items() if v is not None and (v or k == "resolved")})
    note["text"] = clean(text)
    return note


def _tier(note: dict[str, Any], raw_text: str) -> int:
    if note.get("accepted"):
        return ACCEPTED
    if note["role"] == "author" or is_chatter(raw_text):
        return LAST
    if note.get("state") == "changes_requested":
        return CHANGES
    return REVIEWER


class _Built(NamedTuple):
    units: list[_Unit]
    read: int
    bots: int


def _units(raw: RawDiscussion, source_id: str, pr_author: str, diff: str) -> _Built:
    added = added_lines(diff)
    states = {review.id: review.state.lower() for review in raw.reviews}
    units: list[_Unit] = []
    read = bots = 0

    def said(author: Author, body: str) -> bool:
        nonlocal read, bots
        if not body.strip():
            return False
        if author.bot:
            bots += 1
            return False
        read += 1
        return True

    for review in raw.reviews:
        if review.state == "PENDING" or not said(review.author, review.body):
            continue
        state = review.state.lower()
        role = _role(review.author, pr_author)
        landed = state == "changes_requested" and requested_change_landed(review.body, None, added)
        note = _note(source_id, f"pullrequestreview-{review.id}", "review", review.author, role,
                     review.body, state=state, accepted="requested-change" if landed else None,
                     at=review.at)  # fmt: skip
        order = _order(review.author, review.at, review.id)
        units.append(_Unit(_tier(note, review.body), order, [note]))

    known = {c.id for c in raw.comments}
    replies: dict[int, list[ReviewComment]] = {}
    for comment in raw.comments:
        if comment.in_reply_to is not None and comment.in_reply_to in known:
            replies.setdefault(comment.in_reply_to, []).append(comment)
    for comment in raw.comments:
        if comment.in_reply_to in known or not said(comment.author, comment.body):
            continue
        units.extend(_thread(comment, replies.get(comment.id, []), raw, states, added,
                             source_id, pr_author, said))  # fmt: skip

    for item in raw.conversation:
        if not said(item.author, item.body):
            continue
        role = _role(item.author, pr_author)
        note = _note(source_id, f"{item.anchor}{item.id}", "conversation", item.author, role,
                     item.body, at=item.at)  # fmt: skip
        units.append(_Unit(_tier(note, item.body), _order(item.author, item.at, item.id), [note]))
    return _Built(units, read, bots)


def _inline(
    comment: ReviewComment,
    root: ReviewComment,
    states: dict[int, str],
    added: dict[str, set[str]],
    source_id: str,
    pr_author: str,
    **extra: Any,
) -> dict[str, Any]:
    state = states.get(comment.review_id) if comment.review_id else None
    accepted = None
    if has_suggestion(comment.body) and suggestion_landed(comment.body, root.path, added):
        accepted = "suggestion"
    elif state == "changes_requested" and requested_change_landed(comment.body, root.path, added):
        accepted = "requested-change"
    return _note(source_id, f"{comment.anchor}{comment.id}", "inline", comment.author,
                 _role(comment.author, pr_author), comment.body, state=state, accepted=accepted,
                 at=comment.at, **extra)  # fmt: skip


def _thread(
    root: ReviewComment,
    replies: list[ReviewComment],
    raw: RawDiscussion,
    states: dict[int, str],
    added: dict[str, set[str]],
    source_id: str,
    pr_author: str,
    said: Any,
) -> list[_Unit]:
    """A thread's unit (its first comment and the replies that say something), and one unit
    per chatter reply, ranked last."""
    thread = raw.threads.get(root.id)
    outdated = thread.outdated if thread else root.line is None and not root.file_level
    line = root.line or root.original_line
    start = root.start_line or root.original_start_line
    first = _inline(root, root, states, added, source_id, pr_author,
                    in_reply_to=f"{source_id}:{root.anchor}{root.in_reply_to}"
                    if root.in_reply_to else None,
                    path=root.path, line=line, start_line=start if start != line else None,
                    outdated=outdated, resolved=thread.resolved if thread else None,
                    hunk=hunk_tail(root.hunk, start, line) or None)  # fmt: skip
    notes, tiers, chatter = [first], [_tier(first, root.body)], []
    parent = f"{source_id}:{root.anchor}{root.id}"
    for reply in sorted(replies, key=lambda c: (c.at, c.id)):
        if not said(reply.author, reply.body):
            continue
        note = _inline(reply, root, states, added, source_id, pr_author, in_reply_to=parent)
        tier = _tier(note, reply.body)
        if tier == LAST and is_chatter(reply.body):
            chatter.append(_Unit(LAST, _order(reply.author, reply.at, reply.id), [note]))
            continue
        notes.append(note)
        tiers.append(tier)
    reviewers = [t for t, n in zip(tiers, notes, strict=True) if n["role"] == "reviewer"]
    tier = min(reviewers, default=LAST)
    if thread is not None and thread.resolved and tier < LAST:
        tier = min(tier, RESOLVED)
    if first.get("accepted"):
        tier = ACCEPTED
    return [_Unit(tier, _order(root.author, root.at, root.id), notes), *chatter]


class Evidence(NamedTuple):
    excerpt: str
    discussion: dict[str, Any]


def fit(raw: RawDiscussion, source_id: str, pr_author: str, diff: str) -> Evidence:
    """The event's diff excerpt and discussion, together within EVENT_BYTES."""
    built = _units(raw, source_id, pr_author, diff)
    ranked = sorted(built.units, key=lambda u: (u.tier, u.order))
    every = {note["id"] for unit in ranked for note in unit.notes}
    taken: dict[int, list[dict[str, Any]]] = {}  # unit rank -> its notes taken
    ids: set[str] = set()
    waiting: list[tuple[int, list[dict[str, Any]]]] = []
    used = 0

    def take(rank: int, notes: list[dict[str, Any]], room: int) -> list[dict[str, Any]]:
        """Take the unit's notes in order while they fit; return the ones left waiting."""
        nonlocal used
        for at, note in enumerate(notes):
            parent = note.get("in_reply_to")
            if parent in every and parent not in ids:
                return []  # what it answers is not in the event: neither is the reply
            size = note_bytes(note)
            if len(ids) >= MAX_NOTES or used + size > room:
                return notes[at:]
            taken.setdefault(rank, []).append(note)
            ids.add(note["id"])
            used += size
        return []

    for rank, unit in enumerate(ranked):
        rest = unit.notes if unit.tier == LAST else take(rank, unit.notes, FIRST_SHARE)
        if rest:
            waiting.append((rank, rest))
    excerpt = build_excerpt(diff, EVENT_BYTES - used) if diff else ""
    room = EVENT_BYTES - len(excerpt.encode())
    for rank, notes in waiting:  # in rank order: what did not fit first, chatter last
        take(rank, notes, room)
    notes = [note for rank in sorted(taken) for note in taken[rank]]
    return Evidence(
        excerpt,
        {
            "notes": notes,
            "read": built.read,
            "omitted": built.read - len(notes),
            "bots": built.bots,
            "complete": raw.complete,
        },
    )


def attach(row: dict[str, Any], raw: RawDiscussion, diff: str) -> None:
    """Set a merged change's `diff_excerpt` and `discussion` from its final `diff` and what
    was said on it (`raw`), within the event's one budget."""
    evidence = fit(raw, row["source_id"], str(row.get("author") or "ghost"), diff)
    row["diff_excerpt"] = evidence.excerpt
    row["discussion"] = evidence.discussion
