"""Per-page lint (L2–L6, L8, L9 and non-string tags): depends only on one page and the policy.

Pure and deterministic, so the results can be cached by page bytes and policy fingerprint.
One cause gives one finding: a missing field is `lint/field-missing` only, not also a type,
date or tags finding.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from kbkit.checks.scopes import scopes
from kbkit.pages.page import Page
from kbkit.policy.model import Policy
from kbkit.rulebook.findings import ERROR, WARNING, Finding

_DATE_SHAPE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATE_FIELDS = ("created", "updated")


# A top-level key at the start of a line: "key", 'key' or a plain key, then a colon.
_KEY = re.compile(r"""(?:"([^"\n]*)"|'([^'\n]*)'|([^\s:"'][^:\n]*?))\s*:""")


def key_lines(page: Page) -> dict[str, int]:
    """File line of each top-level frontmatter key (its first occurrence)."""
    front = page.frontmatter
    found: dict[str, int] = {}
    for index, line in enumerate(front.raw.split("\n")):
        match = _KEY.match(line)
        if match is not None:
            key = (
                match[1] if match[1] is not None else match[2] if match[2] is not None else match[3]
            )
            found.setdefault(key, front.start_line + 1 + index)
    return found


def key_line(page: Page, key: str, lines: dict[str, int] | None = None) -> int:
    """File line of a top-level frontmatter key (the opening `---` line when not found)."""
    known = key_lines(page) if lines is None else lines
    return known.get(key) or page.frontmatter.start_line or 1


def parse_date(value: Any) -> date | None:
    """The date a frontmatter value names, if it is a real `YYYY-MM-DD` calendar date."""
    if not isinstance(value, str) or not _DATE_SHAPE.match(value):
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None


def _describe(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "empty"
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return shown if isinstance(value, str) else f"{shown} ({type(value).__name__})"


def field_findings(rel: str, page: Page, policy: Policy) -> list[Finding]:
    """L2–L6, L8, L9 for one synthesized page."""
    front = page.frontmatter
    if not front.present:
        return [
            Finding(
                page.path,
                1,
                "lint/frontmatter-missing",
                ERROR,
                "no frontmatter: start the page with a `---` line, its fields as YAML "
                "(`title: ...`) and a closing `---` line",
            )
        ]
    if front.error is not None or front.data is None:
        line, message = (front.error.line, front.error.message) if front.error else (1, "invalid")
        return [Finding(page.path, line, "lint/frontmatter-invalid", ERROR, message)]
    meta = front.data
    config = policy.data["frontmatter"]
    out: list[Finding] = [
        Finding(
            page.path,
            line,
            "lint/frontmatter-duplicate-key",
            ERROR,
            f"key `{key}` repeats the one on line {first}; YAML keeps only the last value: "
            "remove one",
        )
        for key, line, first in front.duplicates
    ]

    def add(key: str, rule: str, message: str, severity: str = ERROR) -> None:
        out.append(Finding(page.path, key_line(page, key), rule, severity, message))

    for key in scopes(policy).required_fields(rel):
        if key not in meta:
            out.append(
                Finding(
                    page.path,
                    front.start_line,
                    "lint/field-missing",
                    ERROR,
                    f"required frontmatter field `{key}` is missing",
                )
            )
    if "title" in meta and not (isinstance(meta["title"], str) and meta["title"].strip()):
        add(
            "title",
            "lint/field-missing",
            f"title is {_describe(meta['title'])}; a page needs a title as text (quote it)",
        )
    types = list(config["types"])
    if "type" in meta and meta["type"] not in types:
        add(
            "type",
            "lint/type-invalid",
            f"type is {_describe(meta['type'])}; expected one of {', '.join(map(str, types))}",
        )
    for key in _DATE_FIELDS:
        if key in meta and parse_date(meta[key]) is None:
            add(
                key,
                "lint/date-invalid",
                f"{key} is {_describe(meta[key])}; expected a real calendar date as YYYY-MM-DD",
            )
    if "tags" in meta:
        out.extend(_tag_shape(page, meta["tags"]))
    levels = list(config["confidence"])
    if "confidence" in meta and meta["confidence"] not in levels:
        add(
            "confidence",
            "lint/confidence-invalid",
            f"confidence is {_describe(meta['confidence'])}; "
            f"expected one of {', '.join(map(str, levels))}",
        )
    confidence = meta.get("confidence")
    if isinstance(confidence, str) and confidence in config["review_confidence"]:
        add(
            "confidence",
            "lint/needs-review",
            f"confidence is {confidence}: the page needs review",
            WARNING,
        )
    if meta.get("contested"):
        add(
            "contested",
            "lint/needs-review",
            "the page is marked contested: it needs review",
            WARNING,
        )
    return out


def _tag_shape(page: Page, tags: Any) -> list[Finding]:
    if isinstance(tags, list) and tags and all(isinstance(tag, str) for tag in tags):
        return []
    line = key_line(page, "tags")
    if not isinstance(tags, list) or not tags:
        what = "an empty list" if tags == [] else _describe(tags)
        return [
            Finding(
                page.path,
                line,
                "lint/tags-empty",
                ERROR,
                f"tags is {what}; expected a non-empty list of taxonomy tags",
            )
        ]
    return [
        Finding(
            page.path,
            line,
            "lint/tag-unknown",
            ERROR,
            f"tag #{position} is {_describe(tag)}; a tag must be a taxonomy name (a string)",
        )
        for position, tag in enumerate(tags, 1)
        if not isinstance(tag, str)
    ]


def string_tags(page: Page) -> list[str]:
    """The page's tags that are strings (the others are reported by `field_findings`)."""
    tags = page.meta.get("tags")
    return [tag for tag in tags if isinstance(tag, str)] if isinstance(tags, list) else []
