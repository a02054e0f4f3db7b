"""`check-knowledge-tree`: structure, registration, links, size, sensitive and dangerous text.

`page_findings` depends only on one page (path, bytes via the parsed `Page`) and the policy,
so it can be cached per page; `tree_findings` holds every cross-page check. `run` combines
them and applies the no-split exemption, the one page result that depends on an index.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NamedTuple

from kbkit.checks import Context, Rule
from kbkit.checks.incidents import (
    Field,
    duplicate_id_findings,
    incident_findings,
    incident_id,
    is_incident,
    name_pattern,
)
from kbkit.checks.tree_danger import danger_findings
from kbkit.checks.tree_links import broken_link_findings, link_absolute_findings
from kbkit.checks.tree_repo import (
    body_fingerprint,
    duplicate_findings,
    entry_findings,
    local_tracked_findings,
)
from kbkit.checks.tree_secrets import allowed_networks, secret_findings
from kbkit.checks.tree_structure import split_exemptions, structure_findings
from kbkit.findings import ERROR, WARNING, Finding
from kbkit.page import Page
from kbkit.policy import Policy
from kbkit.tree import Tree

ROOT, EXTRA = "root", "extra"

RULES: dict[str, Rule] = {
    rule.id: rule
    for rule in (
        Rule("tree/root-missing", ERROR, "a configured root folder is missing"),
        Rule("tree/index-missing", ERROR, "a folder with pages has no _index.md"),
        Rule("tree/page-unregistered", ERROR, "a page is not linked from its folder's _index.md"),
        Rule(
            "tree/page-registered-twice",
            ERROR,
            "a page is linked more than once from its _index.md",
        ),
        Rule(
            "tree/child-unregistered",
            ERROR,
            "a sub-folder's _index.md is not linked from the parent index",
        ),
        Rule(
            "tree/child-registered-twice",
            ERROR,
            "a sub-folder's _index.md is linked more than once",
        ),
        Rule(
            "tree/too-many-pages",
            WARNING,
            "an ordinary folder holds more pages than the fan-out limit",
        ),
        Rule("tree/group-too-large", ERROR, "a group folder holds more pages than its limit"),
        Rule("tree/link-absolute", ERROR, "a link uses an absolute path"),
        Rule("tree/link-broken", ERROR, "a relative link points to nothing"),
        Rule("tree/page-too-large", ERROR, "a page is past the split limit"),
        Rule("tree/page-near-limit", WARNING, "a page is close to the split limit"),
        Rule("tree/secret-ip", ERROR, "an IP address that is not loopback"),
        Rule("tree/secret-windows-home", ERROR, "a Windows or macOS home folder path"),
        Rule("tree/secret-remote-home", ERROR, "a /home/<user> or /data/<user> path"),
        Rule("tree/secret-private-key", ERROR, "a private key block"),
        Rule("tree/danger-text", ERROR, "a dangerous operation named in text"),
        Rule("tree/danger-code", ERROR, "a dangerous command inside code"),
        Rule("tree/incident-name", ERROR, "an incident page name is not YYYY-MM-DD-name.md"),
        Rule("tree/incident-field", ERROR, "an incident page lacks a required field"),
        Rule("tree/incident-state", ERROR, "an incident state is not one of the allowed states"),
        Rule("tree/incident-id-duplicate", ERROR, "two incident pages share an id"),
        Rule("tree/owner-nested", ERROR, "an owner axis folder is nested too deep"),
        Rule("tree/owner-guides", ERROR, "an owner folder holds guides"),
        Rule("tree/duplicate-page", ERROR, "two pages have the same text"),
        Rule("tree/local-tracked", ERROR, "a file under local/ is tracked by git"),
        Rule("tree/entry-too-long", ERROR, "the contributor entry page is too long"),
    )
}


def page_scope(rel: str, policy: Policy) -> str | None:
    """`root` for pages under a root, `extra` for other scanned pages (T28), else None."""
    parts = rel.split("/")
    if len(parts) > 1 and parts[0] in policy.data["roots"]:
        return ROOT
    if not policy.data["extra_scan"] or set(parts[:-1]).intersection(
        map(str, policy.data["extra_scan_exclude"])
    ):
        return None
    return EXTRA


def size_findings(page: Page, policy: Policy) -> list[Finding]:
    """T11 (>= split limits) and T12 (>= near limits)."""
    lines, size = page.nonempty_lines, page.size
    measure = f"{lines} non-empty lines, {size} bytes"
    if lines >= policy.limit("split_lines") or size >= policy.limit("split_bytes"):
        limits = f"{policy.limit('split_lines')} lines or {policy.limit('split_bytes')} bytes"
        return [
            Finding(
                page.path,
                0,
                "tree/page-too-large",
                ERROR,
                f"{measure} (split at {limits}): split the page",
            )
        ]
    if lines >= policy.limit("near_lines") or size >= policy.limit("near_bytes"):
        limits = f"{policy.limit('near_lines')} lines or {policy.limit('near_bytes')} bytes"
        return [
            Finding(
                page.path,
                0,
                "tree/page-near-limit",
                WARNING,
                f"{measure} (warning at {limits}): plan a split",
            )
        ]
    return []


def page_findings(rel: str, page: Page, policy: Policy) -> list[Finding]:
    """Every check that depends only on this page and the policy (pure, cacheable)."""
    scope = page_scope(rel, policy)
    if scope is None or page.error is not None:
        return []
    findings = link_absolute_findings(page)
    findings.extend(secret_findings(page.path, page.text, policy))
    if scope == EXTRA:
        return findings
    findings.extend(size_findings(page, policy))
    findings.extend(danger_findings(page.path, page, policy))
    if is_incident(rel, policy):
        findings.extend(incident_findings(rel, page.path, page, policy))
    return findings


def scoped_pages(tree: Tree) -> list[tuple[str, Page, str]]:
    """(rel, page, scope) for every readable page the tree validator checks, sorted."""
    out = []
    for rel, page in tree.page_items():
        scope = page_scope(rel, tree.policy)
        if scope is not None and page.error is None:
            out.append((rel, page, scope))
    return out


class PageFacts(NamedTuple):
    """What the cross-page checks need from one page; pure like `page_findings`, so cacheable."""

    fingerprint: str | None  # T25: hash of the normalized body (None: index page, too short)
    incident_id: Field | None  # T22: the incident id field (None: not an incident, no id)


def page_facts(rel: str, page: Page, policy: Policy) -> PageFacts:
    """The per-page inputs of T22 and T25 (only for pages under a root)."""
    if page.error is not None or page_scope(rel, policy) != ROOT:
        return PageFacts(None, None)
    is_index = rel.rsplit("/", 1)[-1] == policy.data["index_page"]
    digest = None if is_index else body_fingerprint(page, policy.limit("duplicate_min_chars"))
    ident = incident_id(page, policy) if is_incident(rel, policy) else None
    return PageFacts(digest, ident)


def tree_findings(
    tree: Tree, context: Context, facts: Mapping[str, PageFacts] | None = None
) -> list[Finding]:
    """Every cross-page check: structure, registration, links, duplicates, git, entry page.

    `facts` (by root-relative path) lets a caller pass cached `page_facts`; missing entries
    are computed here.
    """
    findings = structure_findings(tree)
    pages = scoped_pages(tree)
    outside: dict[str, bool] = {}
    for rel, page, _ in pages:
        findings.extend(broken_link_findings(tree, rel, page, outside))
    known = facts or {}
    summary = [
        (page.path, known.get(rel) or page_facts(rel, page, tree.policy))
        for rel, page, scope in pages
        if scope == ROOT
    ]
    findings.extend(duplicate_findings((path, f.fingerprint) for path, f in summary))
    findings.extend(duplicate_id_findings((path, f.incident_id) for path, f in summary))
    findings.extend(local_tracked_findings(tree))
    findings.extend(entry_findings(tree))
    return findings


def apply_split_exemptions(
    findings: Iterable[Finding], exempt_paths: frozenset[str]
) -> list[Finding]:
    """An oversized page its index marks as do-not-split gets a warning instead of an error."""
    out = []
    for finding in findings:
        if finding.rule_id == "tree/page-too-large" and finding.path in exempt_paths:
            finding = Finding(
                finding.path,
                finding.line,
                "tree/page-near-limit",
                WARNING,
                finding.message.replace(": split the page", ": exempt from splitting by its index"),
            )
        out.append(finding)
    return out


def check_policy(policy: Policy) -> None:
    """Fail early (exit 2) on policy values that only a check can interpret."""
    name_pattern(str(policy.data["incidents"]["name_pattern"]))
    allowed_networks(tuple(map(str, policy.data["secrets"]["allowed_ip_networks"])))


def run(tree: Tree, context: Context) -> list[Finding]:
    """Run every tree rule: page findings for each page, then the cross-page findings."""
    check_policy(tree.policy)
    page_level: list[Finding] = []
    for rel, page, _ in scoped_pages(tree):
        page_level.extend(page_findings(rel, page, tree.policy))
    exempt = frozenset(tree.repo_path(rel) for rel in split_exemptions(tree))
    return apply_split_exemptions(page_level, exempt) + tree_findings(tree, context)
