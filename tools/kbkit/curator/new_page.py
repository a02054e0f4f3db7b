"""New rule pages: an owner folder's first rule page, proposed like a section.

The catalog offers one slot per existing owner folder (a folder with an index page under a
root, neither a root itself nor an owner axis, group or evidence folder, whose index holds a
table or a list to register it in) that has no rule page yet; its name is the first of `rules.md`, `rules-<folder>.md`,
`rules-<folder>.html.md` that the policy's `rules.page_name` accepts. The page's bytes
start as a skeleton kbkit writes from the policy (frontmatter: title, dates from the clock,
`type`, the owner index's `tags` and any other required key the index carries; then the
`# title` line), the proposed sections are planned on it like appends, and the folder's
index gains one inserted table row or list item (its own shape) that links the new file. Nothing else changes.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

from kbkit.curator.item_list import find_lists, list_names, place_item
from kbkit.curator.layout import Layout
from kbkit.curator.table import TableRow, TableRows, render_row, table_names
from kbkit.infra.charset import INVISIBLE
from kbkit.pages.page import Page
from kbkit.policy.model import Policy

_PLAIN = re.compile(r"^[A-Za-z0-9_.-]+$")  # a YAML scalar that needs no quotes
_FILLED = ("title", "created", "updated", "type")  # keys kbkit writes itself


class NewPageSlot(NamedTuple):
    """An owner folder that may get its first rule page (what the catalog offers)."""

    document_id: str  # the page it would be, e.g. repos/kbkit/ci/rules
    owner: str  # document ID of the folder's index page
    owner_summary: str
    index_sha256: str
    tables: tuple[str, ...]  # the index's tables and lists, as the prompt names them

    @property
    def file_name(self) -> str:
        return f"{self.document_id.rsplit('/', 1)[-1]}.md"

    def to_dict(self) -> dict[str, Any]:
        return {**self._asdict(), "tables": list(self.tables)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> NewPageSlot:
        return cls(**{**data, "tables": tuple(data["tables"])})


class NewPage(NamedTuple):
    """What an accepted row that creates a page carries besides its section."""

    title: str
    index_row: TableRow  # inserted into the owner's index
    index_page: str  # document ID of the owner's index page
    index_sha256: str

    def wire(self) -> dict[str, Any]:
        """The row's `new_page` field as the model sent it."""
        return {"title": self.title, "index_row": self.index_row.to_dict()}

    def to_dict(self) -> dict[str, Any]:
        return {**self._asdict(), "index_row": self.index_row.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> NewPage:
        return cls(
            data["title"],
            TableRow.from_dict(data["index_row"]),
            data["index_page"],
            data["index_sha256"],
        )


def slot_name(folder: str, policy: Policy, pattern: re.Pattern[str]) -> str | None:
    """The file name a first rule page of `folder` takes (None: the policy accepts none)."""
    last = folder.rsplit("/", 1)[-1].lower()
    for name in ("rules.md", f"rules-{last}.md", f"rules-{last}.html.md"):
        if pattern.search(name):
            return name
    return None


def owner_folder(folder: str, policy: Policy) -> bool:
    """Whether a folder (relative to the knowledge root) may hold an owner's rules."""
    parts = folder.split("/")
    if len(parts) < 2 or not policy.under_roots(folder):
        return False  # a root is not an owner
    skipped = set(policy.data.get("group_dirs") or ()) | set(policy.data.get("evidence_dirs") or ())
    if skipped & set(parts[1:]):
        return False
    axes = set((policy.data.get("owners") or {}).get("axes") or ())
    return parts[-1] not in axes


def _scalar(value: Any) -> str:
    """A frontmatter value on one line (flow style; JSON quoting is valid YAML)."""
    if isinstance(value, list):
        return "[" + ", ".join(_scalar(v) for v in value) + "]"
    if isinstance(value, str) and _PLAIN.match(value) and not value[:1].isdigit():
        return value
    if isinstance(value, bool | int | float) or value is None:
        return json.dumps(value)
    return json.dumps(str(value), ensure_ascii=False)


def skeleton(title: str, index: Page, policy: Policy, today: str) -> bytes | str:
    """The new page before its sections, or why kbkit cannot write its frontmatter."""
    page_type = policy.data["rules"].get("page_type") or "rule"
    lines = [
        "---",
        f"title: {json.dumps(title, ensure_ascii=False)}",
        f"created: {today}",
        f"updated: {today}",
        f"type: {_scalar(page_type)}",
    ]
    required = [str(k) for k in (policy.data.get("frontmatter") or {}).get("required") or ()]
    for key in dict.fromkeys([*required, "tags"]):
        if key in _FILLED:
            continue
        value = index.meta.get(key)
        if value is None:
            if key == "tags" and key not in required:
                continue
            return f"the policy requires frontmatter key {key!r} and the owner's index has none"
        lines.append(f"{key}: {_scalar(value)}")
    lines += ["---", "", f"# {title}", ""]
    return "\n".join(lines).encode("utf-8")


def new_page_layout(layout: Layout, group: str | None) -> Layout:
    """A new page takes the shape its first section chooses: `## group` + `###` rules when
    it opens a group, else top-level `##` rules (and no group level)."""
    if group is not None:
        return layout
    return layout._replace(level=2, group_rule_level=None)


def title_problem(title: Any) -> str | None:
    """Why a new page's title cannot be written (None: it can)."""
    if not isinstance(title, str) or not title.strip():
        return "the title is empty"
    if title != title.strip() or "\n" in title or "\r" in title:
        return "the title is one line without leading or trailing spaces"
    if INVISIBLE.search(title) or title.startswith("#"):
        return "the title is plain text"
    return None


def index_insert(lines: list[str], row: TableRow) -> tuple[int, str] | str:
    """Where the registering row goes in the index (the 1-based line it is inserted before)
    and its line, or why it cannot go in. The index's own shape decides: a table row where
    the heading holds a table, else a list item (`cells`: one, the item's text)."""
    tables = TableRows(lines)
    wanted = row.heading.strip().lstrip("#").strip() if row.heading is not None else None
    if any(t.heading == wanted for t in tables.tables):
        placed = tables.place(row)
        if isinstance(placed, str):
            return placed
        tables.add(row, *placed)
        return next(iter(tables.insertions())), render_row(row.cells)
    if len(row.cells) != 1:
        return f"the index lists its pages under {row.heading!r}: one cell, the item's text"
    return place_item(find_lists(lines), row.heading, row.table, row.after_row, row.cells[0])


def index_row_problem(row: TableRow, index_lines: list[str], file_name: str) -> str | None:
    """Why this row cannot register the page in the owner's index (None: it can)."""
    placed = index_insert(index_lines, row)
    if isinstance(placed, str):
        return f"index_row: {placed}"
    link = re.compile(r"\]\(<?(?:\./)?" + re.escape(file_name) + r"(?:#[^)\s]*)?>?\)")
    if not any(link.search(cell) for cell in row.cells):
        return f"index_row: no cell links the new page ({file_name})"
    return None


MAX_SHAPES = 6  # an index with many fact lists would otherwise swell the prompt


def index_shapes(data: bytes) -> tuple[str, ...]:
    """Where the index registers pages, as the prompt names them: its tables, or its lists
    when it has no table (at most MAX_SHAPES)."""
    lines = [line.rstrip("\r") for line in data.decode("utf-8", "replace").split("\n")]
    return (table_names(lines) or list_names(lines))[:MAX_SHAPES]
