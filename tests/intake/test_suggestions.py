"""Suggestions and requested changes that landed: their lines among those the final diff adds."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from kbkit.intake.suggestions import (
    added_lines,
    quoted_code,
    requested_change_landed,
    suggestion_landed,
    suggestions,
)

DIFF = (
    "diff --git a/src/io.py b/src/io.py\n--- a/src/io.py\n+++ b/src/io.py\n"
    "@@ -10,4 +10,6 @@ def write(path, data):\n"
    "     with locked(path):\n"
    "-        os.write(fd, data)\n"
    "+        if size and os.pread(fd, 1, size - 1) != b'\\n':\n"
    "+            data = b'\\n' + data\n"
    "+        os.write(fd, data)\n"
    "     return size\n"
    "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n"
    "@@ -1 +1 @@\n-old words\n+Appends start on a fresh line.\n"
)
MULTI = (
    "Start on a fresh line:\n\n```suggestion\n"
    "    if size and os.pread(fd, 1, size - 1) != b'\\n':\n"
    "        data = b'\\n' + data\n"
    "    os.write(fd, data)\n```\n"
)


def test_added_lines_are_kept_per_file_without_their_indentation() -> None:
    added = added_lines(DIFF)
    assert set(added) == {"src/io.py", "README.md"}  # paths without their line end
    assert "data = b'\\n' + data" in added["src/io.py"]
    assert "with locked(path):" not in added["src/io.py"]  # context, not added


def test_a_multi_line_suggestion_that_landed_re_indented() -> None:
    assert suggestions(MULTI) == [
        ["    if size and os.pread(fd, 1, size - 1) != b'\\n':",
         "        data = b'\\n' + data", "    os.write(fd, data)"]
    ]  # fmt: skip
    assert suggestion_landed(MULTI, "src/io.py", added_lines(DIFF))
    assert suggestion_landed(MULTI.replace("\n", "\r\n"), "src/io.py", added_lines(DIFF))


def test_a_suggestion_changed_before_the_merge_or_on_another_file_did_not_land() -> None:
    changed = MULTI.replace("data = b'\\n' + data", "data = NEWLINE + data")
    assert not suggestion_landed(changed, "src/io.py", added_lines(DIFF))
    assert not suggestion_landed(MULTI, "src/other.py", added_lines(DIFF))


def test_deletions_and_trivial_lines_are_never_claimed() -> None:
    added = added_lines(
        DIFF + "diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1 +1,2 @@\n+}\n+\n"
    )
    assert not suggestion_landed("Drop these:\n```suggestion\n```", "src/io.py", added)
    assert not suggestion_landed("```suggestion\n}\n```", "x.c", added)


def test_a_longer_fence_and_text_after_the_block() -> None:
    body = "Like this:\n````suggestion\nos.write(fd, data)\n````\nthen rerun the tests."
    assert suggestion_landed(body, "src/io.py", added_lines(DIFF))


def test_a_requested_change_lands_when_the_code_it_quotes_is_added() -> None:
    asked = "Check the last byte first: `os.pread(fd, 1, size - 1)`, never seek."
    assert quoted_code(asked) == ["os.pread(fd, 1, size - 1)"]
    assert requested_change_landed(asked, "src/io.py", added_lines(DIFF))
    assert requested_change_landed(asked, None, added_lines(DIFF))  # a review summary: any file
    assert not requested_change_landed(asked, "README.md", added_lines(DIFF))


def test_a_bare_name_or_a_short_span_is_not_evidence_of_a_landed_change() -> None:
    assert quoted_code("keep `size` and `data` but rename `os_write_all`") == []
    fenced = "Use this:\n```python\nos.write(fd, data)\n```"
    assert quoted_code(fenced) == ["os.write(fd, data)"]
    assert quoted_code(MULTI) == []  # a suggestion block is not quoted code


# --- fenced blocks found without trying every later line per open fence --------------------

SUGGESTION = re.compile(
    r"^ {0,3}(`{3,})[ \t]*suggestion[ \t]*\n(.*?)^ {0,3}\1`*[ \t]*$", re.M | re.S
)
FENCED = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n(.*?)^ {0,3}\1[`~]*[ \t]*$", re.M | re.S)
FENCE_PIECES = (
    "```",
    "````",
    "~~~",
    "~~~~",
    "`",
    "~",
    " ",
    "  ",
    "    ",
    "\t",
    "\n",
    "x",
    "suggestion",
)


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(FENCE_PIECES), max_size=40))
def test_blocks_are_those_the_fence_patterns_find(pieces: list[str]) -> None:
    from kbkit.intake.suggestions import _fenced_blocks, _suggestion_blocks

    text = "".join(pieces)
    for pattern, ours in ((SUGGESTION, _suggestion_blocks), (FENCED, _fenced_blocks)):
        want = [(m.start(), m.end(), m.group(2)) for m in pattern.finditer(text)]
        found = ours(text)
        assert [(b.start, b.end, text[b.inner_start : b.inner_end]) for b in found] == want


def test_a_comment_of_fences_that_never_close_quotes_no_code() -> None:
    body = "~~~~x\n" * 3 + "```suggestion\n" * 3 + "`run this` please"
    assert quoted_code(body) == []
    assert suggestions(body) == []
