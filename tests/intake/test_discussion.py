"""The discussion as evidence: ranked, attributed, redacted and inert, and within the budget it
shares with the diff excerpt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kbkit.infra import inert
from kbkit.intake.discussion import (
    EVENT_BYTES,
    FIRST_SHARE,
    MAX_NOTES,
    NOTE_TEXT_BYTES,
    clean,
    fit,
    hunk_tail,
    note_bytes,
)
from kbkit.intake.json_pages import decode_pages
from kbkit.intake.notes import Author, IssueComment, RawDiscussion, ReviewComment
from kbkit.intake.sources.github import files_diff
from kbkit.intake.sources.github_shapes import (
    parse_issue_comments,
    parse_review_comments,
    parse_reviews,
    parse_thread_page,
)

FIXTURES = Path(__file__).with_name("fixtures") / "reviews"
PR = "kbkit-dev/kbkit#57"


def recorded(name: str) -> Any:
    data = (FIXTURES / name).read_bytes()
    return decode_pages(name, data)


def pr57() -> RawDiscussion:
    threads = parse_thread_page("t", recorded("pr57-review-threads.json")).threads
    return RawDiscussion(
        parse_reviews("r", recorded("pr57-reviews.json")),
        parse_review_comments("c", recorded("pr57-review-comments.json")),
        parse_issue_comments("i", recorded("pr57-issue-comments.json")),
        {t.root: t for t in threads},
        True,
    )


def diff57() -> str:
    return files_diff("f", (FIXTURES / "pr57-files.json").read_bytes())


def anchors(discussion: dict[str, Any]) -> list[str]:
    return [note["id"].split(":", 1)[1] for note in discussion["notes"]]


def test_notes_come_most_rule_like_first_and_chatter_last() -> None:
    evidence = fit(pr57(), PR, "mei-lin", diff57())
    order = anchors(evidence.discussion)
    assert order[:4] == [
        "discussion_r1874021301",  # the accepted multi-line suggestion
        "discussion_r1874021302",  # the author's reply travels with its thread
        "discussion_r1874021304",  # the requested change whose code landed
        "pullrequestreview-2453001101",  # changes requested
    ]
    assert order.index("discussion_r1874021305") < order.index(
        "issuecomment-2507770003"
    )  # resolved
    last = order[-5:]  # the author's own notes and chatter
    assert set(last) == {"discussion_r1874021303", "issuecomment-2507770002",
                         "discussion_r1874021308", "pullrequestreview-2453001105",
                         "issuecomment-2507770004"}  # fmt: skip
    notes = {n["id"].split(":", 1)[1]: n for n in evidence.discussion["notes"]}
    assert notes["discussion_r1874021301"]["accepted"] == "suggestion"
    assert notes["discussion_r1874021304"]["accepted"] == "requested-change"
    assert notes["discussion_r1874021308"]["role"] == "author"
    assert notes["discussion_r1874021303"]["in_reply_to"] == f"{PR}:discussion_r1874021301"


def test_attribution_location_and_state() -> None:
    notes = {
        n["id"].split(":", 1)[1]: n
        for n in fit(pr57(), PR, "mei-lin", diff57()).discussion["notes"]
    }
    first = notes["discussion_r1874021301"]
    assert (first["author"], first["association"], first["role"]) == (
        "arjun-k",
        "MEMBER",
        "reviewer",
    )
    assert (first["path"], first["start_line"], first["line"]) == (
        "tools/kbkit/infra/jsonl.py",
        46,
        49,
    )
    assert first["state"] == "changes_requested" and first["resolved"] is True
    assert first["hunk"].startswith("@@ -40,12 +40,19 @@") and "os.lseek" in first["hunk"]
    outdated = notes["discussion_r1874021305"]
    assert outdated["outdated"] is True and outdated["line"] == 13  # where it was
    assert notes["discussion_r1874021306"]["author"] == "ghost"
    assert notes["discussion_r1874021306"]["resolved"] is False
    assert "line" not in notes["discussion_r1874021309"]  # a file-level comment


def test_bots_are_left_out_and_counted() -> None:
    discussion = fit(pr57(), PR, "mei-lin", diff57()).discussion
    authors = {note["author"] for note in discussion["notes"]}
    assert not any(a.endswith("[bot]") for a in authors)
    assert discussion["bots"] == 3 and discussion["read"] == 14 and discussion["complete"]


def test_text_is_redacted_and_inert_before_it_is_stored() -> None:
    notes = fit(pr57(), PR, "mei-lin", diff57()).discussion["notes"]
    [cc] = [n for n in notes if n["id"].endswith("issuecomment-2507770003")]
    assert "ghp_" not in cc["text"] and "[redacted]" in cc["text"]
    assert "@kbkit-dev/intake" not in cc["text"] and "#41" not in cc["text"]
    assert inert.markdown(cc["text"]) == cc["text"]
    suggestion = notes[0]["text"]  # code in a fence keeps its bytes
    assert (
        '```suggestion\n            if size and os.pread(fd, 1, size - 1) != b"\\n":' in suggestion
    )


def test_the_excerpt_and_the_notes_fit_one_budget_reviewer_notes_first() -> None:
    huge = "".join(
        f"diff --git a/src/m{i}.py b/src/m{i}.py\n--- a/src/m{i}.py\n+++ b/src/m{i}.py\n"
        f"@@ -1 +1,40 @@\n" + "".join(f"+line {j} of module {i}\n" for j in range(40))
        for i in range(30)
    )
    evidence = fit(pr57(), PR, "mei-lin", huge)
    notes = evidence.discussion["notes"]
    spent = sum(note_bytes(n) for n in notes)
    assert spent + len(evidence.excerpt.encode()) <= EVENT_BYTES
    assert (
        len(evidence.excerpt.encode()) >= EVENT_BYTES - FIRST_SHARE - 1024
    )  # the diff keeps most of its half
    assert anchors(evidence.discussion)[0] == "discussion_r1874021301"
    assert evidence.discussion["omitted"] == 14 - len(notes) > 0
    everything = anchors(fit(pr57(), PR, "mei-lin", "").discussion)
    left_out = set(everything) - set(anchors(evidence.discussion))
    assert left_out and left_out <= set(everything[-5:])  # what did not fit is the chatter


def test_without_a_diff_the_discussion_may_use_the_whole_budget() -> None:
    comments = [_comment(n, "word " * 250) for n in range(1, 30)]  # ~1.25 KB each
    evidence = fit(RawDiscussion([], comments, [], {}, True), PR, "mei-lin", "")
    spent = sum(note_bytes(n) for n in evidence.discussion["notes"])
    assert FIRST_SHARE < spent <= EVENT_BYTES and evidence.excerpt == ""


def test_at_most_max_notes() -> None:
    comments = [_comment(n, f"Rename the helper number {n} please") for n in range(1, 60)]
    discussion = fit(RawDiscussion([], comments, [], {}, True), PR, "mei-lin", "").discussion
    assert len(discussion["notes"]) == MAX_NOTES and discussion["omitted"] == 59 - MAX_NOTES


def test_a_reply_never_appears_without_what_it_answers() -> None:
    fillers = [_comment(n, "big " * 370) for n in range(10, 13)]  # ~1.5 KB each, ranked first
    root = _comment(1, "long " * 400, at="2026-11-25T11:00:00Z")  # does not fit beside them
    reply = _comment(
        2, "Yes, agreed.", reply_to=1, at="2026-11-25T12:00:00Z"
    )  # chatter: a unit of its own
    diff = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1,300 @@\n" + "+x = 1\n" * 2000
    raw = RawDiscussion([], [*fillers, root, reply], [], {}, True)
    assert anchors(fit(raw, PR, "mei-lin", "").discussion)[-2:] == [
        "discussion_r1",
        "discussion_r2",
    ]
    evidence = fit(raw, PR, "mei-lin", diff)
    taken = anchors(evidence.discussion)
    room = (
        EVENT_BYTES
        - len(evidence.excerpt.encode())
        - sum(map(note_bytes, evidence.discussion["notes"]))
    )
    assert room >= len(reply.body.encode())  # the reply alone would fit
    assert "discussion_r1" not in taken and "discussion_r2" not in taken


def test_long_text_is_cut_and_hunks_keep_the_commented_lines() -> None:
    text = clean("para\n" * 1000)
    assert len(text.encode()) <= NOTE_TEXT_BYTES and text.endswith(" …")
    hunk = "@@ -1,40 +1,40 @@\n" + "".join(f" line {n}\n" for n in range(1, 41))
    tail = hunk_tail(hunk, 36, 40)
    assert tail.split("\n")[0] == "@@ -1,40 +1,40 @@" and tail.split("\n")[1] == "…"
    assert tail.split("\n")[-5:] == [f" line {n}" for n in range(36, 41)]
    assert len(hunk_tail("@@ x @@\n" + "+" + "y" * 5000, None, 3).encode()) <= 600


def _comment(
    number: int, body: str, reply_to: int | None = None, at: str = "2026-11-25T10:00:00Z"
) -> ReviewComment:
    return ReviewComment(number, None, reply_to, Author("carol", "MEMBER", False), body,
                         "src/a.py", 3, None, 3, None, False, "@@ -1 +1 @@\n+x", at)  # fmt: skip


def test_a_pr_nobody_commented_on_keeps_its_whole_excerpt() -> None:
    empty = RawDiscussion(
        [],
        [],
        [IssueComment(1, Author("ci[bot]", "NONE", True), "ok", "2026-11-25T10:00:00Z")],
        {},
        True,
    )
    evidence = fit(empty, PR, "mei-lin", diff57())
    assert evidence.discussion == {
        "notes": [],
        "read": 0,
        "omitted": 0,
        "bots": 1,
        "complete": True,
    }
    assert evidence.excerpt and "tools/kbkit/infra/jsonl.py" in evidence.excerpt
    assert json.dumps(evidence.discussion)  # stored as JSON as is
