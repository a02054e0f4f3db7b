"""A starting policy inferred from the pages a repository already has (for `kb init`).

It reads what the tree already does and writes it down as policy keys the default profile
understands: the roots (top-level folders holding pages), the index page name most folders
use (or no index model when no folder has one), the frontmatter keys most pages carry (or
no frontmatter rule when most pages have none), the
page types and the tags in use; how pages link: `[[wikilinks]]` (an Obsidian vault: letter
case ignored, `aliases:` honoured), from the site's root (`/x`) rather than relatively, to
the `.html` a `x.html.md` page builds (Middleman). It is a start for a human to edit, not a judgement of the tree.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

from kbkit.pages.page import parse_page
from kbkit.sites.config import most_common_index

_UNQUOTED_TITLE = re.compile(r"(?m)^title:[ \t]*[^\s\"'#]")
MOST = 0.8  # a frontmatter key on at least this share of pages becomes required
HALF = 0.5  # frontmatter on fewer than this share of pages: frontmatter is optional
WIKILINK_SHARE = 0.1  # pages with a `[[wikilink]]`: at least this share turns them on


def infer_policy(top: Path) -> tuple[dict[str, Any], int] | None:
    """Policy keys for the tree under `top` and the number of pages read, or None when it
    holds no markdown page."""
    pages = sorted(p for p in top.rglob("*.md") if p.is_file() and not _hidden(p, top))
    if not pages:
        return None
    roots = sorted(
        {p.relative_to(top).parts[0] for p in pages if len(p.relative_to(top).parts) > 1}
    ) or ["."]  # a flat tree (every page at the top): the knowledge root itself is the root
    index_name = most_common_index({p.parent for p in pages})
    keys: Counter[str] = Counter()
    types: set[str] = set()
    tags: set[str] = set()
    with_frontmatter = 0
    unquoted_titles = 0
    with_wikilinks = 0
    site_links = relative_links = 0
    for path in pages:
        try:
            page = parse_page(str(path), path.read_bytes())  # as the checks will read it
        except OSError:
            continue
        with_wikilinks += bool(page.wikilinks)
        for link in page.links:
            if link.is_external or not link.path_part:
                continue
            if link.path_part.startswith("/"):
                site_links += 1
            else:
                relative_links += 1
        data = page.frontmatter.data
        if not isinstance(data, dict):
            continue
        with_frontmatter += 1
        unquoted_titles += bool(_UNQUOTED_TITLE.search(page.frontmatter.raw or ""))
        keys.update(str(key) for key in data)
        if isinstance(data.get("type"), str):
            types.add(data["type"])
        if isinstance(data.get("tags"), list):
            tags.update(str(tag) for tag in data["tags"] if isinstance(tag, str | int))
    policy: dict[str, Any] = {"version": 1}
    if roots:
        policy["roots"] = roots
    if index_name is not None:
        policy["index_page"] = index_name
    else:  # no folder has an index page: links alone place a page
        policy["index"] = {"model": "none"}
    links: dict[str, Any] = {}
    if site_links > relative_links:  # `/guide/x.html` from the site's root, as a site builds
        links["site_root"] = "."
    if any(p.name.endswith(".html.md") for p in pages):  # Middleman: x.html.md is /x.html
        links["extensions"] = {".html": [".html.md", ".md"], "": [".html.md", ".md"]}
    if with_wikilinks >= WIKILINK_SHARE * len(pages):
        # as Obsidian reads them: letter case ignored, a page's `aliases:` name it too
        links.update(wikilinks=True, case_insensitive=True)
        if "aliases" in keys:
            links["aliases"] = True
    if links:
        policy["links"] = links
    optional = with_frontmatter < HALF * len(pages)  # most pages have none: optional here
    rules: dict[str, str] = {}
    if optional:
        rules["lint/frontmatter-missing"] = "off"
    if unquoted_titles and unquoted_titles >= HALF * with_frontmatter:
        rules["lint/title-unquoted"] = "off"  # the tree writes its titles unquoted
    if rules:
        policy["rules"] = rules
    if with_frontmatter or optional:
        required = [k for k, n in keys.most_common() if n >= MOST * with_frontmatter]
        policy["frontmatter"] = {"required": [] if optional else sorted(required)}
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
    # lists of plain values on one line each (roots: [a, b]); mappings as blocks; the top
    # level always as a block (alone, `{index_page: index.md}` would come out in flow style)
    body = "".join(
        yaml.safe_dump(
            {key: value},
            sort_keys=False,
            allow_unicode=True,
            default_flow_style=None if isinstance(value, dict | list) else False,
        )
        for key, value in policy.items()
    )
    # PyYAML writes an empty key ('': extensionless link targets) as a complex `? ''` key
    return header + re.sub(r"\? ''\n *: ", "'': ", body)


def _hidden(path: Path, top: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(top).parts)
