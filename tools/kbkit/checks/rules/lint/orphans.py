"""lint/orphan: a page that no other page, index or navigation links to."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kbkit.checks.link_model import run_resolver, served_relative, wikilinks_on
from kbkit.checks.rules.lint import ORPHAN
from kbkit.rulebook.findings import Finding
from kbkit.tree.model import Tree

Facts = dict[str, Any]  # a page's cached facts


def orphan_findings(tree: Tree, pages: Iterable[tuple[str, Facts]]) -> list[Finding]:
    # Every page under the knowledge root is a source, except the untracked local/ folder:
    # what a reviewer's private notes link to must not change the result (B8).
    from kbkit.checks.index_model import every_page_listed, toc_targets
    from kbkit.checks.query_listing import query_listed

    if every_page_listed(tree):
        return []  # mkdocs without `nav`: navigation links every page
    local = str(tree.policy.data["local_dir"]).strip("/") + "/"
    linked: set[str] = toc_targets(tree)  # navigation entries are links too
    resolver = run_resolver(tree)
    wiki = wikilinks_on(tree.policy)
    for rel, summary in tree.summaries.items():
        if rel.startswith(local):
            continue
        linked.update(
            target
            for target, _, written in summary.links
            if target != rel and not served_relative(written, resolver.model)
        )
        for target, _, written in tree.facts[rel].get("site_links", ()):
            linked.update(resolver.site_targets(target, written))
        names = [name for name, _, _, _ in tree.facts[rel].get("wikilinks", ())]
        if wiki:  # `[[Page]]` links too, and in a vault `[x](Page.md)` by name
            names.extend(
                written.split("#", 1)[0].split("?", 1)[0]
                for target, _, written in summary.links
                if target not in tree.files
            )
        for name in names:
            found = resolver.wikilink(name, rel)
            if found is not None and found != rel:
                linked.add(found)
    linked.update(query_listed(tree, resolver, local))  # a Dataview query or a Base lists it
    if resolver.model.active:  # `x.html` links the page x.html.md; `Guide.md` links guide.md
        linked.update(
            found for target in list(linked) if (found := resolver.target(target)) is not None
        )
    index = str(tree.policy.data["index_page"])
    return [
        ORPHAN.at(
            tree.repo_path(rel),
            0,
            "no other page links to this page; link it from a related page or its index",
        )
        for rel, _ in pages
        if rel.rsplit("/", 1)[-1] != index and rel not in linked
    ]
