"""The rule contract on hand-written pages: what the curator refuses, lint flags.

A heading-style rule section (`### PAY-1b — title` on a `type: rule` page) holds the four
labelled bullets in policy order (trigger, must, must not, acceptance; labels may be bold,
followed by `:` or `：`), and its last bullet ends with a `^[source]` marker. Blank lines,
prose and code between the bullets are allowed by hand; other top-level bullets are not.
Bullet-form rules (`- **ID — title.** text`) carry no bullets to check. Also: `title` is
written quoted, as the tree contract asks.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any

from kbkit.checks.rules.lint import RULE_BULLETS, RULE_ID_DUPLICATE, RULE_SOURCE, TITLE_UNQUOTED
from kbkit.infra.lazy_pattern import lazy
from kbkit.pages.page import Page
from kbkit.policy.model import Policy
from kbkit.rulebook.findings import Finding
from kbkit.tree.model import Tree
from kbkit.tree.rules import HEADING, rule_ids

LABEL_KEYS = ("trigger", "must", "must_not", "acceptance")
_BULLET = lazy(r"^[-*+][ \t]+(.*)$")
_MARKER = lazy(r"\^\[[^\[\]\n]+\]\s*$")
_TITLE_LINE = lazy(r"^title[ \t]*:[ \t]*(.*)$", re.M)


@functools.lru_cache(maxsize=8)
def _label_patterns(labels: tuple[tuple[str, ...], ...]) -> tuple[re.Pattern[str], ...]:
    return tuple(
        re.compile(
            r"^(?:\*\*|__)?(?:" + "|".join(re.escape(label) for label in names) + r")"
            r"(?:\*\*|__)?[ \t]*[:：]"
        )
        for names in labels
    )


def contract_findings(page: Page, policy: Policy) -> list[Finding]:
    """`lint/rule-bullets` and `lint/rule-source` for the heading-style rule sections of a
    rule page; `lint/title-unquoted` for any synthesized page."""
    out = _title_findings(page)
    if page.meta.get("type") != policy.data["rules"]["page_type"]:
        return out
    sections = [rule for rule in rule_ids(page, policy) if rule.form == HEADING]
    if not sections:
        return out
    config = policy.data["rules"]["labels"]
    patterns = _label_patterns(tuple(tuple(map(str, config[key])) for key in LABEL_KEYS))
    names = [str(config[key][0]) for key in LABEL_KEYS]
    lines = page.text.split("\n")
    code = page.code_line_numbers()
    starts = sorted(h.line for h in page.headings)
    for rule in sections:
        end = next((line for line in starts if line > rule.line), len(lines) + 1)
        bullets: list[tuple[int, str]] = []  # (line, text with continuation lines)
        for number in range(rule.line + 1, end):
            text = lines[number - 1]
            if number in code:
                continue
            match = _BULLET.match(text)
            if match:
                bullets.append((number, match.group(1)))
            elif bullets and text[:1] in (" ", "\t") and text.strip():
                bullets[-1] = (bullets[-1][0], bullets[-1][1] + " " + text.strip())
        found = [_label_of(text, patterns) for _, text in bullets]
        if found != list(range(len(LABEL_KEYS))):
            seen = ", ".join(names[i] if i is not None else "(unlabelled)" for i in found)
            out.append(
                RULE_BULLETS.at(
                    page.path,
                    rule.line,
                    f"rule {rule.id} needs exactly the bullets {', '.join(names)} in this "
                    f"order; found: {seen or 'none'}",
                )
            )
        if not bullets or not _MARKER.search(bullets[-1][1]):
            out.append(
                RULE_SOURCE.at(
                    page.path,
                    bullets[-1][0] if bullets else rule.line,
                    f"rule {rule.id}: the last bullet must end with a ^[source] marker "
                    "naming where the rule was learned",
                )
            )
    return out


def _label_of(text: str, patterns: tuple[re.Pattern[str], ...]) -> int | None:
    for index, pattern in enumerate(patterns):
        if pattern.match(text):
            return index
    return None


def _title_findings(page: Page) -> list[Finding]:
    front = page.frontmatter
    if front.data is None or not isinstance(front.data.get("title"), str):
        return []  # missing or not text: lint/field-missing says so
    match = _TITLE_LINE.search(front.raw)
    if match is None or match.group(1)[:1] in ('"', "'"):
        return []
    line = front.start_line + front.raw.count("\n", 0, match.start()) + 1
    return [
        TITLE_UNQUOTED.at(
            page.path,
            line,
            'write the title quoted (title: "..."): unquoted, a colon or a leading '
            "special character changes what YAML reads",
        )
    ]


def duplicate_rule_id_findings(
    tree: Tree, pages: Iterable[tuple[str, dict[str, Any]]]
) -> list[Finding]:
    first: dict[str, tuple[str, int]] = {}
    out = []
    for rel, facts in pages:
        path = tree.repo_path(rel)
        for rule_id, line in facts.get("rule_ids", ()):
            seen = first.setdefault(rule_id, (path, line))
            if seen != (path, line):
                where = "earlier on this page" if seen[0] == path else f"in {seen[0]}"
                out.append(
                    RULE_ID_DUPLICATE.at(
                        path,
                        line,
                        f"rule ID {rule_id} is already defined {where} (line {seen[1]}); "
                        "rule IDs are never reused: take the next free ID",
                    )
                )
    return out
