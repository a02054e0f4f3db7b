"""Whether a reviewer's words landed: a ```` ```suggestion ```` block, or the code a
requested change quotes, found among the lines the PR's final diff adds.

GitHub's "Commit suggestion" writes the block's lines in place of the commented ones, so a
suggestion that landed (as given, or typed in by hand) shows up as added lines of that file
in the final diff; one changed again before the merge does not, and is not claimed. Lines
are compared without their surrounding whitespace (a re-indent still counts). A suggestion
that only deletes lines, or whose lines are too short to tell apart (`}`), is never
claimed; nor is quoted code that is a bare name (`merged_at`). Pure functions: text in, verdict out.
"""

from __future__ import annotations

import bisect
import re

from kbkit.infra.closed_spans import Span, replace_spans
from kbkit.intake.diff_excerpt import split_hunks

# Fenced blocks, found as these patterns would find them (with re.M | re.S):
#   suggestion  ^ {0,3}(`{3,})[ \t]*suggestion[ \t]*\n(.*?)^ {0,3}\1`*[ \t]*$
#   any fence   ^ {0,3}(`{3,}|~{3,})[^\n]*\n(.*?)^ {0,3}\1[`~]*[ \t]*$
# but without trying every later line for each fence that never closes (GitHub takes 65,536
# characters in a comment: a comment of unclosed fences took seconds). A fence closes at the
# first later line of at least as many of its characters; `any fence` may also close on a
# shorter run (down to three), the longest one that some later line holds.
_SUGGESTION_OPEN = re.compile(r"^ {0,3}(`{3,})[ \t]*suggestion[ \t]*\n", re.M)
_SUGGESTION_CLOSE = re.compile(r"^ {0,3}(`{3,})[ \t]*$", re.M)
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n", re.M)
_FENCE_CLOSE = re.compile(r"^ {0,3}(`{3,}|~{3,})[`~]*[ \t]*$", re.M)


def _blocks(
    text: str, opener: re.Pattern[str], closer: re.Pattern[str], shorter: bool
) -> list[Span]:
    """The blocks `opener` starts and a line `closer` finds ends (group 1: the fence's run)."""
    lines: dict[str, list[tuple[int, int, int]]] = {}  # fence character -> (start, end, run)
    for found in closer.finditer(text):
        lines.setdefault(found[1][0], []).append((found.start(), found.end(), len(found[1])))
    longest: dict[str, list[int]] = {}  # the longest run from each closing line on
    for char, found_lines in lines.items():
        runs = [run for _, _, run in found_lines]
        for index in range(len(runs) - 2, -1, -1):
            runs[index] = max(runs[index], runs[index + 1])
        longest[char] = runs
    blocks: list[Span] = []
    position = 0
    while (opened := opener.search(text, position)) is not None:
        fence = opened[1]
        candidates = lines.get(fence[0], [])
        first = bisect.bisect_left(candidates, (opened.end(), -1, -1))
        most = longest[fence[0]][first] if first < len(candidates) else 0
        need = min(len(fence), most) if shorter else len(fence)
        if most < need or most < 3:
            position = opened.start() + 1  # never closed: the next line may open one
            continue
        while candidates[first][2] < need:  # the first closing line long enough
            first += 1
        start, end, _ = candidates[first]
        blocks.append(Span(opened.start(), end, opened.end(), start))
        position = end
    return blocks


def _body(text: str, block: Span) -> str:
    """The lines between a block's fences."""
    return text[block.inner_start : block.inner_end]


def _suggestion_blocks(text: str) -> list[Span]:
    return _blocks(text, _SUGGESTION_OPEN, _SUGGESTION_CLOSE, shorter=False)


def _fenced_blocks(text: str) -> list[Span]:
    return _blocks(text, _FENCE_OPEN, _FENCE_CLOSE, shorter=True)


_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MIN_CODE = 8  # characters of code (whitespace aside) needed before a match means anything


def added_lines(diff: str) -> dict[str, set[str]]:
    """path -> the stripped text of every line the final diff adds to it."""
    added: dict[str, set[str]] = {}
    for hunk in split_hunks(diff):
        lines = added.setdefault(hunk.path, set())
        for line in hunk.text.splitlines()[1:]:
            if line.startswith("+") and line[1:].strip():
                lines.add(line[1:].strip())
    return added


def suggestions(body: str) -> list[list[str]]:
    """The lines of each suggestion block in a comment body."""
    text = body.replace("\r\n", "\n")
    return [_body(text, block).split("\n")[:-1] for block in _suggestion_blocks(text)]


def has_suggestion(body: str) -> bool:
    return bool(_suggestion_blocks(body.replace("\r\n", "\n")))


def _landed(lines: list[str], added: set[str]) -> bool:
    wanted = [line.strip() for line in lines if line.strip()]
    if sum(len("".join(line.split())) for line in wanted) < MIN_CODE:
        return False  # a deletion, or too little code to tell it from any other line
    return all(line in added for line in wanted)


def suggestion_landed(body: str, path: str, added: dict[str, set[str]]) -> bool:
    """Whether every line of some suggestion block of `body` is added to `path` by the diff."""
    lines = added.get(path, set())
    return any(_landed(block, lines) for block in suggestions(body))


def quoted_code(body: str) -> list[str]:
    """The code a comment quotes outside suggestion blocks: fenced lines and code spans."""
    unified = body.replace("\r\n", "\n")
    text = replace_spans(unified, _suggestion_blocks(unified))
    fenced = _fenced_blocks(text)
    found = [
        line.strip() for block in fenced for line in _body(text, block).split("\n") if line.strip()
    ]
    prose = replace_spans(text, fenced)
    found += [span.group(2).strip() for span in _CODE_SPAN.finditer(prose)]
    return [code for code in found if _is_code(code)]


def _is_code(text: str) -> bool:
    """Enough code to mean something when found in the diff: MIN_CODE characters and more
    than a bare name (`merged_at` is in any diff that touches it)."""
    return len("".join(text.split())) >= MIN_CODE and not _NAME.fullmatch(text)


def requested_change_landed(body: str, path: str | None, added: dict[str, set[str]]) -> bool:
    """Whether code a reviewer quoted while requesting changes appears in a line the final
    diff adds (to `path`, or to any file for a review's summary)."""
    pools = [added.get(path, set())] if path is not None else list(added.values())
    return any(code in line for code in quoted_code(body) for pool in pools for line in pool)
