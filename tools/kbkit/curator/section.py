"""The shape check of one proposed rule section (pure: text in, reason or None out).

A section is exactly: `<#…#> <ID> <sep> <title>`, a blank line, then the four labelled
bullets in policy order (trigger, must, must not, acceptance; any label the policy lists,
followed by `:` or `：`), continuation lines indented, no blank line inside, and the last
bullet ending with the provenance marker `^[source; source]`.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from kbkit.curator.layout import heading_text
from kbkit.infra.charset import INVISIBLE
from kbkit.pages.page import parse_page
from kbkit.policy.model import Policy
from kbkit.tree.rules import rule_ids

LABEL_KEYS = ("trigger", "must", "must_not", "acceptance")
MARKER = re.compile(r"\^\[([^\[\]\n]+)\]\s*$")
# A section may end with several markers (`^[PR #1] ^[PR #2]`): every one cites.
MARKERS = re.compile(r"(?:\^\[[^\[\]\n]+\][ \t]*)+$")
_HEADING = re.compile(r"^(#{1,6}) (\S.*)$")


class SectionProblem(NamedTuple):
    reason: str
    message: str


def normalize(section: str) -> str:
    """CRLF to LF, no leading or trailing blank lines, no trailing spaces at the end."""
    return section.replace("\r\n", "\n").strip("\n").rstrip()


def check_section(
    text: str,
    *,
    rule_id: str,
    title: str,
    level: int,
    separator: str,
    policy: Policy,
) -> tuple[SectionProblem | None, tuple[str, ...]]:
    """(problem or None, the source IDs the provenance marker cites)."""
    if INVISIBLE.search(text) or "\r" in text:
        return SectionProblem("unsafe-text", "control, zero-width or bidi characters"), ()
    lines = text.split("\n")
    match = _HEADING.match(lines[0])
    if not match:
        return SectionProblem("heading", "the section must start with a heading line"), ()
    if len(match.group(1)) != level:
        return SectionProblem(
            "heading", f"the page's rule headings are level {level} ({'#' * level})"
        ), ()
    expected = heading_text(rule_id, separator, title)
    if match.group(2).strip() != expected:
        return SectionProblem("heading", f"the heading must read {'#' * level} {expected}"), ()
    if len(lines) < 3 or lines[1].strip():
        return SectionProblem("section-shape", "a blank line must follow the heading"), ()
    problem = _check_bullets(lines[2:], policy)
    if problem is not None:
        return problem, ()
    cited = cited_sources(lines[-1])
    if not cited:
        return SectionProblem(
            "provenance", "the last bullet must end with a ^[source] provenance marker"
        ), ()
    page = parse_page("section.md", text.encode("utf-8"))
    if len(page.headings) != 1:
        return SectionProblem("heading", "exactly one heading, no setext or nested headings"), ()
    if page.code_blocks or page.comments:
        return SectionProblem("section-shape", "no code blocks or HTML comments in a rule"), ()
    html = raw_html(text)
    if html is not None:
        return SectionProblem(
            "section-shape",
            f"no raw HTML in a rule ({html[:40]!r}); quote markup in a code span",
        ), ()
    if [r.id for r in rule_ids(page, policy)] != [rule_id]:
        return SectionProblem("section-shape", "the section defines more than its one rule ID"), ()
    return None, cited


def cited_sources(line: str) -> tuple[str, ...]:
    """The source IDs of the markers ending `line` (`^[A; B] ^[C]` -> A, B, C)."""
    run = MARKERS.search(line.rstrip())
    if run is None:
        return ()
    inner = [m.group(1) for m in re.finditer(r"\^\[([^\[\]\n]+)\]", run.group(0))]
    return tuple(part.strip() for text in inner for part in text.split(";") if part.strip())


def raw_html(text: str) -> str | None:
    """The first raw HTML a CommonMark renderer would pass through (an inline tag, an inline
    comment, a block), or None. Code spans keep their text: `<span>` there is not HTML."""
    from markdown_it import MarkdownIt  # imported here: only validation needs it

    for token in MarkdownIt("commonmark").parse(text):
        if token.type == "html_block":
            return token.content
        for child in token.children or ():
            if child.type == "html_inline":
                return child.content
    return None


def _check_bullets(body: list[str], policy: Policy) -> SectionProblem | None:
    labels = policy.data["rules"]["labels"]
    bullets: list[str] = []
    for line in body:
        if not line.strip():
            return SectionProblem("section-shape", "no blank line inside the bullets")
        if line.startswith("- "):
            bullets.append(line[2:])
        elif line.startswith("  ") and bullets:
            continue
        else:
            return SectionProblem(
                "section-shape", f"unexpected line {line[:40]!r}: bullets and indented lines only"
            )
    keys = tuple(policy.data["rules"].get("section_bullets") or LABEL_KEYS)
    if len(bullets) != len(keys):
        return SectionProblem(
            "bullets", f"{len(bullets)} bullets; exactly {len(keys)} are required"
        )
    for key, bullet in zip(keys, bullets, strict=True):
        names = [str(label) for label in labels[key]]
        if not any(re.match(rf"{re.escape(n)}\s*[:：]\s*\S", bullet) for n in names):
            return SectionProblem(
                "bullets", f"the {key.replace('_', ' ')} bullet must start with one of {names}"
            )
    return None
