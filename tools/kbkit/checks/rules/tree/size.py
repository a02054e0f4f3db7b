"""Page size (T11, T12) and the no-split exemption an index can grant.

T12 below the split limits depends on the page alone; a page past the split limits is
decided per tree, because its folder's index may name it on a line with the no-split marker.
"""

from __future__ import annotations

from kbkit.checks.rules.tree import PAGE_NEAR_LIMIT, PAGE_TOO_LARGE
from kbkit.checks.rules.tree.structure import index_targets, join_rel
from kbkit.pages.page import Page
from kbkit.policy.model import Policy
from kbkit.rulebook.findings import Finding
from kbkit.tree.model import Tree


def over_split(lines: int, size: int, policy: Policy) -> bool:
    return lines >= policy.limit("split_lines") or size >= policy.limit("split_bytes")


def near_limit_findings(page: Page, policy: Policy) -> list[Finding]:
    """T12 (>= near limits) for pages below the split limits (those are decided per tree)."""
    lines, size = page.nonempty_lines, page.size
    if over_split(lines, size, policy):
        return []
    if lines >= policy.limit("near_lines") or size >= policy.limit("near_bytes"):
        limits = f"{policy.limit('near_lines')} lines or {policy.limit('near_bytes')} bytes"
        return [
            PAGE_NEAR_LIMIT.at(
                page.path,
                0,
                f"{lines} non-empty lines, {size} bytes (warning at {limits}): plan a split",
            )
        ]
    return []


def split_findings(path: str, lines: int, size: int, exempt: bool, policy: Policy) -> Finding:
    """T11 for a page past the split limits, or T12 when its index exempts it."""
    limits = f"{policy.limit('split_lines')} lines or {policy.limit('split_bytes')} bytes"
    measure = f"{lines} non-empty lines, {size} bytes (split at {limits})"
    if exempt:
        return PAGE_NEAR_LIMIT.at(path, 0, f"{measure}: exempt from splitting by its index")
    return PAGE_TOO_LARGE.at(path, 0, f"{measure}: split the page")


def _names_on(line: str, names: tuple[str, ...]) -> set[str]:
    """Page file names written on a line as whole names (`big.md`, not `not-big.md`)."""
    found = set()
    for name in names:
        start = line.find(name)
        while start >= 0:
            before = line[start - 1] if start else " "
            after = line[start + len(name) : start + len(name) + 1] or " "
            if not (before.isalnum() or before in "-_./") and not (
                after.isalnum() or after in "-_"
            ):
                found.add(name)
                break
            start = line.find(name, start + 1)
    return found


def no_split_lines(page: Page, marker: str) -> list[tuple[int, str]]:
    """(line, text) of an index page's lines that carry the no-split marker."""
    if not marker or marker not in page.text:
        return []
    return [(n + 1, line) for n, line in enumerate(page.text.split("\n")) if marker in line]


def split_exemptions(tree: Tree) -> frozenset[str]:
    """Direct pages an index names (a link or the file name) on a line with the no-split marker."""
    exempt: set[str] = set()
    for rel, facts in tree.facts.items():
        marked = dict(facts.get("no_split", ()))
        if not marked:
            continue
        folder_rel = rel.rsplit("/", 1)[0] if "/" in rel else ""
        folder = tree.folders.get(folder_rel)
        names = folder.pages if folder is not None else ()
        for line in marked.values():
            exempt.update(join_rel(folder_rel, name) for name in _names_on(line, names))
        for target, link_lines in index_targets(tree.summaries[rel]).items():
            in_folder = (target.rsplit("/", 1)[0] if "/" in target else "") == folder_rel
            if in_folder and marked.keys() & set(link_lines):
                exempt.add(target)
    return frozenset(exempt)
