"""Where a page is registered (T2-T6): the policy's `index:` model (issue #12).

- `index-page` (default): each folder's `_index.md` links its pages and child indexes.
- `toc`: one table of contents lists every page: a markdown page under the knowledge root
  (`SUMMARY.md`: its links), `mkdocs.yml` (`nav:`) or a Jupyter Book `_toc.yml` (`file:`
  and `root:` entries, `.md` implied). Paths in the YAML files are knowledge-root paths
  (mkdocs' `docs_dir`). Unlisted pages are `tree/page-unregistered`, pages listed twice
  `tree/page-registered-twice`.
- `parent`: each page names its parent page in a frontmatter key (`index.parent_key`), a
  link target resolved like any other (site-root, extensions, redirects); a page without
  one, or whose parent names no page, is `tree/page-unregistered`.
- `none`: nothing is registered; orphans (no inbound link) are all that is checked.

A YAML table of contents is read from the file system, so its digest keys the result
snapshot (`side_digest`), like the redirects file.
"""

from __future__ import annotations

import hashlib
import posixpath
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

from kbkit.infra.config_file import read_config_bytes
from kbkit.infra.errors import UsageError
from kbkit.pages.page import Page
from kbkit.policy.model import Policy
from kbkit.rulebook.findings import ERROR, Finding
from kbkit.tree.model import Tree

INDEX_PAGE, TOC, PARENT, NONE = "index-page", "toc", "parent", "none"
MAX_TOC_BYTES = 4 * 1024 * 1024


def model(policy: Policy) -> str:
    return str((policy.data.get("index") or {}).get("model") or INDEX_PAGE)


def parent_fact(page: Page, policy: Policy) -> tuple[str, int] | None:
    """(parent as written, line of the key) for the `parent` model, else None."""
    if model(policy) != PARENT:
        return None
    key = str(policy.data["index"].get("parent_key") or "parent")
    value = page.meta.get(key)
    if not isinstance(value, str) or not value.strip():
        return ("", 0)
    from kbkit.checks.lint_fields import key_line

    return (value.strip(), key_line(page, key))


def registration_findings(tree: Tree, pages: list[str]) -> list[Finding]:
    """T3/T4 under the `toc` or `parent` model for the root-relative `pages`."""
    kind = model(tree.policy)
    if kind == TOC:
        return _toc_findings(tree, pages)
    if kind == PARENT:
        return _parent_findings(tree, pages)
    return []


def _toc_findings(tree: Tree, pages: list[str]) -> list[Finding]:
    toc = str(tree.policy.data["index"].get("toc") or "")
    entries, toc_path = _toc_entries(tree, toc)
    counts = Counter(target for target, _ in entries)
    findings = []
    for rel in pages:
        if tree.repo_path(rel) == toc_path:
            continue
        if counts[rel] == 0:
            findings.append(
                Finding(
                    tree.repo_path(rel),
                    0,
                    "tree/page-unregistered",
                    ERROR,
                    f"not listed in {toc_path}: add one entry for this page there",
                )
            )
    seen: set[str] = set()
    for target, line in entries:
        if target in seen:
            findings.append(
                Finding(
                    toc_path,
                    line,
                    "tree/page-registered-twice",
                    ERROR,
                    f"{target} is already listed in {toc_path}: keep one entry",
                )
            )
        seen.add(target)
    return findings


def _toc_entries(tree: Tree, toc: str) -> tuple[list[tuple[str, int]], str]:
    """(root-relative target, line) of every entry, and the toc's repo-relative path."""
    if toc.endswith(".md"):
        rel = posixpath.normpath(toc)
        summary = tree.summaries.get(rel)
        if summary is None:
            raise UsageError(f"index.toc {toc!r}: no such page under {tree.root}/")
        from kbkit.checks.link_model import Resolver

        resolver = Resolver(tree)
        return [
            (resolver.target(target) or target, line) for target, line, _ in summary.links
        ], tree.repo_path(rel)
    path = tree.repo / toc
    data = _read_yaml(path)
    found: list[str] = []
    if isinstance(data, dict) and "nav" in data:
        _mkdocs_nav(data["nav"], found)
    else:
        _book_files(data, found)
    return [(_as_page(tree, entry), getattr(entry, "line", 0)) for entry in found], toc


