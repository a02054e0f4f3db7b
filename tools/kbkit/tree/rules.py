"""Rule IDs a page defines: where, and in which of the four syntactic forms.

The forms (contract §2.5): a heading `## ID — title` or `### ID — title`, a bold bullet
`- **ID — title.** text`, and a plain bullet `- ID：text`. The ID shape comes from the
policy (`rules.id_pattern`). Headings come from the page model; bullets are top-level list
lines outside code blocks and outside the frontmatter, so an ID mentioned in prose, a table,
a nested bullet or a code example is a reference, not a definition.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from kbkit.infra.errors import UsageError
from kbkit.pages.page import Page
from kbkit.policy.model import Policy

HEADING = "heading"
BOLD_BULLET = "bold-bullet"
PLAIN_BULLET = "plain-bullet"

# What may follow an ID in a heading or bold bullet: a dash of any width, or a colon.
_TITLE_SEP = r"\s*(?:[—–-]|[:：])"


class RuleId(NamedTuple):
    id: str
    line: int  # 1-based line of the whole file
    form: str  # HEADING, BOLD_BULLET or PLAIN_BULLET
    level: int  # heading level (2 for `##`), 0 for bullets


class _Patterns(NamedTuple):
    heading: re.Pattern[str]
    bold: re.Pattern[str]
    plain: re.Pattern[str]


@functools.lru_cache(maxsize=8)
def _patterns(id_pattern: str) -> _Patterns:
    try:
        re.compile(id_pattern)
    except re.error as exc:
        raise UsageError(
            f"policy key 'rules.id_pattern' {id_pattern!r} is not a valid regular expression "
            f"({exc}); fix it in the policy file"
        ) from exc
    ident = f"(?P<id>{id_pattern})"
    return _Patterns(
        heading=re.compile(rf"^{ident}(?:{_TITLE_SEP}|\s*$)"),
        bold=re.compile(rf"^[-*+][ \t]+\*\*{ident}{_TITLE_SEP}"),
        plain=re.compile(rf"^[-*+][ \t]+{ident}\s*[:：]"),
    )


def id_regex(policy: Policy) -> re.Pattern[str]:
    """The whole-string pattern of one rule ID under `policy`."""
    pattern = str(policy.data["rules"]["id_pattern"])
    _patterns(pattern)  # a clear UsageError for an invalid pattern
    return re.compile(rf"^(?:{pattern})$")


# The last page asked about, its ID pattern and its rule IDs: the lint validator asks twice
# per rule page (its findings, then its facts), and a page (a NamedTuple) never changes.
_last: tuple[Page | None, str, tuple[RuleId, ...]] = (None, "", ())


def rule_ids(page: Page, policy: Policy) -> list[RuleId]:
    """Every rule ID `page` defines, in file order."""
    global _last
    id_pattern = str(policy.data["rules"]["id_pattern"])
    if _last[0] is page and _last[1] == id_pattern:
        return list(_last[2])
    patterns = _patterns(id_pattern)
    found = [
        RuleId(match["id"], heading.line, HEADING, heading.level)
        for heading in page.headings
        if (match := patterns.heading.match(heading.text))
    ]
    found.extend(_bullet_ids(page, patterns))
    found.sort(key=lambda r: r.line)
    _last = (page, id_pattern, tuple(found))
    return found


def _bullet_ids(page: Page, patterns: _Patterns) -> list[RuleId]:
    if "**" not in page.text and "：" not in page.text and ":" not in page.text:
        return []
    skip = page.code_line_numbers()
    front = page.frontmatter
    if front.present and not front.end_line:
        return []  # unclosed frontmatter: the whole file is frontmatter, no body
    first_body_line = front.end_line + 1
    found: list[RuleId] = []
    for index, line in enumerate(page.text.split("\n")):
        number = index + 1
        if number < first_body_line or number in skip or line[:1] not in "-*+" or not line:
            continue
        if match := patterns.bold.match(line):
            found.append(RuleId(match["id"], number, BOLD_BULLET, 0))
        elif match := patterns.plain.match(line):
            found.append(RuleId(match["id"], number, PLAIN_BULLET, 0))
    return found
