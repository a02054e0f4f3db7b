"""Links of a page: absolute file paths (T9, per page) and broken targets (T10, per tree).

Links come from the shared page model (CommonMark: code spans and code blocks hold no links;
images and reference-style links count). Targets resolve against the in-memory tree index.
"""

from __future__ import annotations

from kbkit.findings import ERROR, Finding, quote
from kbkit.page import Page
from kbkit.summary import Summary, is_absolute
from kbkit.tree import Tree, outside_root


def link_absolute_findings(page: Page) -> list[Finding]:
    """T9: link targets that are absolute file paths."""
    return [
        Finding(
            page.path,
            link.line,
            "tree/link-absolute",
            ERROR,
            f"absolute link {quote(link.target)}: use a path relative to this page",
        )
        for link in page.links
        if is_absolute(link.target)
    ]


def broken_link_findings(
    tree: Tree, rel: str, summary: Summary, outside: dict[str, bool] | None = None
) -> list[Finding]:
    """T10: relative targets that name nothing in the tree (fragments are not checked).

    Targets outside the knowledge root need the file system; `outside` memoizes them.
    """
    memo = {} if outside is None else outside
    files, folders = tree.files, tree.folders
    findings = []
    for resolved, line, written in summary.links:
        if resolved in files or resolved in folders:
            continue
        if outside_root(resolved):
            if resolved not in memo:
                memo[resolved] = tree.exists(resolved)
            if memo[resolved]:
                continue
        elif resolved == "":
            continue  # the knowledge root itself
        findings.append(
            Finding(
                tree.repo_path(rel),
                line,
                "tree/link-broken",
                ERROR,
                f"broken link {quote(written)}: nothing at {tree.repo_path(resolved)}; fix the path or remove the link",
            )
        )
    return findings
