"""Links of a page: absolute file paths (T9, per page) and broken targets (T10, per tree).

Links come from the shared page model (CommonMark: code spans and code blocks hold no links;
images and reference-style links count). Targets resolve against the in-memory tree index.
"""

from __future__ import annotations

from kbkit.findings import ERROR, Finding
from kbkit.links import Link
from kbkit.page import Page
from kbkit.tree import Tree


def is_absolute(link: Link) -> bool:
    target = link.target
    if target.startswith(("/", "\\")):
        return not target.startswith("//")  # `//host/x` is a protocol-relative URL
    return len(target) >= 3 and target[0].isalpha() and target[1] == ":" and target[2] in "/\\"


def link_absolute_findings(page: Page) -> list[Finding]:
    """T9: link targets that are absolute file paths."""
    return [
        Finding(
            page.path,
            link.line,
            "tree/link-absolute",
            ERROR,
            f"absolute link {link.target!r}: use a path relative to this page",
        )
        for link in page.links
        if is_absolute(link)
    ]


def broken_link_findings(
    tree: Tree, rel: str, page: Page, outside: dict[str, bool] | None = None
) -> list[Finding]:
    """T10: relative targets that name nothing in the tree (fragments are not checked).

    Targets outside the knowledge root need the file system; `outside` memoizes them.
    """
    memo = {} if outside is None else outside
    findings = []
    for link in page.links:
        if link.is_external or is_absolute(link) or not link.path_part:
            continue
        resolved = tree.resolve(rel, link.path_part)
        if resolved is None:
            continue
        if resolved.startswith("../"):
            if resolved not in memo:
                memo[resolved] = tree.exists(resolved)
            found = memo[resolved]
        else:
            found = tree.exists(resolved)
        if not found:
            findings.append(
                Finding(
                    page.path,
                    link.line,
                    "tree/link-broken",
                    ERROR,
                    f"broken link {link.target!r}: nothing at {tree.repo_path(resolved)}; fix the path or remove the link",
                )
            )
    return findings
