"""The pages a site lists by query instead of by link (`links.queries`): what `lint/orphan`
counts as linked besides links and navigation.

Each page's queries are a page fact (`query_sources`, with its tags in `page_tags`); the
files that are queries of their own (Obsidian's `.base` files) are read here, as a page is
read (nothing outside the knowledge root, no FIFO, no huge file), and their digest keys the
result snapshot (`kbkit.checks.incremental`: the walk knows their names, not their bytes).
Sources name folders from the top of the vault that holds the query (`Resolver.vault`).
"""

from __future__ import annotations

import hashlib

from kbkit.checks.link_model import Resolver, queries_on, site_queries
from kbkit.tree.model import Tree

MAX_QUERY_FILE_BYTES = 1 << 20

Sources = set[tuple[str, str]]


def query_files(tree: Tree) -> dict[str, Sources]:
    """The sources of each query file of the tree (`("folder", "")`: every page), by path."""
    if not queries_on(tree.policy):
        return {}
    import yaml

    from kbkit.infra.bounded_yaml import load_yaml
    from kbkit.tree.page_file import PageRefused, read_page_file

    queries = site_queries()
    top = str(tree.repo / tree.root)
    found: dict[str, Sources] = {}
    for rel in sorted(tree.files):
        if not rel.endswith(queries.file_suffix) or rel.startswith("../"):
            continue
        try:
            data, _ = read_page_file(top, rel, MAX_QUERY_FILE_BYTES)
            parsed = load_yaml(data.decode("utf-8"))
        except (OSError, PageRefused, UnicodeDecodeError, yaml.YAMLError, RecursionError):
            continue  # the app shows its own error for a file it cannot read
        sources = queries.file_sources(parsed)
        found[rel] = {("folder", "")} if sources is None else set(sources)
    return found


def query_files_digest(tree: Tree) -> bytes:
    """A digest of what the tree's query files list (b"" when there are none)."""
    files = query_files(tree)
    if not files:
        return b""
    shown = repr(sorted((rel, sorted(sources)) for rel, sources in files.items()))
    return hashlib.blake2b(shown.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def query_listed(tree: Tree, resolver: Resolver, skipped: str) -> set[str]:
    """The pages some other page's query or some Base lists (pages under `skipped`, the
    untracked local folder, list nothing; a page that only its own query lists is not
    listed, as a link to itself is no link)."""
    if not queries_on(tree.policy):
        return set()
    by_vault: dict[str, dict[tuple[str, str], set[str]]] = {}  # source -> where it is written

    def add(rel: str, sources: Sources | tuple[tuple[str, str], ...]) -> None:
        into = by_vault.setdefault(resolver.vault(rel), {})
        for kind, value in sources:
            source = (kind, value) if kind != "folder" else (kind, value.strip("/"))
            into.setdefault(source, set()).add(rel)

    for rel, facts in tree.facts.items():
        if not rel.startswith(skipped):
            add(rel, facts.get("query_sources", ()))
    for rel, sources in query_files(tree).items():
        add(rel, sources)
    if not any(by_vault.values()):
        return set()
    listed = site_queries().listed
    out = set()
    for rel in tree.summaries:
        vault = resolver.vault(rel)
        among = by_vault.get(vault)
        if not among:
            continue
        facts = tree.facts[rel]
        sources = set(among)
        if "query_sources" in facts:  # not by its own queries alone
            sources = {source for source, where in among.items() if where != {rel}}
        if listed(rel[len(vault) :], facts.get("page_tags", ()), sources):
            out.add(rel)
    return out