def _as_page(tree: Tree, entry: str) -> str:
    rel = posixpath.normpath(entry.lstrip("/"))
    if rel not in tree.files and rel + ".md" in tree.files:
        return rel + ".md"  # Jupyter Book leaves the extension out
    return rel


def _mkdocs_nav(node: Any, out: list[str]) -> None:
    if isinstance(node, str):
        if "://" not in node:
            out.append(node)
    elif isinstance(node, list):
        for item in node:
            _mkdocs_nav(item, out)
    elif isinstance(node, dict):
        for value in node.values():
            _mkdocs_nav(value, out)


def _book_files(node: Any, out: list[str]) -> None:
    if isinstance(node, dict):
        for key in ("root", "file"):
            if isinstance(node.get(key), str):
                out.append(node[key])
        for value in node.values():
            if isinstance(value, (list, dict)):
                _book_files(value, out)
    elif isinstance(node, list):
        for item in node:
            _book_files(item, out)


class _TocLoader(yaml.SafeLoader):
    """Safe, and reads tags such as mkdocs' `!!python/name:` or `!ENV` as plain null."""


class _Text(str):
    """A YAML string that knows its line (findings on an entry name the entry's line)."""

    line = 0


def _text(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> _Text:
    value = _Text(loader.construct_scalar(node))
    value.line = node.start_mark.line + 1
    return value


_TocLoader.add_multi_constructor("", lambda loader, suffix, node: None)
_TocLoader.add_constructor("tag:yaml.org,2002:str", _text)


def _read_yaml(path: Path) -> Any:
    data = read_config_bytes(path, MAX_TOC_BYTES, "the table of contents")
    text = data.decode("utf-8", "replace")
    from kbkit.policy.schema import check_expansion

    check_expansion(text, str(path), "table of contents")
    try:
        return yaml.load(text, Loader=_TocLoader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        raise UsageError(f"{path}: invalid table of contents YAML ({exc})") from exc


def _parent_findings(tree: Tree, pages: list[str]) -> list[Finding]:
    from kbkit.checks.link_model import Resolver, is_site_link, link_model

    resolver = Resolver(tree)
    site_root = link_model(tree.policy).site_root
    key = str(tree.policy.data["index"].get("parent_key") or "parent")
    findings = []
    for rel in pages:
        written, line = tree.facts[rel].get("parent", ("", 0))
        if not written:
            findings.append(
                Finding(
                    tree.repo_path(rel),
                    0,
                    "tree/page-unregistered",
                    ERROR,
                    f"no `{key}:` key: name the page this one belongs under",
                )
            )
            continue
        path = written.split("#", 1)[0].split("?", 1)[0]
        if is_site_link(path) and site_root is not None:
            target = posixpath.normpath(posixpath.join(site_root or ".", path.lstrip("/")))
        else:
            target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), path))
        target = "" if target == "." else target
        if resolver.target(target) is None:
            findings.append(
                Finding(
                    tree.repo_path(rel),
                    line,
                    "tree/page-unregistered",
                    ERROR,
                    f"`{key}: {written}` names no page: fix the parent",
                )
            )
    return findings


def side_digest(repo: Path, policy: Policy) -> str:
    """The digest of a YAML table of contents (the result snapshot must know it)."""
    index = policy.data.get("index") or {}
    toc = index.get("toc")
    if model(policy) != TOC or not toc or str(toc).endswith(".md"):
        return ""
    data = read_config_bytes(repo / str(toc), MAX_TOC_BYTES, "the table of contents")
    return hashlib.sha256(data).hexdigest()
