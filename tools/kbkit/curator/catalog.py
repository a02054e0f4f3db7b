"""The catalog: the rule pages of a clone that may receive new rule sections.

A page qualifies when it is named `rules.md` or `rules-<topic>.md`, lies under a configured
root and has the policy's rule type (`type: rule`). Each entry carries what a model needs to
place a rule (owner summary, prefix, existing IDs and groups, heading style) and what the
applier needs to refuse a stale base (the SHA-256 of the page's bytes).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.curator.confine import check_folder, linked_part, page_inside
from kbkit.curator.layout import EMPTY_STYLE, Layout, page_layout
from kbkit.curator.new_page import NewPageSlot, index_shapes, owner_folder, slot_name
from kbkit.curator.table import table_names
from kbkit.infra.errors import UsageError
from kbkit.infra.paths import document_id
from kbkit.pages.page import Page, parse_page
from kbkit.policy.model import Policy
from kbkit.tree.model import LoadOptions, load_tree
from kbkit.tree.rules import rule_ids

RULE_PAGE_NAME = re.compile(r"^rules(?:-[a-z0-9][a-z0-9-]*)?\.md$")  # the default's
SUMMARY_CHARS = 400


class CatalogPage(NamedTuple):
    document_id: str
    title: str
    owner: str  # document ID of the owner's index page
    owner_summary: str
    prefix: str | None  # the ID prefix new rules take (None: the page has no rule yet)
    rule_ids: tuple[str, ...]
    groups: tuple[str, ...]
    style: str  # heading, bullet (refuses new heading sections) or empty
    heading_level: int
    separator: str
    sha256: str
    tables: tuple[str, ...] = ()  # each table: "<heading> #<n>: <header cells>"

    def heading_marker(self) -> str:
        return "#" * self.heading_level

    def to_dict(self) -> dict[str, Any]:
        data = self._asdict()
        data["rule_ids"] = list(self.rule_ids)
        data["groups"] = list(self.groups)
        data["tables"] = list(self.tables)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CatalogPage:
        values = dict(data)
        values["rule_ids"] = tuple(values["rule_ids"])
        values["groups"] = tuple(values["groups"])
        values["tables"] = tuple(values.get("tables") or ())
        return cls(**values)


class Catalog(NamedTuple):
    pages: dict[str, CatalogPage]  # by document ID
    defined: dict[str, tuple[str, ...]]  # every rule ID in the tree -> document IDs defining it
    knowledge_root: str
    new_pages: dict[str, NewPageSlot] = {}  # owners without a rule page, by the new page's ID

    def targets(self) -> list[str]:
        """Every document ID a row may target: the rule pages, then the new-page slots."""
        return sorted(self.pages) + sorted(self.new_pages)

    def to_dict(self) -> dict[str, Any]:
        return {
            "knowledge_root": self.knowledge_root,
            "pages": [page.to_dict() for page in self.pages.values()],
            "defined": {k: list(v) for k, v in sorted(self.defined.items())},
            "new_pages": [slot.to_dict() for slot in self.new_pages.values()],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Catalog:
        pages = [CatalogPage.from_dict(p) for p in data["pages"]]
        defined = {k: tuple(v) for k, v in data["defined"].items()}
        slots = [NewPageSlot.from_dict(s) for s in data.get("new_pages") or ()]
        return cls(
            {p.document_id: p for p in pages},
            defined,
            data["knowledge_root"],
            {s.document_id: s for s in slots},
        )


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _rule_facts(rel: str, page: Page, policy: Policy) -> tuple[list[Any], dict[str, Any]]:
    """Page-local facts, taken while the whole page is at hand: its rule IDs (for the
    tree-wide ID check) and whether it is a rule page (the loaded tree keeps only the
    policy's required frontmatter keys, which need not include `type`)."""
    facts = {"curator_ids": [r.id for r in rule_ids(page, policy)]}
    return [], {**facts, "curator_rule_page": is_rule_page(rel, page, policy)}


def page_name_pattern(policy: Policy) -> re.Pattern[str]:
    """The policy's `rules.page_name` (a regex over the file name)."""
    pattern = policy.data["rules"].get("page_name") or RULE_PAGE_NAME.pattern
    try:
        return re.compile(str(pattern))
    except re.error as exc:
        message = f"{policy.source}: policy key 'rules.page_name' is not a regex ({exc})"
        raise UsageError(message) from exc


def is_rule_page(rel: str, page: Page, policy: Policy) -> bool:
    name = rel.rsplit("/", 1)[-1]
    if not page_name_pattern(policy).search(name):
        return False
    if not policy.under_roots(rel):
        return False
    wanted = policy.data["rules"]["page_type"]  # empty: the file name alone decides
    return page.error is None and (not wanted or page.meta.get("type") == wanted)


def owner_summary(index: Page | None) -> str:
    """The owner's title plus its first prose paragraph, flattened and capped."""
    if index is None:
        return ""
    title = str(index.meta.get("title") or "").strip()
    body = index.text[index.frontmatter.body_offset :]
    paragraph: list[str] = []
    for line in body.split("\n"):
        stripped = line.strip()
        if not stripped:
            if paragraph:
                break
            continue
        if stripped.startswith(("#", "|", "<!--", "```", "---")):
            if paragraph:
                break
            continue
        paragraph.append(stripped)
    text = " ".join(paragraph)
    summary = f"{title}: {text}" if title and text else title or text
    return summary[:SUMMARY_CHARS]


def catalog_entry(rel: str, data: bytes, policy: Policy, index: Page | None) -> CatalogPage:
    page = parse_page(rel, data)
    layout: Layout = page_layout(page, policy)
    folder = rel.rsplit("/", 1)[0]
    return CatalogPage(
        document_id=document_id(rel),
        title=str(page.meta.get("title") or ""),
        owner=document_id(f"{folder}/{policy.data['index_page']}"),
        owner_summary=owner_summary(index),
        prefix=layout.prefixes[0] if layout.prefixes else None,
        rule_ids=layout.ids,
        groups=tuple(g.text for g in layout.groups),
        style=layout.style,
        heading_level=layout.level,
        separator=layout.separator,
        sha256=sha256(data),
        tables=_table_names(data),
    )


def _table_names(data: bytes) -> tuple[str, ...]:
    """The page's tables as the prompt names them: heading, position, header cells."""
    return table_names([line.rstrip("\r") for line in data.decode("utf-8", "replace").split("\n")])


def load_catalog(repo: Path, policy: Policy) -> Catalog:
    """Read the clone's tree once and list its rule pages (bullet-style pages included,
    marked so validation can refuse heading sections on them). A knowledge root that leaves
    the clone is refused; a page that does (itself or a folder on its path) is left out, and
    so is a symlinked page (the page or a folder below the root), which is never written."""
    check_folder(repo, repo / policy.knowledge_root, f"the knowledge root {policy.knowledge_root}/")
    tree = load_tree(repo, policy, LoadOptions(analyze=_rule_facts, keep_text=False))
    top = repo / tree.root
    defined: dict[str, list[str]] = {}
    for rel in tree.pages:
        for rule in tree.facts.get(rel, {}).get("curator_ids", ()):
            defined.setdefault(rule, []).append(document_id(rel))
    pages: dict[str, CatalogPage] = {}
    for rel in tree.pages:
        if not tree.facts.get(rel, {}).get("curator_rule_page"):
            continue
        if not page_inside(repo, tree.root, document_id(rel)):
            continue  # never read through a symlink that leaves the clone
        if linked_part(repo, tree.root, document_id(rel)) is not None:
            continue  # never written (kbkit.curator.confine); its IDs stay taken
        data = (top / rel).read_bytes()
        folder = rel.rsplit("/", 1)[0]
        index_rel = f"{folder}/{policy.data['index_page']}"
        index = tree.pages.get(index_rel)
        entry = catalog_entry(rel, data, policy, index)
        pages[entry.document_id] = entry
    slots = _new_page_slots(repo, tree, policy, pages)
    return Catalog(pages, {k: tuple(v) for k, v in defined.items()}, tree.root, slots)


def slot_page(slot: NewPageSlot) -> CatalogPage:
    """A slot as the empty rule page it would be (no prefix, no rules, kbkit's style)."""
    return CatalogPage(
        slot.document_id,
        "",
        slot.owner,
        slot.owner_summary,
        None,
        (),
        (),
        EMPTY_STYLE,
        3,
        "—",
        sha256(b""),
    )


def _new_page_slots(
    repo: Path, tree: Any, policy: Policy, pages: dict[str, CatalogPage]
) -> dict[str, NewPageSlot]:
    """Owner folders with an index page and no rule page: each may get a first one."""
    index_name = policy.data["index_page"]
    pattern = page_name_pattern(policy)
    taken = {d.rsplit("/", 1)[0] for d in pages}
    taken |= {rel.rsplit("/", 1)[0] for rel in tree.pages if pattern.search(rel.rsplit("/", 1)[-1])}
    top = repo / tree.root
    slots: dict[str, NewPageSlot] = {}
    for rel in sorted(tree.pages):
        folder, _, name = rel.rpartition("/")
        if name != index_name or not folder or folder in taken or not owner_folder(folder, policy):
            continue
        file_name = slot_name(folder, policy, pattern)
        index_id = document_id(rel)
        if file_name is None or not page_inside(repo, tree.root, index_id):
            continue
        if linked_part(repo, tree.root, index_id) is not None:
            continue  # the index would get a row: a symlinked one is never written
        new_id = document_id(f"{folder}/{file_name}")
        if (top / folder / file_name).exists() or not page_inside(repo, tree.root, new_id):
            continue
        data = (top / rel).read_bytes()
        tables = index_shapes(data)
        if not tables:
            continue  # the index has no table or list to register the page in
        summary = owner_summary(tree.pages.get(rel))
        slots[new_id] = NewPageSlot(new_id, index_id, summary, sha256(data), tables)
    return slots
