"""`check-knowledge-tree`: structure, registration, links, size, sensitive and dangerous text."""

from __future__ import annotations

from kbkit.checks import Context, Rule
from kbkit.findings import ERROR, WARNING, Finding
from kbkit.page import Page
from kbkit.policy import Policy
from kbkit.tree import Tree

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


def page_findings(rel: str, page: Page, policy: Policy) -> list[Finding]:
    return []


def tree_findings(tree: Tree, context: Context) -> list[Finding]:
    """Run every tree rule."""
    findings: list[Finding] = []
    for root in tree.policy["roots"]:
        if root not in tree.folders:
            findings.append(
                Finding(
                    tree.repo_path(root),
                    0,
                    "tree/root-missing",
                    ERROR,
                    f"the root folder {tree.repo_path(root)}/ is missing",
                )
            )
    return findings
