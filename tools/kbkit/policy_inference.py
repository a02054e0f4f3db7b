"""A starting policy inferred from the pages a repository already has (for `kb init`).

It reads what the tree already does and writes it down as policy keys the default profile
understands: the roots (top-level folders holding pages), the index page name most folders
use, the frontmatter keys most pages carry, the page types and the tags in use. It is a
start for a human to edit, not a judgement of the tree.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import yaml

from kbkit.frontmatter import split_frontmatter

INDEX_NAMES = ("_index.md", "index.md", "README.md")
MOST = 0.8  # a frontmatter key on at least this share of pages becomes required


def infer_policy(top: Path) -> tuple[dict[str, Any], int] | None:
    """Policy keys for the tree under `top` and the number of pages read, or None when it
    holds no markdown page."""
    pages = sorted(p for p in top.rglob("*.md") if p.is_file() and not _hidden(p, top))
    if not pages:
        return None
    roots = sorted(
        {p.relative_to(top).parts[0] for p in pages if len(p.relative_to(top).parts) > 1}
    )
    names = Counter(
        name
        for folder in {p.parent for p in pages}
        for name in INDEX_NAMES
        if (folder / name).is_file()
    )
    keys: Counter[str] = Counter()
    types: set[str] = set()
    tags: set[str] = set()
    with_frontmatter = 0
    for page in pages:
        try:
            data = split_frontmatter(page.read_text("utf-8").lstrip("\ufeff")).data
        except (OSError, UnicodeDecodeError):
            continue
        if not isinstance(data, dict):
            continue
        with_frontmatter += 1
        keys.update(str(key) for key in data)
        if isinstance(data.get("type"), str):
            types.add(data["type"])
        if isinstance(data.get("tags"), list):
            tags.update(str(tag) for tag in data["tags"] if isinstance(tag, str | int))
    policy: dict[str, Any] = {"version": 1}
    if roots:
        policy["roots"] = roots
    policy["index_page"] = names.most_common(1)[0][0] if names else "_index.md"
    if with_frontmatter:
        required = [k for k, n in keys.most_common() if n >= MOST * with_frontmatter]
        policy["frontmatter"] = {"required": sorted(required)}
        if types:
            policy["frontmatter"]["types"] = sorted(types)
    policy["taxonomy"] = {"tags": sorted(tags)}
    return policy, len(pages)


def policy_text(policy: dict[str, Any], pages: int) -> str:
    """The inferred policy as YAML with a header that says where it came from."""
    header = (
        f"# kbkit policy inferred by `kb init` from {pages} page(s): what the tree already does,\n"
        "# written down. Edit it; every key not set here comes from kbkit's `default` profile.\n"
    )
    return header + yaml.safe_dump(policy, sort_keys=False, allow_unicode=True)


def _hidden(path: Path, top: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(top).parts)
