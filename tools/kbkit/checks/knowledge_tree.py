"""`check-knowledge-tree`: structure, registration, links, size, sensitive and dangerous text.

`page_findings` and `page_facts` depend only on one page (path and parsed bytes) and the
policy: the loader runs them while the page's full text is at hand and caches the result.
`tree_findings` holds every cross-page check and reads only page summaries and the cached
facts (`tree.facts`), never page text. The split limit (T11) is decided there, because an
index can exempt a page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from kbkit.checks import Context, Fingerprints, Rerun
from kbkit.checks.index_model import (
    doc_id_fact,
    include_fact,
    is_redirect,
    parent_fact,
    toctree_fact,
)
from kbkit.checks.link_model import (
    anchor_ids,
    anchors_known,
    anchors_on,
    fragment_fact,
    imports_fact,
    label_fact,
    label_link_fact,
    page_permalink,
    page_redirects,
    queries_on,
    run_resolver,
    site_links,
    site_queries,
    url_fact,
    wikilink_aliases,
    wikilink_refs,
)
from kbkit.checks.rules.tree import SECRET_TOKEN
from kbkit.checks.rules.tree.danger import danger_findings
from kbkit.checks.rules.tree.incidents import (
    Field,
    duplicate_id_findings,
    incident_findings,
    incident_id,
    is_incident,
    name_pattern,
)
from kbkit.checks.rules.tree.links import (
    broken_link_findings,
    link_absolute_findings,
    same_page_anchor_findings,
    wikilink_findings,
)
from kbkit.checks.rules.tree.repo import (
    body_fingerprint,
    duplicate_findings,
    entry_findings,
    exact_reader,
    local_tracked_findings,
    version_reader,
)
from kbkit.checks.rules.tree.secrets import allowed_networks, secret_findings
from kbkit.checks.rules.tree.size import (
    near_limit_findings,
    no_split_lines,
    over_split,
    split_exemptions,
    split_findings,
)
from kbkit.checks.rules.tree.structure import has_children_marker, structure_findings
from kbkit.checks.scopes import folder_verdict, unpublished
from kbkit.pages.page import Page
from kbkit.policy.model import Policy
from kbkit.rulebook.findings import Finding
from kbkit.tree.model import Tree

ROOT, EXTRA = "root", "extra"


def page_scope(rel: str, policy: Policy) -> str | None:
    """`root` for pages under a root, `extra` for other scanned pages (T28), else None (as
    for the pages the site does not publish, `unpublished`)."""
    if unpublished(rel, policy):
        return None
    return folder_verdict(rel, policy, _folder_scope)  # the scope is the folder's


def _folder_scope(folder: str, policy: Policy) -> str | None:
    if policy.under_roots(folder):
        return ROOT
    parts = folder.split("/")
    excluded = set(map(str, policy.data["extra_scan_exclude"]))
    if not policy.data["extra_scan"] or (folder and excluded.intersection(parts)):
        return None
    return EXTRA


def page_findings(rel: str, page: Page, policy: Policy) -> list[Finding]:
    """Every check that depends only on this page and the policy (pure, cacheable)."""
    scope = page_scope(rel, policy)
    if scope is None and page.error is None and unpublished(rel, policy):
        # a page the site leaves out is still in the repository: a key in it leaks all the same
        found = secret_findings(page.path, page.text, policy)
        return [finding for finding in found if finding.rule_id == SECRET_TOKEN.id]
    if scope is None or page.error is not None:
        return []
    findings = link_absolute_findings(page, policy)
    if anchors_on(policy):
        findings.extend(same_page_anchor_findings(page, policy))
    findings.extend(secret_findings(page.path, page.text, policy))
    if scope == EXTRA:
        return findings
    findings.extend(near_limit_findings(page, policy))
    findings.extend(danger_findings(page.path, page, policy))
    if is_incident(rel, policy):
        findings.extend(incident_findings(rel, page.path, page, policy))
    return findings


def scoped_pages(tree: Tree) -> Iterator[tuple[str, str]]:
    """(rel, scope) for every readable page the tree validator checks, sorted (made as they
    are asked for: a list of pairs was a tenth of the peak memory of a check at 100k)."""
    for rel, summary in tree.summaries.items():
        scope = page_scope(rel, tree.policy)
        if scope is not None and summary.error is None:
            yield rel, scope


def page_facts(rel: str, page: Page, policy: Policy) -> dict[str, Any]:
    """What the cross-page checks need once the page text is gone (plain, marshal-friendly):
    `fingerprint` (T25), `incident_id` as (value, line) (T22), `oversize` as (lines, bytes)
    (T11); for index pages `children_marker` (T5) and `no_split` lines (T11); `site_links`
    (T10, lint/orphan) when the policy names a site root; `wikilinks` when they are on;
    `includes` (the pages it includes) under `index.includes`; `redirect` for a redirect page."""
    scope = page_scope(rel, policy)
    if page.error is not None or scope is None:
        return {}
    facts: dict[str, Any] = {}
    site = site_links(page, policy, rel)
    permalink = page_permalink(page, policy)
    if permalink is not None:
        facts["permalink"] = permalink  # where other pages' links reach it (links.permalink_key)
    redirects = page_redirects(page, policy)
    if redirects:
        facts["redirect_from"] = redirects  # URLs that redirect to it (links.redirect_from_key)
    if site:
        facts["site_links"] = site  # T10 and lint/orphan read them like relative links
    url = url_fact(rel, page, policy)
    if url is not None:
        facts["url"] = url  # served at a slug, an id or without number prefixes
    if anchors_on(policy) and anchors_known(page, policy):
        facts["anchors"] = anchor_ids(page, policy)  # tree/link-anchor
        imports = imports_fact(rel, page, policy)
        if imports:
            facts["imports"] = imports  # MDX partials: their headings are this page's too
    labels = label_fact(page, policy)
    if labels:
        facts["labels"] = labels  # MyST labels: `[x](label)` on any page (links.labels)
    fragments = fragment_fact(page, policy)
    if fragments:
        facts["fragments"] = fragments  # `#x` links only a label of any page may settle
    label_links = label_link_fact(page, policy)
    if label_links:
        facts["label_links"] = label_links  # `[x](name:rest)`: a label of some page
    wiki = wikilink_refs(page, policy)
    if wiki:
        facts["wikilinks"] = wiki  # T10 and lint/orphan, when links.wikilinks is on
    aliases = wikilink_aliases(page, policy)
    if aliases:
        facts["aliases"] = aliases  # names of this page for wikilinks (links.aliases)
    included = include_fact(rel, page, policy)
    if included:
        facts["includes"] = included  # mdBook's {{#include}}: placed pages (index.includes)
    toctree = toctree_fact(rel, page, policy)
    if toctree:
        facts["toctree"] = toctree  # MyST's {toctree} entries: the navigation (index.toctree)
    doc_id = doc_id_fact(rel, page, policy)
    if doc_id is not None:
        facts["doc_id"] = doc_id  # Docusaurus: what its sidebars call it (index.sidebars)
    queries = site_queries() if queries_on(policy) else None
    if queries is not None:
        sources = queries.page_sources(page)
        if sources:
            facts["query_sources"] = sources  # Dataview: pages it lists are linked (lint/orphan)
        tags = queries.page_tags(page)
        if tags:
            facts["page_tags"] = tags  # what a tag source finds the page by
    if is_redirect(page, policy):
        facts["redirect"] = True  # DocFX's redirect_url: needs no entry (index.redirect_keys)
    if scope != ROOT:
        return facts
    if rel.rsplit("/", 1)[-1] == policy.data["index_page"]:
        if has_children_marker(rel, page, policy):
            facts["children_marker"] = True
        marked = no_split_lines(page, str(policy.data["no_split_marker"] or ""))
        if marked:
            facts["no_split"] = tuple(marked)
    elif queries is None or not queries.renders_own_fields(page):
        # (a page whose body shows its own front matter is no copy of the same template)
        digest = body_fingerprint(page, policy.limit("duplicate_min_chars"))
        if digest is not None:
            facts["fingerprint"] = digest
    parent = parent_fact(page, policy)
    if parent is not None:
        facts["parent"] = parent  # the `parent` index model (T3)
    if is_incident(rel, policy):
        field = incident_id(page, policy)
        if field is not None:
            facts["incident_id"] = (field.value, field.line)
    if over_split(page.nonempty_lines, page.size, policy):
        facts["oversize"] = (page.nonempty_lines, page.size)
    return facts


def _duplicates(tree: Tree, fingerprints: Fingerprints) -> list[Finding]:
    return duplicate_findings(
        fingerprints, tree.repo_path, exact_reader(tree), version_reader(tree)
    )


def _local_tracked(tree: Tree, _: Fingerprints) -> list[Finding]:
    return local_tracked_findings(tree)


def _entry(tree: Tree, _: Fingerprints) -> list[Finding]:
    return entry_findings(tree)


# The cross-page checks whose inputs are all inside the per-page digests and the snapshot's
# namespace (`kbkit.checks.incremental`): a reused run keeps their stored findings.
CROSS_PAGE: dict[Callable[..., Any], str] = {
    structure_findings: "folders, file names, index links and facts (children_marker, parent); "
    "the tables of contents (their digest is in the snapshot)",
    broken_link_findings: "resolved links, anchors and site links; targets outside the root",
    split_findings: "the oversize and no_split facts",
    duplicate_id_findings: "the incident_id facts",
    wikilink_findings: "the wikilinks and aliases facts; every file name (resolution by name)",
}
# The cross-page checks that read outside the digests: a reused run recomputes them.
ALWAYS_RERUN = (
    Rerun(
        ("tree/duplicate-page",),
        "every page's body fingerprint (kept beside the digests)",
        _duplicates,
    ),
    Rerun(("tree/local-tracked",), "the git index", _local_tracked),
    Rerun(("tree/entry-too-long",), "the entry page, outside the knowledge root", _entry),
)


def tree_findings(tree: Tree, context: Context) -> list[Finding]:
    """Every cross-page check: structure, registration, links, split limits, duplicates,
    incident ids, git, entry page."""
    check_policy(tree.policy)
    findings = structure_findings(tree)
    outside: dict[str, bool] = {}
    resolver = run_resolver(tree)
    roots = []  # sorted by path; paths only, not a tuple per page (memory)
    for rel, scope in scoped_pages(tree):
        findings.extend(broken_link_findings(tree, rel, tree.summaries[rel], outside, resolver))
        findings.extend(wikilink_findings(tree, rel, resolver))
        if scope == ROOT:
            roots.append(rel)
    exempt = split_exemptions(tree)
    facts_of = tree.facts
    for rel in roots:
        facts = facts_of[rel]
        if "oversize" in facts:
            lines, size = facts["oversize"]
            path = tree.repo_path(rel)
            findings.append(split_findings(path, lines, size, rel in exempt, tree.policy))
    ids = [
        (tree.repo_path(rel), Field(f["incident_id"][0], f["incident_id"][1]))
        for rel in roots
        if "incident_id" in (f := facts_of[rel])
    ]
    findings.extend(duplicate_id_findings(ids))
    fingerprints = [
        (rel, f["fingerprint"]) for rel in roots if "fingerprint" in (f := facts_of[rel])
    ]
    del roots
    for rerun in ALWAYS_RERUN:
        findings.extend(rerun.check(tree, fingerprints))
    return findings


def check_policy(policy: Policy) -> None:
    """Fail early (exit 2) on policy values that only a check can interpret."""
    name_pattern(str(policy.data["incidents"]["name_pattern"]))
    allowed_networks(tuple(map(str, policy.data["secrets"]["allowed_ip_networks"])))
