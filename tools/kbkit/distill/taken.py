"""Rule IDs that open knowledge PRs hold: taken for the catalog, the prompt and validation.

Read from two places, so either alone is enough: the rule IDs present in each open PR's
head (its rule pages there, against the merge base with main: the content that would
merge) and the proposals its record lists. A page an open PR creates is taken as a whole.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from kbkit.distill.knowledge_prs import KnowledgePr
from kbkit.pages.page import parse_page
from kbkit.policy.model import Policy
from kbkit.tree.rules import rule_ids
from kbkit.vcs import git


def taken_ids(
    clone: Path, prs: Iterable[KnowledgePr], heads: dict[int, str], base: str, policy: Policy
) -> dict[str, tuple[str, str]]:
    """rule ID -> (target document ID, "open pull request #N") for every open PR in `prs`;
    `heads` maps a PR number to its fetched head commit, `base` is main's commit."""
    taken: dict[str, tuple[str, str]] = {}
    root = policy.knowledge_root
    for pr in prs:
        if not pr.is_open:
            continue
        where = f"open pull request #{pr.number}"
        for row in pr.record.rows() if pr.record else ():
            taken.setdefault(str(row["rule_id"]), (str(row["target"]), where))
        head = heads.get(pr.number)
        if head is None:
            continue
        for rule_id, target in head_rules(clone, base, head, root, policy):
            taken.setdefault(rule_id, (target, where))
    return taken


def head_rules(
    clone: Path, base: str, head: str, root: str, policy: Policy
) -> list[tuple[str, str]]:
    """(rule ID, document ID) of every rule `head`'s pages define that the merge base's do
    not: what the PR adds."""
    since = git.merge_base(clone, base, head) or base
    found = []
    for status, path in git.changed_paths(clone, since, head, root):
        if status == "D" or not path.endswith(".md"):
            continue
        rel = path[len(root) + 1 :] if path.startswith(f"{root}/") else path
        after = _ids(rel, git.file_at(clone, head, path), policy)
        before = set(_ids(rel, git.file_at(clone, since, path), policy))
        document = rel[: -len(".md")]
        found += [(rule_id, document) for rule_id in after if rule_id not in before]
    return found


def _ids(rel: str, data: bytes | None, policy: Policy) -> list[str]:
    if data is None:
        return []
    return [rule.id for rule in rule_ids(parse_page(rel, data), policy)]
