"""Tree health: pages, findings by rule and folder, page ages, sizes, orphans, links."""

from __future__ import annotations

import posixpath
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

from kbkit.policy.model import Policy
from kbkit.rulebook.findings import ERROR, Finding
from kbkit.tree.model import Tree
from kbkit.tree.walk import PACKED_KEY, under

TOP = 10  # rows in each "top" table
ORPHAN_RULE = "lint/orphan"
BROKEN_LINK_RULE = "tree/link-broken"
VALIDATORS = ("tree", "lint")


def collect(repo: Path, policy: Policy, today: date, use_cache: bool) -> dict[str, Any]:
    """Load the tree once as the validators do, run them, and aggregate. Every figure is
    over the pages `kb check` counts (those under the policy's roots)."""
    from kbkit.checks import wiki_lint
    from kbkit.checks.runner import check_tree, checked_pages, load_for_checks

    tree = load_for_checks(repo, policy, use_cache=use_cache)
    findings = check_tree(tree, VALIDATORS, today)
    root = tree.root
    checked = [rel for rel in tree.summaries if tree.in_roots(rel)]
    linted = [rel for rel in wiki_lint.scope(tree) if tree.summaries[rel].error is None]
    pages = checked_pages(tree, VALIDATORS)
    return {
        "source": f"{root}/ (kb check: both validators, policy {_policy_source(repo, policy)})",
        "root": root,
        "roots": sorted(str(r) for r in policy.data["roots"]),
        "pages": pages,
        "outside_roots": len(tree.summaries) - pages,
        "findings": _findings(findings),
        "age": _ages(tree.facts, linted, policy.limit("stale_days"), today, root),
        "largest": _largest(checked, tree, policy, root),
        "orphans": _orphans(findings),
        "links": _links(checked, tree.summaries, findings, root),
        "baseline": baseline_progress(repo, policy, findings),
    }


def _policy_source(repo: Path, policy: Policy) -> str:
    local = repo / policy.knowledge_root / "policy.yaml"
    return f"{policy.knowledge_root}/policy.yaml" if local.is_file() else "built-in default"


def _folder(path: str) -> str:
    return posixpath.dirname(path) or "."


def _findings(findings: list[Finding]) -> dict[str, Any]:
    from kbkit.report.words import rule

    by_rule = Counter(f.rule_id for f in findings)
    severity = {f.rule_id: f.severity for f in findings}
    by_folder = Counter(_folder(f.path) for f in findings)
    errors = sum(1 for f in findings if f.severity == ERROR)
    return {
        "total": len(findings),
        "errors": errors,
        "warnings": len(findings) - errors,
        "by_rule": [
            {"rule": r, "title": rule(r), "severity": severity[r], "count": n}
            for r, n in _top(by_rule, len(by_rule))
        ],
        "by_folder": [{"folder": d, "count": n} for d, n in _top(by_folder, TOP)],
        "folders": len(by_folder),
    }


def _top(counter: Counter[str], limit: int) -> list[tuple[str, int]]:
    return sorted(counter.items(), key=lambda item: (-item[1], item[0]))[:limit]


def _ages(
    facts: dict[str, dict[str, Any]], linted: list[str], stale_days: int, today: date, root: str
) -> dict[str, Any]:
    """Days since `updated:` per page lint checks, in buckets relative to the staleness limit."""
    # a page is stale once its age exceeds the limit (lint/stale): the last bucket is > limit
    edges = [(0, 30), (30, 90), (90, 180), (180, stale_days + 1), (stale_days + 1, None)]
    edges = [(low, high) for low, high in edges if high is None or low < high]
    counts = [0] * len(edges)
    oldest: list[tuple[int, str]] = []
    for rel in linted:
        updated = facts.get(rel, {}).get("updated")
        if not updated:
            continue
        age = (today - date.fromisoformat(updated[0])).days
        oldest.append((age, rel))
        for n, (low, high) in enumerate(edges):
            if age >= low and (high is None or age < high):
                counts[n] += 1
                break
        else:
            counts[0] += 1  # dated in the future: counted as fresh
    oldest.sort(key=lambda item: (-item[0], item[1]))
    return {
        "stale_days": stale_days,
        "linted_pages": len(linted),
        "dated_pages": len(oldest),
        "stale_pages": sum(1 for age, _ in oldest if age > stale_days),
        "buckets": [
            {
                "label": f"{low}–{high - 1} days" if high else f"over {low - 1} days (stale)",
                "pages": n,
            }
            for (low, high), n in zip(edges, counts, strict=True)
        ],
        "oldest": [{"path": under(root) + rel, "days": age} for age, rel in oldest[:TOP]],
    }


def _largest(checked: list[str], tree: Tree, policy: Policy, root: str) -> dict[str, Any]:
    packed, facts = tree.packed_keys, tree.facts
    place = {rel: n for n, rel in enumerate(tree.summaries)}
    sizes = [
        (PACKED_KEY.unpack_from(packed, place[rel] * PACKED_KEY.size)[0], rel)
        for rel in checked
        if (place[rel] + 1) * PACKED_KEY.size <= len(packed)
    ]
    sizes.sort(key=lambda item: (-item[0], item[1]))
    rows = []
    for size, rel in sizes[:TOP]:
        oversize = facts.get(rel, {}).get("oversize")
        rows.append(
            {"path": tree.repo_path(rel), "bytes": size, "lines": oversize[0] if oversize else None}
        )
    return {
        "limits": {
            name: policy.limit(name)
            for name in ("near_bytes", "split_bytes", "near_lines", "split_lines")
        },
        "over_split_limit": sum(1 for rel in checked if "oversize" in facts.get(rel, {})),
        "over_near_bytes": sum(1 for size, _ in sizes if size >= policy.limit("near_bytes")),
        "pages": rows,
    }


def _orphans(findings: list[Finding]) -> dict[str, Any]:
    paths = sorted(f.path for f in findings if f.rule_id == ORPHAN_RULE)
    return {"count": len(paths), "pages": paths[:TOP]}


def _links(
    checked: list[str], summaries: dict[str, Any], findings: list[Finding], root: str
) -> dict[str, Any]:
    inbound: Counter[str] = Counter()
    total = 0
    without = 0
    for rel in checked:
        links = summaries[rel].links
        total += len(links)
        if not links:
            without += 1
        for target, _line, _written in links:
            inbound[target] += 1
    return {
        "relative_links": total,
        "broken": sum(1 for f in findings if f.rule_id == BROKEN_LINK_RULE),
        "pages_without_links": without,
        "most_linked": [{"path": under(root) + t, "inbound": n} for t, n in _top(inbound, TOP)],
    }


def baseline_progress(repo: Path, policy: Policy, findings: list[Finding]) -> dict[str, Any] | None:
    """Progress against the baseline (`kbkit.checks.baseline`: `baseline.json` beside the policy),
    when one exists: findings recorded, fixed since, still there, and new ones."""
    from kbkit.checks import baseline
    from kbkit.infra.errors import UsageError

    path = baseline.default_path(repo, policy)
    if not path.is_file():
        return None
    try:
        entries = baseline.read(path)
    except UsageError as exc:
        return {"source": _rel(repo, path), "error": str(exc)}
    compared = baseline.compare(findings, entries, repo)
    return {
        "source": _rel(repo, path),
        "baselined": len(entries),
        "fixed": len(compared.fixed),
        "remaining": len(compared.known),
        "new": len(compared.new),
    }


def _rel(repo: Path, path: Path) -> str:
    try:
        return path.relative_to(repo).as_posix()
    except ValueError:
        return str(path)
