"""The page summary: what cross-page checks read from a page once its text is released.

A summary is built from one parsed page and its root-relative path only (link targets are
resolved against the page's folder, never against the file system), so it is computed
while the page is parsed, cached with it and shipped between processes as plain tuples.
Validator loads keep summaries instead of pages: that is what bounds their memory and lets
a warm run skip rebuilding page objects.
"""

from __future__ import annotations

import functools
import posixpath
import re
import sys
from typing import Any, NamedTuple

from kbkit.infra.lazy_pattern import lazy
from kbkit.pages.link import Link
from kbkit.pages.page import Page

# (root-relative target, line, target as written) of each relative link
LinkRef = tuple[str, int, str]
# (comment line, line it covers or WHOLE_FILE, rule id, reason); rule id or reason may be ""
# (malformed)
SuppressionRef = tuple[int, int, str, str]

SUPPRESSION_PREFIX = "kb-disable-"
WHOLE_FILE = -1  # the line a `kb-disable-file` comment covers: every line of its page
_SUPPRESSION = lazy(
    r"^kb-disable-(?P<kind>next-line|file)\b\s*(?P<rule>[a-z0-9/-]*)\s*(?::\s*(?P<reason>.*))?$",
    re.S,
)


class Summary(NamedTuple):
    error: str | None  # why the page could not be read or decoded
    links: tuple[LinkRef, ...]
    suppressions: tuple[SuppressionRef, ...]


def is_absolute(target: str) -> bool:
    """An absolute file path (`/x`, `\\x`, `C:/x`); `//host/x` is a protocol-relative URL."""
    if target.startswith(("/", "\\")):
        return not target.startswith("//")
    return len(target) >= 3 and target[0].isalpha() and target[1] == ":" and target[2] in "/\\"


@functools.lru_cache(maxsize=4096)  # pages of one folder share their bases and targets
def resolve(base: str, path: str) -> str:
    """Root-relative path of a link's path part written on a page in folder `base`."""
    joined = posixpath.normpath(posixpath.join(base, path))
    return "" if joined == "." else sys.intern(joined)


def relative_links(rel: str, links: tuple[Link, ...]) -> tuple[LinkRef, ...]:
    """The links that name a file by a relative path, resolved from the page at `rel`. A
    target with template code in it (Hugo's `{{% ref x %}}`, Jekyll's `{{ site.url }}`, a
    `{% link %}` tag) is what the site's build writes, not a path: it is left out."""
    base = posixpath.dirname(rel)
    out = []
    for link in links:
        target = link.target
        # only a target with a `:` or a leading slash can be external or absolute: most are
        # plain relative paths, spared both tests
        if (":" in target or target[:1] in "/\\") and (link.is_external or is_absolute(target)):
            continue
        if not link.path_part or ("{" in target and ("{{" in target or "{%" in target)):
            continue
        out.append((resolve(base, link.path_part), link.line, _shared(target)))
    return tuple(out)


def _shared(text: str) -> str:
    """Link targets repeat across pages (`_index.md`, `../rules.md`): keep one copy each."""
    return sys.intern(text) if len(text) <= 64 else text


def summarize(rel: str, page: Page) -> Summary:
    """The summary of a parsed page at root-relative path `rel`."""
    if page.error is not None:
        return Summary(page.error, (), ())
    return Summary(None, relative_links(rel, page.links), _suppressions(page))


def _suppressions(page: Page) -> tuple[SuppressionRef, ...]:
    found = []
    lines: list[str] = []  # the page's lines, split once on the first suppression
    for comment in page.comments:
        if not comment.text.startswith(SUPPRESSION_PREFIX):
            continue
        match = _SUPPRESSION.match(comment.text)
        if match is None:
            continue
        rule_id, reason = match["rule"], (match["reason"] or "").strip()
        if match["kind"] == "file":
            found.append((comment.line, WHOLE_FILE, rule_id, reason))
            continue
        lines = lines or page.text.split("\n")
        target = _next_content_line(lines, comment.line)
        found.append((comment.line, target, rule_id, reason))
    return tuple(found)


def _next_content_line(lines: list[str], comment_line: int) -> int:
    index = comment_line  # 0-based index of the line after the comment
    while index < len(lines) and "-->" not in lines[index - 1]:
        index += 1  # a multi-line comment ends later
    while index < len(lines) and not lines[index].strip():
        index += 1
    return index + 1


def from_plain(plain: Any) -> Summary:
    """A summary back from marshal (which keeps tuples as tuples)."""
    return Summary._make(plain)
