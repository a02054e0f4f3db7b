"""Where a rule page's sections start and end: the map every insertion is planned on.

A rule section runs from its heading to the next heading of the same or a higher level.
The last rule of the page also stops before a trailing footer: a paragraph at column 0
after its bullets (real pages end with 「相关执行流见 …」 lines) or a `## Related` /
`## 相关` section. Ends are "line after the last non-blank line", so an insertion there
lands on a section boundary, never inside a bullet list, a table or a fence.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import NamedTuple

from kbkit.pages.page import Page
from kbkit.policy.model import Policy
from kbkit.tree.rules import HEADING, rule_ids

HEADING_STYLE = "heading"
BULLET_STYLE = "bullet"
EMPTY_STYLE = "empty"
DEFAULT_LEVEL = 3
DEFAULT_SEPARATOR = "—"
RELATED = re.compile(r"^(?:\d+[.)]\s*)?(?:related|see also|相关)", re.IGNORECASE)
_LIST_ITEM = re.compile(r"^(?:[-*+]|\d+[.)])(?:[ \t]|$)")
_ID_TAIL = re.compile(r"-\d+[a-z]?$")  # the letter is optional in some profiles


class RuleSpan(NamedTuple):
    id: str
    line: int  # heading line (1-based)
    level: int
    end: int  # 1-based line right after the section's last non-blank line


class GroupSpan(NamedTuple):
    text: str
    line: int
    level: int
    end: int


class Layout(NamedTuple):
    style: str  # HEADING_STYLE, BULLET_STYLE (refuses heading sections) or EMPTY_STYLE
    level: int  # heading level of rule sections
    separator: str  # what follows the ID in a rule heading ("—")
    ids: tuple[str, ...]  # every rule ID of the page, any form, in order
    prefixes: tuple[str, ...]  # most used first
    rules: tuple[RuleSpan, ...]  # heading-form rules
    groups: tuple[GroupSpan, ...]  # non-rule headings above the rule level
    area_end: int  # where a section without an anchor goes
    start: int = 0  # where the start anchor `^` inserts: before the first group or rule
    group_rule_level: int | None = None  # rule level inside groups (None: no group level)
    leading_rules: bool = False  # rules stand before the first group (`^` opens no group)


def heading_text(rule_id: str, separator: str, title: str) -> str:
    """`ID — title` in the page's style (a colon hugs the ID: `ID: title`)."""
    gap = "" if separator in ":：" else " "
    return f"{rule_id}{gap}{separator} {title.strip()}"


def id_prefix(rule_id: str) -> str:
    return _ID_TAIL.sub("", rule_id)


def _last_nonblank(lines: list[str], start: int, stop: int) -> int:
    """1-based line after the last non-blank line in [start, stop) (1-based), at least start+1."""
    n = stop - 1
    while n > start and not lines[n - 1].strip():
        n -= 1
    return n + 1


def _footer_start(lines: list[str], start: int, stop: int, code: frozenset[int]) -> int:
    """First line of a trailing paragraph after the bullets of the section at `start`."""
    seen_item = False
    prev_blank = False
    for n in range(start + 1, stop):
        line = lines[n - 1]
        if not line.strip():
            prev_blank = True
            continue
        if n not in code and _LIST_ITEM.match(line):
            seen_item = True
        elif seen_item and prev_blank and n not in code and not line[:1].isspace():
            return n
        prev_blank = False
    return stop


def _separator(text: str, rule_id: str) -> str:
    rest = text[len(rule_id) :].lstrip()
    return rest[0] if rest and rest[0] in "—–-:：" else DEFAULT_SEPARATOR


def page_layout(page: Page, policy: Policy) -> Layout:
    """The section map of one rule page."""
    lines = page.text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    total = len(lines) + 1
    found = rule_ids(page, policy)
    ids = tuple(r.id for r in found)
    heads = [r for r in found if r.form == HEADING]
    # New sections take the prefix of the heading-form rules (navigation bullets such as
    # VOMNI-CFG-0a may carry another one); most used first.
    counts = Counter(id_prefix(r.id) for r in heads)
    counts.update({id_prefix(i): 0 for i in ids})
    prefixes = tuple(p for p, _ in counts.most_common())
    headings = [h for h in page.headings if h.line > page.frontmatter.end_line]
    code = page.code_line_numbers()
    if heads:
        style = HEADING_STYLE
        level = Counter(r.level for r in heads).most_common(1)[0][0]
        text = next(h.text for h in headings if h.line == heads[-1].line)
        separator = _separator(text, heads[-1].id)
    else:
        style = BULLET_STYLE if ids else EMPTY_STYLE
        level, separator = DEFAULT_LEVEL, DEFAULT_SEPARATOR
    spans: list[RuleSpan] = []
    for index, rule in enumerate(heads):
        stop = next(
            (h.line for h in headings if h.line > rule.line and h.level <= rule.level), total
        )
        if index == len(heads) - 1:
            stop = _footer_start(lines, rule.line, stop, code)
        spans.append(
            RuleSpan(rule.id, rule.line, rule.level, _last_nonblank(lines, rule.line, stop))
        )
    rule_lines = {r.line for r in heads}
    groups: list[GroupSpan] = []
    # Groups sit above the deepest rule level: on a page of `##` rules that already holds a
    # `##` group of `###` rules (mixed levels), that group counts and new ones may open.
    deepest = max((r.level for r in heads), default=level)
    for h in headings:
        if h.line in rule_lines or not 2 <= h.level < deepest or RELATED.match(h.text):
            continue  # a related-links section is never a place for rules
        stop = next((g.line for g in headings if g.line > h.line and g.level <= h.level), total)
        inside = [s for s in spans if h.line < s.line < stop]
        end = inside[-1].end if inside else _last_nonblank(lines, h.line, stop)
        groups.append(GroupSpan(h.text, h.line, h.level, end))
    if spans:
        area_end = spans[-1].end
    else:
        related = [h for h in headings if h.level <= 2 and RELATED.match(h.text)]
        stop = related[-1].line if related else total
        area_end = _last_nonblank(lines, 1, stop)
    firsts = [g.line for g in groups[:1]] + [r.line for r in spans[:1]]
    top = min(firsts) if firsts else area_end
    start = _last_nonblank(lines, max(page.frontmatter.end_line, 1), top) if firsts else area_end
    leading = bool(spans and groups and spans[0].line < groups[0].line)
    if deepest >= 3:
        group_level: int | None = deepest
    elif spans and level == 2:
        # A flat page (every rule a top-level `##` section) opens its first group the way
        # the real pages do (the corpus's serving rules: SERV-1a to 2b stay `##`, the groups
        # after them hold `###` rules): a `## group` heading, its rules one level deeper.
        group_level = 3
    else:
        group_level = None
    return Layout(
        style,
        level,
        separator,
        ids,
        prefixes,
        tuple(spans),
        tuple(groups),
        area_end,
        start,
        group_level,
        leading,
    )
