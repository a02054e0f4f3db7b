"""Per-page lint (L2–L6, L8, L9 and non-string tags): depends only on one page and the policy.

Pure and deterministic, so the results can be cached by page bytes and policy fingerprint.
One cause gives one finding: a missing field is `lint/field-missing` only, not also a type,
date or tags finding.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta
from typing import Any

from kbkit.checks import Context
from kbkit.checks.rules.lint import (
    CONFIDENCE_INVALID,
    DATE_INVALID,
    FIELD_MISSING,
    FRONTMATTER_DUPLICATE_KEY,
    FRONTMATTER_INVALID,
    FRONTMATTER_MISSING,
    NEEDS_REVIEW,
    STALE,
    TAG_UNKNOWN,
    TAGS_EMPTY,
    TAXONOMY_MISSING,
    TYPE_INVALID,
)
from kbkit.checks.scopes import scopes
from kbkit.infra.lazy_pattern import lazy
from kbkit.pages.page import Page
from kbkit.policy.model import Policy
from kbkit.rulebook.findings import Finding, quote
from kbkit.rulebook.rule import Rule
from kbkit.tree.model import Tree
from kbkit.tree.taxonomy import POLICY_SOURCE, load_taxonomy

_DATE_SHAPE = lazy(r"^\d{4}-\d{2}-\d{2}$")
_DATE_FIELDS = ("created", "updated")


# A top-level key at the start of a line: "key", 'key' or a plain key, then a colon.
_KEY = lazy(r"""(?:"([^"\n]*)"|'([^'\n]*)'|([^\s:"'][^:\n]*?))\s*:""")


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
            FRONTMATTER_MISSING.at(
                page.path,
                1,
                "no frontmatter: start the page with a `---` line, its fields as YAML "
                "(`title: ...`) and a closing `---` line",
            )
        ]
    if front.error is not None or front.data is None:
        line, message = (front.error.line, front.error.message) if front.error else (1, "invalid")
        return [FRONTMATTER_INVALID.at(page.path, line, message)]
    meta = front.data
    config = policy.data["frontmatter"]
    out: list[Finding] = [
        FRONTMATTER_DUPLICATE_KEY.at(
            page.path,
            line,
            f"key `{key}` repeats the one on line {first}; YAML keeps only the last value: "
            "remove one",
        )
        for key, line, first in front.duplicates
    ]

    def add(key: str, rule: Rule, message: str) -> None:
        out.append(rule.at(page.path, key_line(page, key), message))

    for key in scopes(policy).required_fields(rel):
        if key not in meta:
            out.append(
                FIELD_MISSING.at(
                    page.path, front.start_line, f"required frontmatter field `{key}` is missing"
                )
            )
    if "title" in meta and not (isinstance(meta["title"], str) and meta["title"].strip()):
        add(
            "title",
            FIELD_MISSING,
            f"title is {_describe(meta['title'])}; a page needs a title as text (quote it)",
        )
    types = list(config["types"])
    if "type" in meta and meta["type"] not in types:
        add(
            "type",
            TYPE_INVALID,
            f"type is {_describe(meta['type'])}; expected one of {', '.join(map(str, types))}",
        )
    for key in _DATE_FIELDS:
        if key in meta and parse_date(meta[key]) is None:
            add(
                key,
                DATE_INVALID,
                f"{key} is {_describe(meta[key])}; expected a real calendar date as YYYY-MM-DD",
            )
    if "tags" in meta:
        out.extend(_tag_shape(page, meta["tags"]))
    levels = list(config["confidence"])
    if "confidence" in meta and meta["confidence"] not in levels:
        add(
            "confidence",
            CONFIDENCE_INVALID,
            f"confidence is {_describe(meta['confidence'])}; "
            f"expected one of {', '.join(map(str, levels))}",
        )
    confidence = meta.get("confidence")
    if isinstance(confidence, str) and confidence in config["review_confidence"]:
        add(
            "confidence",
            NEEDS_REVIEW,
            f"confidence is {confidence}: the page needs review",
        )
    if meta.get("contested"):
        add(
            "contested",
            NEEDS_REVIEW,
            "the page is marked contested: it needs review",
        )
    return out


def _tag_shape(page: Page, tags: Any) -> list[Finding]:
    if isinstance(tags, list) and tags and all(isinstance(tag, str) for tag in tags):
        return []
    line = key_line(page, "tags")
    if not isinstance(tags, list) or not tags:
        what = "an empty list" if tags == [] else _describe(tags)
        return [
            TAGS_EMPTY.at(
                page.path, line, f"tags is {what}; expected a non-empty list of taxonomy tags"
            )
        ]
    return [
        TAG_UNKNOWN.at(
            page.path,
            line,
            f"tag #{position} is {_describe(tag)}; a tag must be a taxonomy name (a string)",
        )
        for position, tag in enumerate(tags, 1)
        if not isinstance(tag, str)
    ]


def string_tags(page: Page) -> list[str]:
    """The page's tags that are strings (the others are reported by `field_findings`)."""
    tags = page.meta.get("tags")
    return [tag for tag in tags if isinstance(tag, str)] if isinstance(tags, list) else []


def stale_findings(
    tree: Tree, pages: Iterable[tuple[str, dict[str, Any]]], context: Context
) -> list[Finding]:
    limit = tree.policy.limit("stale_days")
    oldest = (context.today - timedelta(days=limit)).isoformat()
    out = []
    for rel, facts in pages:
        if "updated" not in facts or facts["updated"][0] >= oldest:
            continue
        updated = date.fromisoformat(facts["updated"][0])
        age = (context.today - updated).days
        out.append(
            STALE.at(
                tree.repo_path(rel),
                facts["updated"][1],
                f"updated {updated.isoformat()} is {age} days before {context.today} "
                f"(limit {limit}); review the page and bump updated:",
            )
        )
    return out


def taxonomy_findings(tree: Tree, pages: Iterable[tuple[str, dict[str, Any]]]) -> list[Finding]:
    taxonomy = load_taxonomy(tree.repo, tree.policy)
    if taxonomy.problem is not None:
        if taxonomy.source == POLICY_SOURCE and not any("tags" in facts for _, facts in pages):
            return []  # none configured, and no page carries a tag that would need one

        where = (
            tree.repo_path("policy.yaml") if taxonomy.source == POLICY_SOURCE else taxonomy.source
        )
        # Without a taxonomy every tag would be "unknown": report the cause once instead.
        return [TAXONOMY_MISSING.at(where, 0, taxonomy.problem)]
    return [
        TAG_UNKNOWN.at(
            tree.repo_path(rel),
            facts["tags"][1],
            f"tag {quote(tag)} is not in the taxonomy ({taxonomy.source}); add it there first "
            "or use an existing tag",
        )
        for rel, facts in pages
        if "tags" in facts
        for tag in facts["tags"][0]
        if tag not in taxonomy.tags
    ]
