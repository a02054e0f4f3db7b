"""Folder structure (T1-T8) and owner axes (T23-T24), from the in-memory tree.

Registration counts the links of each `_index.md` once with a Counter (no per-page rescans),
resolved against the tree index. Group status comes from folder names inside the knowledge
root only.
"""

from __future__ import annotations

from collections.abc import Iterator

from kbkit.checks.rules.tree import (
    CHILD_REGISTERED_TWICE,
    CHILD_UNREGISTERED,
    GROUP_TOO_LARGE,
    INDEX_MISSING,
    OWNER_GUIDES,
    OWNER_NESTED,
    PAGE_REGISTERED_TWICE,
    PAGE_UNREGISTERED,
    ROOT_MISSING,
    TOO_MANY_PAGES,
)
from kbkit.pages.page import Page
from kbkit.pages.page_summary import Summary
from kbkit.policy.model import WHOLE_ROOT, Policy
from kbkit.rulebook.findings import Finding
from kbkit.tree.model import Folder, Tree


def join_rel(folder: str, name: str) -> str:
    """A root-relative path inside a folder (`""` is the knowledge root)."""
    return f"{folder}/{name}" if folder else name


def index_targets(summary: Summary) -> dict[str, list[int]]:
    """Root-relative targets of an index's relative links, with the line of every link."""
    targets: dict[str, list[int]] = {}
    for resolved, line, _ in summary.links:
        targets.setdefault(resolved, []).append(line)
    return targets


def checked_folders(tree: Tree) -> Iterator[Folder]:
    """Folders under a root that hold markdown at some depth, in sorted order."""
    whole = tree.policy.whole_root
    roots = tuple(map(str, tree.policy.data["roots"]))
    below = tuple(f"{root}/" for root in roots)
    for rel, folder in tree.folders.items():
        if folder.has_markdown and (whole or rel in roots or rel.startswith(below)):
            yield folder


def root_findings(tree: Tree) -> list[Finding]:
    """T1: every configured root exists."""
    return [
        ROOT_MISSING.at(
            tree.repo_path(root), 0, f"the root folder {tree.repo_path(root)}/ is missing"
        )
        for root in map(str, tree.policy.data["roots"])
        if root not in tree.folders and root.strip("/") not in WHOLE_ROOT
    ]


def has_children_marker(rel: str, page: Page, policy: Policy) -> bool:
    """Does the index page at `rel` declare that its folder's children need no links?"""
    folder = rel.rsplit("/", 2)[-2] if rel.count("/") else ""
    if folder not in policy.data["children_marker_dirs"]:
        return False
    marker = str(policy.data["children_marker"]).strip()
    marker = " ".join(marker.removeprefix("<!--").removesuffix("-->").split())
    return any(" ".join(comment.text.split()) == marker for comment in page.comments)


def registration_findings(tree: Tree, folder: Folder) -> list[Finding]:
    """T2-T6 for one folder."""
    index_name = str(tree.policy.data["index_page"])
    index_rel = join_rel(folder.path, index_name)
    index_path = tree.repo_path(index_rel)
    if index_name not in folder.pages:
        return [
            INDEX_MISSING.at(
                tree.repo_path(folder.path),
                0,
                f"this folder has pages but no {index_name}: add one that links each page and sub-folder",
            )
        ]
    index = tree.summaries[index_rel]
    if index.error is not None:
        return []  # reported as kb/unreadable
    targets = index_targets(index)
    findings: list[Finding] = []
    for name in folder.pages:
        if name == index_name:
            continue
        lines = targets.get(join_rel(folder.path, name), [])
        if not lines:
            findings.append(
                PAGE_UNREGISTERED.at(
                    tree.repo_path(join_rel(folder.path, name)),
                    0,
                    f"not linked from {index_path}: add one link to this page there",
                )
            )
        for line in lines[1:]:
            findings.append(
                PAGE_REGISTERED_TWICE.at(
                    index_path, line, f"{name} is already linked on line {lines[0]}: keep one link"
                )
            )
    exempt = bool(tree.facts[index_rel].get("children_marker"))
    for child in folder.children:
        child_rel = join_rel(folder.path, child)
        if not tree.folders[child_rel].has_markdown:
            continue
        lines = targets.get(join_rel(child_rel, index_name), [])
        if not lines and not exempt:
            findings.append(
                CHILD_UNREGISTERED.at(
                    tree.repo_path(child_rel),
                    0,
                    f"{child}/{index_name} is not linked from {index_path}: add one link to it there",
                )
            )
        for line in lines[1:]:
            findings.append(
                CHILD_REGISTERED_TWICE.at(
                    index_path,
                    line,
                    f"{child}/{index_name} is already linked on line {lines[0]}: keep one link",
                )
            )
    return findings


def fanout_findings(tree: Tree, folder: Folder) -> list[Finding]:
    """T7/T8: too many ordinary pages for an ordinary folder or a group folder."""
    special = set(map(str, tree.policy.data["special_pages"]))
    ordinary = sum(1 for name in folder.pages if name not in special)
    groups = set(map(str, tree.policy.data["group_dirs"]))
    path = tree.repo_path(folder.path)
    if groups.intersection(folder.path.split("/")):
        limit = tree.policy.limit("group_max")
        if ordinary > limit:
            return [
                GROUP_TOO_LARGE.at(
                    path,
                    0,
                    f"group folder holds {ordinary} pages (limit {limit}): split it by topic",
                )
            ]
        return []
    limit = tree.policy.limit("fanout_warn")
    if ordinary > limit:
        return [
            TOO_MANY_PAGES.at(
                path, 0, f"folder holds {ordinary} pages (more than {limit}): consider sub-folders"
            )
        ]
    return []


def owner_findings(tree: Tree) -> list[Finding]:
    """T23/T24: owner axes sit directly under repos/<repo>/ and owners hold no guides."""
    owners = tree.policy.data["owners"]
    repos_root = str(owners["repos_root"])
    axes = set(map(str, owners["axes"]))
    forbidden = set(map(str, owners["forbidden_dirs"]))
    findings: list[Finding] = []
    for rel, folder in tree.folders.items():
        parts = rel.split("/")
        if len(parts) < 3 or parts[0] != repos_root:
            continue
        if len(parts) > 3 and parts[-1] in axes:
            findings.append(
                OWNER_NESTED.at(
                    tree.repo_path(rel),
                    0,
                    f"owner axis {parts[-1]}/ belongs directly under {repos_root}/{parts[1]}/",
                )
            )
        if len(parts) == 5 and parts[2] in axes and parts[4] in forbidden and folder.has_markdown:
            findings.append(
                OWNER_GUIDES.at(
                    tree.repo_path(rel),
                    0,
                    f"owner folders hold no {parts[4]}/: move these pages to the work-topic axis",
                )
            )
    return findings


def structure_findings(tree: Tree) -> list[Finding]:
    """T1-T8, T23, T24 over the whole tree (T2-T6 under the policy's index model)."""
    from kbkit.checks import index_model

    findings = root_findings(tree)
    kind = index_model.model(tree.policy)
    pages: list[str] = []
    for folder in checked_folders(tree):
        if kind == index_model.INDEX_PAGE:
            findings.extend(registration_findings(tree, folder))
        else:
            pages.extend(join_rel(folder.path, name) for name in folder.pages)
        findings.extend(fanout_findings(tree, folder))
    findings.extend(index_model.registration_findings(tree, pages))
    findings.extend(owner_findings(tree))
    return findings


__all__ = ["has_children_marker", "index_targets", "join_rel", "structure_findings"]
