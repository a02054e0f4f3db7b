"""The shape check of one proposed rule section (pure: text in, reason or None out).

A section is exactly: `<#…#> <ID> <sep> <title>`, a blank line, then the four labelled
bullets in policy order (trigger, must, must not, acceptance; any label the policy lists,
followed by `:` or `：`), continuation lines indented, no blank line inside, and the last
bullet ending with the provenance marker `^[source; source]`.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from kbkit.charset import INVISIBLE
from kbkit.curator.layout import heading_text
from kbkit.page import parse_page
from kbkit.policy import Policy
from kbkit.rules import rule_ids

LABEL_KEYS = ("trigger", "must", "must_not", "acceptance")
MARKER = re.compile(r"\^\[([^\[\]\n]+)\]\s*$")
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
    marker = MARKER.search(lines[-1])
    if marker is None:
        return SectionProblem(
            "provenance", "the last bullet must end with a ^[source] provenance marker"
        ), ()
    cited = tuple(part.strip() for part in marker.group(1).split(";") if part.strip())
    page = parse_page("section.md", text.encode("utf-8"))
    if len(page.headings) != 1:
        return SectionProblem("heading", "exactly one heading, no setext or nested headings"), ()
    if page.code_blocks or page.comments:
        return SectionProblem("section-shape", "no code blocks or HTML comments in a rule"), ()
    if [r.id for r in rule_ids(page, policy)] != [rule_id]:
        return SectionProblem("section-shape", "the section defines more than its one rule ID"), ()
    return None, cited


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
