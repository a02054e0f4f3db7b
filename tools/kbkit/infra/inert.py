"""Text kbkit posts to GitHub, made inert: copied mentions and references shown, never live.

kbkit copies other people's words into what it posts (PR titles and bodies, comments,
commit messages): a PR title, a review comment, an event summary. On GitHub, `@user` and
`@org/team` there notify people, and `#123`, `GH-123` and `owner/repo#123` link and leave
a "mentioned this" entry on that issue, every day the bot posts. The text must read the
same and do nothing, so a zero-width space goes after the `@` or `#` (and inside `GH-`):
- `markdown` (PR bodies, comments) writes it as the entity `&#8203;`, so the source holds
  no invisible character, and leaves code spans, fenced blocks and URLs as they are
  (GitHub links nothing there, and an entity would show literally);
- `plain` (PR titles, commit messages: not rendered as markdown) writes the character,
  and leaves URLs as they are.
Both are idempotent: inert text passes through unchanged.
"""

from __future__ import annotations

import re

from kbkit.infra.lazy_pattern import lazy

ZWSP = "\u200b"
ENTITY = "&#8203;"

# `@login` (GitHub logins: letters, digits, inner hyphens) or `@org/team`, not inside a
# word (`me@example.com` is an address) and not already broken.
_MENTION = lazy(r"(?<![A-Za-z0-9_.+\-/@`])@(?=[A-Za-z0-9])")
# `#123` (also `owner/repo#123`), not an HTML entity (`&#8203;`) and not a heading mark.
_NUMBER = lazy(r"(?<!&)#(?=\d)")
# `GH-123`, any letter case.
_GH = lazy(r"(?<![A-Za-z0-9_])([Gg][Hh])-(?=\d)")
_URL = lazy(r"\b[a-z][a-z0-9+.\-]*://[^\s<>()\[\]`]+|<[^\s<>]+@[^\s<>]+>", re.I)
_FENCE = lazy(r"^ {0,3}(`{3,}|~{3,})")


def plain(text: str) -> str:
    """`text` for a surface GitHub does not render as markdown (a title, a commit message)."""
    return _outside_urls(text, ZWSP)


def markdown(text: str) -> str:
    """`text` for a markdown surface (a PR body, a comment), code and URLs left as they are."""
    out: list[str] = []
    fence: str | None = None
    for line in text.splitlines(keepends=True):
        opened = _FENCE.match(line)
        if fence is not None:
            out.append(line)
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            out.append(line)
            continue
        out.append(_outside_code_spans(line))
    return "".join(out)


def _outside_code_spans(line: str) -> str:
    """Break references in `line` except inside `code spans` (matched backtick runs)."""
    parts: list[str] = []
    at = 0
    for span in re.finditer(r"(`+)(?:.*?[^`])?\1(?!`)", line):
        parts.append(_outside_urls(line[at : span.start()], ENTITY))
        parts.append(span.group(0))
        at = span.end()
    parts.append(_outside_urls(line[at:], ENTITY))
    return "".join(parts)


def _outside_urls(text: str, mark: str) -> str:
    """Break references in `text` except inside URLs (a `#123` fragment stays a fragment)."""
    parts: list[str] = []
    at = 0
    for url in _URL.finditer(text):
        parts.append(_break(text[at : url.start()], mark))
        parts.append(url.group(0))
        at = url.end()
    parts.append(_break(text[at:], mark))
    return "".join(parts)


def _break(text: str, mark: str) -> str:
    if "@" in text:
        text = _MENTION.sub("@" + mark, text)
    if "#" in text:
        text = _NUMBER.sub("#" + mark, text)
    if "-" in text:
        text = _GH.sub(r"\1" + mark + "-", text)
    return text
