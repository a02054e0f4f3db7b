"""`check-wiki-lint`: frontmatter, types, dates, tags, confidence, review flags, staleness,
orphans, adapter manifests, and tree-wide rule-id uniqueness.

Scope (contract §1.3): the synthesized pages, that is every page under the roots except the
evidence folders (any folder component in `evidence_dirs`) and the `lint_exclude` prefixes.
`page_findings` depends only on one page and the policy (cacheable); `tree_findings` needs
the whole tree (taxonomy, inbound links, rule IDs across pages, adapters) or the date, and
reads only page summaries and facts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from kbkit.checks import Context, Fingerprints, Rerun
from kbkit.checks.rules.lint.adapters import adapter_findings
from kbkit.checks.rules.lint.fields import (
    field_findings,
    key_line,
    key_lines,
    parse_date,
    stale_findings,
    string_tags,
    taxonomy_findings,
)
from kbkit.checks.rules.lint.orphans import orphan_findings
from kbkit.checks.rules.lint.rule_pages import contract_findings, duplicate_rule_id_findings
from kbkit.checks.rules.lint.schema import reported_keys, schema_findings
from kbkit.checks.scopes import compiled, folder_verdict, scopes, unpublished
from kbkit.pages.page import Page
from kbkit.policy.model import Policy
from kbkit.rulebook.findings import Finding
from kbkit.tree.model import Tree, interned
from kbkit.tree.rules import rule_ids


def in_scope(rel: str, policy: Policy) -> bool:
    """Is the root-relative page `rel` a synthesized page that lint checks?"""
    return (
        folder_verdict(rel, policy, _folder_in_scope)
        and rel not in _cuts(policy)
        and not unpublished(rel, policy)  # a page the site leaves out (templates, drafts)
    )


def _folder_in_scope(folder: str, policy: Policy) -> bool:
    if not policy.under_roots(folder):
        return False
    parts = folder.split("/")
    if not frozenset(policy.data["evidence_dirs"]).isdisjoint(parts):
        return False
    cuts = _cuts(policy)
    return not any("/".join(parts[:end]) in cuts for end in range(1, len(parts) + 1))


def _cuts(policy: Policy) -> frozenset[str]:
    """The lint_exclude entries: a page, or a folder with all below it."""
    return compiled(policy, _lint_exclude)


def _lint_exclude(policy: Policy) -> frozenset[str]:
    return frozenset(str(prefix).strip("/") for prefix in policy.data["lint_exclude"])


def scope(tree: Tree) -> list[str]:
    """The pages lint checks, sorted by path (unreadable ones included; they are counted)."""
    return [rel for rel in tree.summaries if in_scope(rel, tree.policy)]


def page_findings(rel: str, page: Page, policy: Policy) -> list[Finding]:
    """Findings that depend only on this page's path and bytes and on the policy."""
    if page.error is not None or not in_scope(rel, policy):
        return []
    schema = scopes(policy).frontmatter_schema(rel)
    fields = field_findings(rel, page, policy)
    reported = reported_keys(page, fields) if schema is not None and fields else None
    return [*fields, *contract_findings(page, policy), *schema_findings(page, schema, reported)]


def page_facts(rel: str, page: Page, policy: Policy) -> dict[str, Any]:
    """What cross-page checks need after the page's text is released: `tags` (its string
    tags and the line of `tags:`), `updated` (the date and its line) and `rule_ids`."""
    if page.error is not None or not in_scope(rel, policy):
        return {}
    facts: dict[str, Any] = {}
    tags = string_tags(page)
    updated = parse_date(page.meta.get("updated"))
    lines = key_lines(page) if tags or updated is not None else {}
    if tags:
        facts["tags"] = (tuple(interned(tags)), key_line(page, "tags", lines))
    if updated is not None:
        facts["updated"] = (interned(updated.isoformat()), key_line(page, "updated", lines))
    if page.meta.get("type") == policy.data["rules"]["page_type"]:
        facts["rule_ids"] = tuple((rule.id, rule.line) for rule in rule_ids(page, policy))
    return facts


def tree_findings(tree: Tree, context: Context) -> list[Finding]:
    """Findings that need the whole tree or the date: taxonomy, tags, staleness, orphans,
    rule-id uniqueness and adapter manifests."""
    rels = [rel for rel in scope(tree) if tree.summaries[rel].error is None]
    pages = PageFacts(rels, tree.facts)
    findings = taxonomy_findings(tree, pages)
    findings.extend(stale_findings(tree, pages, context))
    findings.extend(orphan_findings(tree, pages))
    findings.extend(duplicate_rule_id_findings(tree, pages))
    for rerun in ALWAYS_RERUN:
        findings.extend(rerun.check(tree, []))
    return findings


class PageFacts:
    """(rel, facts) of each page, made as they are iterated (as often as a check wants):
    a list of the pairs held through lint's cross-page checks was a tenth of the peak
    memory of a check at 100k pages."""

    def __init__(self, rels: list[str], facts: dict[str, dict[str, Any]]) -> None:
        self.rels = rels
        self.facts = facts

    def __iter__(self) -> Iterator[tuple[str, dict[str, Any]]]:
        facts = self.facts
        return ((rel, facts[rel]) for rel in self.rels)


def _adapters(tree: Tree, _: Fingerprints) -> list[Finding]:
    return adapter_findings(tree)


# The cross-page checks whose inputs are all inside the per-page digests and the snapshot's
# namespace (`kbkit.checks.incremental`): a reused run keeps their stored findings.
CROSS_PAGE: dict[Callable[..., Any], str] = {
    taxonomy_findings: "the tags facts and the taxonomy (its digest is in the snapshot)",
    stale_findings: "the updated facts and the date (in the namespace)",
    orphan_findings: "resolved links and site links; the tables of contents (their digest is in the snapshot)",
    duplicate_rule_id_findings: "the rule_ids facts",
}
# The cross-page checks that read outside the digests: a reused run recomputes them.
ALWAYS_RERUN = (Rerun(("lint/adapter-",), "the adapter manifests outside the tree", _adapters),)
