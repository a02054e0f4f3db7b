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

import re

from kbkit.intake.diff_excerpt import split_hunks

# GitHub opens a suggestion with a backtick fence whose info string is `suggestion`.
_SUGGESTION = re.compile(
    r"^ {0,3}(`{3,})[ \t]*suggestion[ \t]*\n(.*?)^ {0,3}\1`*[ \t]*$", re.M | re.S
)
_FENCED = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n(.*?)^ {0,3}\1[`~]*[ \t]*$", re.M | re.S)
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
    return [match.group(2).split("\n")[:-1] for match in _SUGGESTION.finditer(text)]


def has_suggestion(body: str) -> bool:
    return bool(_SUGGESTION.search(body.replace("\r\n", "\n")))


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
    text = _SUGGESTION.sub("", body.replace("\r\n", "\n"))
    found = [
        line.strip()
        for match in _FENCED.finditer(text)
        for line in match.group(2).split("\n")
        if line.strip()
    ]
    prose = _FENCED.sub("", text)
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
