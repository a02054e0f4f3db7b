"""`check-wiki-lint`: frontmatter, types, dates, tags, confidence, review flags, staleness,
orphans, adapter manifests, and tree-wide rule-id uniqueness.

Scope (contract §1.3): the synthesized pages, that is every page under the roots except the
evidence folders (any folder component in `evidence_dirs`) and the `lint_exclude` prefixes.
`page_findings` depends only on one page and the policy (cacheable); `tree_findings` needs
the whole tree (taxonomy, inbound links, rule IDs across pages, adapters) or the date, and
reads only page summaries and facts.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from kbkit.checks import Context, Fingerprints, Rerun
from kbkit.checks.rules.lint.adapters import adapter_findings
from kbkit.checks.link_model import Resolver, wikilinks_on
from kbkit.checks.rules.lint.fields import (
    field_findings,
    key_line,
    key_lines,
    parse_date,
    string_tags,
)
from kbkit.checks.rules.lint.rule_pages import contract_findings
from kbkit.checks.rules.lint.schema import reported_keys, schema_findings
from kbkit.checks.scopes import compiled, folder_verdict, scopes
from kbkit.pages.page import Page
from kbkit.policy.model import Policy
from kbkit.rulebook.catalog import LINT_RULES
from kbkit.rulebook.findings import ERROR, WARNING, Finding, quote
from kbkit.tree.model import Tree, interned
from kbkit.tree.rules import rule_ids
from kbkit.tree.taxonomy import POLICY_SOURCE, load_taxonomy

RULES = LINT_RULES  # the registry's shape: each validator module names its catalog


def in_scope(rel: str, policy: Policy) -> bool:
    """Is the root-relative page `rel` a synthesized page that lint checks?"""
    return folder_verdict(rel, policy, _folder_in_scope) and rel not in _cuts(policy)


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
    pages = [(rel, tree.facts[rel]) for rel in scope(tree) if tree.summaries[rel].error is None]
    findings = _taxonomy_findings(tree, pages)
    findings.extend(_stale_findings(tree, pages, context))
    findings.extend(_orphan_findings(tree, pages))
    findings.extend(_duplicate_rule_id_findings(tree, pages))
    for rerun in ALWAYS_RERUN:
        findings.extend(rerun.check(tree, []))
    return findings


Facts = dict[str, Any]


def _taxonomy_findings(tree: Tree, pages: list[tuple[str, Facts]]) -> list[Finding]:
    taxonomy = load_taxonomy(tree.repo, tree.policy)
    if taxonomy.problem is not None:
        if taxonomy.source == POLICY_SOURCE and not any("tags" in facts for _, facts in pages):
            return []  # none configured, and no page carries a tag that would need one

        where = (
            tree.repo_path("policy.yaml") if taxonomy.source == POLICY_SOURCE else taxonomy.source
        )
        # Without a taxonomy every tag would be "unknown": report the cause once instead.
        return [Finding(where, 0, "lint/taxonomy-missing", ERROR, taxonomy.problem)]
    return [
        Finding(
            tree.repo_path(rel),
            facts["tags"][1],
            "lint/tag-unknown",
            ERROR,
            f"tag {quote(tag)} is not in the taxonomy ({taxonomy.source}); add it there first "
            "or use an existing tag",
        )
        for rel, facts in pages
        if "tags" in facts
        for tag in facts["tags"][0]
        if tag not in taxonomy.tags
    ]


def _stale_findings(tree: Tree, pages: list[tuple[str, Facts]], context: Context) -> list[Finding]:
    limit = tree.policy.limit("stale_days")
    oldest = (context.today - timedelta(days=limit)).isoformat()
    out = []
    for rel, facts in pages:
        if "updated" not in facts or facts["updated"][0] >= oldest:
            continue
        updated = date.fromisoformat(facts["updated"][0])
        age = (context.today - updated).days
        out.append(
            Finding(
                tree.repo_path(rel),
                facts["updated"][1],
                "lint/stale",
                WARNING,
                f"updated {updated.isoformat()} is {age} days before {context.today} "
                f"(limit {limit}); review the page and bump updated:",
            )
        )
    return out


def _orphan_findings(tree: Tree, pages: list[tuple[str, Facts]]) -> list[Finding]:
    # Every page under the knowledge root is a source, except the untracked local/ folder:
    # what a reviewer's private notes link to must not change the result (B8).
    from kbkit.checks.index_model import every_page_listed, toc_targets

    if every_page_listed(tree):
        return []  # mkdocs without `nav`: navigation links every page
    local = str(tree.policy.data["local_dir"]).strip("/") + "/"
    linked: set[str] = toc_targets(tree)  # navigation entries are links too
    resolver = Resolver(tree)
    wiki = wikilinks_on(tree.policy)
    for rel, summary in tree.summaries.items():
        if rel.startswith(local):
            continue
        linked.update(target for target, _, _ in summary.links if target != rel)
        for target, _, written in tree.facts[rel].get("site_links", ()):
            linked.update(resolver.site_targets(target, written))
        names = [name for name, _, _, _ in tree.facts[rel].get("wikilinks", ())]
        if wiki:  # `[[Page]]` links too, and in a vault `[x](Page.md)` by name
            names.extend(
                written.split("#", 1)[0].split("?", 1)[0]
                for target, _, written in summary.links
                if target not in tree.files
            )
        for name in names:
            found = resolver.wikilink(name, rel)
            if found is not None and found != rel:
                linked.add(found)
    if resolver.model.active:  # `x.html` links the page x.html.md; `Guide.md` links guide.md
        linked.update(
            found for target in list(linked) if (found := resolver.target(target)) is not None
        )
    index = str(tree.policy.data["index_page"])
    return [
        Finding(
            tree.repo_path(rel),
            0,
            "lint/orphan",
            WARNING,
            "no other page links to this page; link it from a related page or its index",
        )
        for rel, _ in pages
        if rel.rsplit("/", 1)[-1] != index and rel not in linked
    ]


def _duplicate_rule_id_findings(tree: Tree, pages: list[tuple[str, Facts]]) -> list[Finding]:
    first: dict[str, tuple[str, int]] = {}
    out = []
    for rel, facts in pages:
        path = tree.repo_path(rel)
        for rule_id, line in facts.get("rule_ids", ()):
            seen = first.setdefault(rule_id, (path, line))
            if seen != (path, line):
                where = "earlier on this page" if seen[0] == path else f"in {seen[0]}"
                out.append(
                    Finding(
                        path,
                        line,
                        "lint/rule-id-duplicate",
                        ERROR,
                        f"rule ID {rule_id} is already defined {where} (line {seen[1]}); "
                        "rule IDs are never reused: take the next free ID",
                    )
                )
    return out


def _adapters(tree: Tree, _: Fingerprints) -> list[Finding]:
    return adapter_findings(tree)


# The cross-page checks whose inputs are all inside the per-page digests and the snapshot's
# namespace (`kbkit.checks.incremental`): a reused run keeps their stored findings.
CROSS_PAGE: dict[Callable[..., Any], str] = {
    _taxonomy_findings: "the tags facts and the taxonomy (its digest is in the snapshot)",
    _stale_findings: "the updated facts and the date (in the namespace)",
    _orphan_findings: "resolved links and site links; the tables of contents (their digest is in the snapshot)",
    _duplicate_rule_id_findings: "the rule_ids facts",
}
# The cross-page checks that read outside the digests: a reused run recomputes them.
ALWAYS_RERUN = (Rerun(("lint/adapter-",), "the adapter manifests outside the tree", _adapters),)
