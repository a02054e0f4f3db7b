"""The two validators share one tree model, one registry shape and one suppression pass.

Each checker module (`knowledge_tree`, `wiki_lint`) has a `RULES` registry (stable id ->
`Rule`) and a `run(tree, context) -> list[Finding]` function.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import date
from typing import NamedTuple

from kbkit.findings import ERROR, WARNING, Finding, sort_findings
from kbkit.tree import Tree


class Rule(NamedTuple):
    id: str
    severity: str
    summary: str


class Context(NamedTuple):
    today: date


UNREADABLE = Rule(
    "kb/unreadable",
    ERROR,
    "a page or folder cannot be read as UTF-8 markdown (reported by every run)",
)
SUPPRESSION_UNUSED = Rule(
    "kb/suppression-unused", ERROR, "a kb-disable-next-line comment suppresses nothing"
)
SUPPRESSION_INVALID = Rule(
    "kb/suppression-invalid", ERROR, "a kb-disable-next-line comment without a rule id or reason"
)
_SUPPRESSION = re.compile(
    r"^kb-disable-next-line\b\s*(?P<rule>[a-z0-9/-]*)\s*(?::\s*(?P<reason>.*))?$", re.S
)


class Suppression(NamedTuple):
    path: str
    line: int  # line of the comment
    target_line: int  # the line it covers
    rule_id: str
    reason: str


def suppressions(tree: Tree) -> tuple[list[Suppression], list[Finding]]:
    """Every kb-disable-next-line comment of the tree, and findings for malformed ones."""
    found: list[Suppression] = []
    problems: list[Finding] = []
    for _, page in tree.page_items():
        for comment in page.comments:
            match = _SUPPRESSION.match(comment.text)
            if match is None:
                continue
            rule_id, reason = match["rule"], (match["reason"] or "").strip()
            if not rule_id or not reason:
                problems.append(
                    Finding(
                        page.path,
                        comment.line,
                        SUPPRESSION_INVALID.id,
                        ERROR,
                        "write `<!-- kb-disable-next-line RULE-ID: reason -->`; "
                        "both the rule id and a reason are required",
                    )
                )
                continue
            target = _next_content_line(page.text, comment.line)
            found.append(Suppression(page.path, comment.line, target, rule_id, reason))
    return found, problems


def _next_content_line(text: str, comment_line: int) -> int:
    lines = text.split("\n")
    index = comment_line  # 0-based index of the line after the comment
    while index < len(lines) and "-->" not in lines[index - 1]:
        index += 1  # a multi-line comment ends later
    while index < len(lines) and not lines[index].strip():
        index += 1
    return index + 1


def apply_suppressions(
    tree: Tree, findings: Iterable[Finding], prefixes: tuple[str, ...]
) -> list[Finding]:
    """Drop suppressed findings; report unused suppressions for the validators that ran."""
    entries, problems = suppressions(tree)
    by_key = {(s.path, s.target_line, s.rule_id): s for s in entries}
    used: set[Suppression] = set()
    kept: list[Finding] = []
    for finding in findings:
        hit = by_key.get((finding.path, finding.line, finding.rule_id))
        if hit is None:
            kept.append(finding)
        else:
            used.add(hit)
    for entry in entries:
        if entry not in used and entry.rule_id.startswith(prefixes):
            kept.append(
                Finding(
                    entry.path,
                    entry.line,
                    SUPPRESSION_UNUSED.id,
                    ERROR,
                    f"nothing to suppress: no {entry.rule_id} finding on line {entry.target_line}",
                )
            )
    kept.extend(problems)
    return kept


Checker = Callable[[Tree, Context], list[Finding]]


def run_checkers(
    tree: Tree, checkers: dict[str, Checker], context: Context, page_level: Iterable[Finding] = ()
) -> list[Finding]:
    """Run the named checkers on one tree; suppressions apply across all of them."""
    findings: list[Finding] = list(tree.problems)
    findings.extend(page_level)
    findings.extend(
        Finding(page.path, 0, UNREADABLE.id, ERROR, page.error)
        for _, page in tree.page_items()
        if page.error is not None
    )
    for checker in checkers.values():
        findings.extend(checker(tree, context))
    prefixes = tuple(f"{name}/" for name in checkers)
    return sort_findings(apply_suppressions(tree, findings, prefixes))


__all__ = ["ERROR", "WARNING", "Checker", "Context", "Rule", "run_checkers"]
