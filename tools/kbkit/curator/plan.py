"""Plan the bytes of one page after its accepted sections (pure; nothing is written).

Every change is an `Edit` on the base bytes: section and table-row insertions at line
boundaries, the date inside the `updated:` line, and new items at the end of the `sources:` list. Nothing
else is re-serialized. `check_postcondition` proves, from the result alone, that removing
the insertions and restoring the two frontmatter values gives back the base bytes.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

from kbkit.curator.arrangement import Arrangement, Entry
from kbkit.curator.layout import Layout, page_layout
from kbkit.curator.new_page import index_insert
from kbkit.curator.proposals import AcceptedProposal
from kbkit.curator.table import TableRow, TableRows, render_row
from kbkit.pages.page import parse_page
from kbkit.policy.model import Policy
from kbkit.tree.rules import rule_ids

_UPDATED = re.compile(rb"^updated:[ \t]*[\"']?(\d{4}-\d{2}-\d{2})")
_SOURCES = re.compile(rb"^sources:[ \t]*")
UPDATED, SOURCES, SECTION, TABLE_ROW = "updated", "sources", "section", "table-row"


class PlanError(Exception):
    """A plan that would break the append-only contract (a bug or a hostile page)."""


class Edit(NamedTuple):
    offset: int  # byte offset in the base
    old: bytes
    new: bytes
    kind: str  # UPDATED, SOURCES, SECTION or TABLE_ROW
    rule_id: str | None = None


class Insertion(NamedTuple):
    proposal_id: str
    rule_id: str
    line: int  # 1-based line of the section heading in the new page
    text: str

    def to_dict(self) -> dict[str, Any]:
        return self._asdict()

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Insertion:
        return cls(**data)


class PagePlan(NamedTuple):
    document_id: str
    base: bytes
    result: bytes
    edits: tuple[Edit, ...]
    insertions: tuple[Insertion, ...]
    updated: tuple[str, str] | None  # (old, new) date
    sources_added: tuple[str, ...]
    created: bool = False  # the page did not exist: `base` is the skeleton kbkit wrote


def _line_starts(data: bytes) -> list[int]:
    starts = [0]
    pos = data.find(b"\n")
    while pos >= 0:
        starts.append(pos + 1)
        pos = data.find(b"\n", pos + 1)
    return starts


def _offset_of_line(data: bytes, starts: list[int], line: int) -> int:
    """Byte offset where 1-based `line` starts (len(data) past the end)."""
    if line - 1 < len(starts) and starts[line - 1] < len(data):
        return starts[line - 1]
    return len(data)


def _section_edits(
    data: bytes, layout: Layout, proposals: list[AcceptedProposal], eol: bytes
) -> list[Edit]:
    starts = _line_starts(data)
    arrangement = Arrangement(layout)
    by_id = {p.rule_id: p for p in proposals}
    for proposal in proposals:
        spot = arrangement.locate(proposal.after)
        if spot is None:
            raise PlanError(f"{proposal.rule_id}: the anchor {proposal.after!r} is not on the page")
        level = layout.group_rule_level if proposal.group is not None else None
        arrangement.add(spot, Entry(proposal.rule_id, proposal.group, level or spot.level))
    edits = []
    marker = "#" * ((layout.group_rule_level or layout.level) - 1)
    for line, entries in sorted(arrangement.at.items()):
        offset = _offset_of_line(data, starts, line)
        items = [by_id[e.rule_id] for e in entries]
        lead = eol if offset == len(data) and data and not data.endswith(b"\n") else b""
        blob = lead + b"".join(_blob(p, marker, eol) for p in items)
        following = data[offset : data.find(b"\n", offset) if b"\n" in data[offset:] else len(data)]
        if offset < len(data) and following.strip():
            blob += eol
        edits.append(Edit(offset, b"", blob, SECTION, ",".join(p.rule_id for p in items)))
    return edits


def _table_edits(data: bytes, proposals: list[AcceptedProposal], eol: bytes) -> list[Edit]:
    """Each new table row as a line inserted after the row it follows (or the table's end)."""
    rows = [(p.rule_id, r) for p in proposals for r in p.table_rows]
    return row_edits(data, rows, eol)


def row_edits(data: bytes, rows: list[tuple[str, TableRow]], eol: bytes) -> list[Edit]:
    """Insert each (owner, row) into the page's tables in order, as line inserts."""
    if not rows:
        return []
    text = data.decode("utf-8", "replace")
    tables = TableRows([line.rstrip("\r") for line in text.split("\n")])
    for owner, table_row in rows:
        placed = tables.place(table_row)
        if isinstance(placed, str):
            raise PlanError(f"{owner}: {placed}")
        tables.add(table_row, *placed)
    starts = _line_starts(data)
    edits = []
    for line, new in sorted(tables.insertions().items()):
        offset = _offset_of_line(data, starts, line)
        lead = eol if offset == len(data) and data and not data.endswith(b"\n") else b""
        blob = lead + b"".join(render_row(r.cells).encode() + eol for r in new)
        edits.append(Edit(offset, b"", blob, TABLE_ROW))
    return edits


def _blob(proposal: AcceptedProposal, marker: str, eol: bytes) -> bytes:
    """One section (with its new group heading, if any) and a blank line before it."""
    text = proposal.section
    if proposal.group is not None:
        text = f"{marker} {proposal.group}\n\n{text}"
    return eol + text.replace("\n", eol.decode()).encode() + eol


def _frontmatter_lines(data: bytes, end_line: int) -> list[tuple[int, bytes]]:
    starts = _line_starts(data)
    out = []
    for n in range(2, end_line):
        begin = starts[n - 1]
        stop = data.find(b"\n", begin)
        out.append((begin, data[begin : stop if stop >= 0 else len(data)].rstrip(b"\r")))
    return out


def _updated_edit(
    lines: list[tuple[int, bytes]], today: str
) -> tuple[Edit | None, tuple[str, str] | None]:
    for begin, line in lines:
        match = _UPDATED.match(line)
        if match:
            old = match.group(1).decode()
            if today <= old:
                return None, None
            return Edit(begin + match.start(1), match.group(1), today.encode(), UPDATED), (
                old,
                today,
            )
    return None, None


def _flow_close(data: bytes, start: int, stop: int) -> int | None:
    """Offset of the `]` closing the flow list opened at `start` (quotes respected)."""
    quote = None
    pos = start
    while (pos := pos + 1) < stop:
        char = data[pos : pos + 1]
        if quote:
            if char == b"\\" and quote == b'"':
                pos += 1  # the escaped character never closes the string
            elif char == quote:
                quote = None
        elif char in (b'"', b"'"):
            quote = char
        elif char == b"]":
            return pos
        elif char == b"[":
            return None  # nested lists: not a list of sources we can extend safely
    return None


def _sources_edit(
    data: bytes, lines: list[tuple[int, bytes]], close_at: int, new: list[str], eol: bytes
) -> Edit | None:
    items = [json.dumps(s, ensure_ascii=False).encode() for s in new]
    if not items:
        return None
    for index, (begin, line) in enumerate(lines):
        match = _SOURCES.match(line)
        if not match:
            continue
        rest = line[match.end() :]
        if rest.startswith(b"["):
            close = _flow_close(data, begin + match.end(), close_at)
            if close is None:
                return None
            inner_end = close
            while data[inner_end - 1 : inner_end] in (b" ", b"\t", b"\n", b"\r"):
                inner_end -= 1
            empty = data[inner_end - 1 : inner_end] == b"["
            text = b", ".join(items) if empty else b", " + b", ".join(items)
            return Edit(inner_end, b"", text, SOURCES)
        if rest.strip() and not rest.lstrip().startswith(b"#"):
            return None  # a scalar: nothing to append to
        last = None
        for begin2, line2 in lines[index + 1 :]:
            if line2.lstrip().startswith(b"- ") and line2[:1] in (b" ", b"-"):
                last = (begin2, line2)
            elif line2[:1] in (b" ", b"\t") and last is not None:
                continue
            else:
                break
        if last is None:
            return None
        indent = last[1][: len(last[1]) - len(last[1].lstrip())]
        offset = last[0] + len(last[1])
        if data[offset : offset + 1] == b"\r":
            offset += 1
        offset += 1  # after the newline of the last item line
        text = b"".join(indent + b"- " + item + eol for item in items)
        return Edit(offset, b"", text, SOURCES)
    if not lines:
        return None
    # After the last key's own line ending (frontmatter and body may end lines differently).
    newline = data.find(b"\n", lines[-1][0])
    begin = newline + 1
    line_eol = b"\r\n" if data[newline - 1 : newline] == b"\r" else b"\n"
    return Edit(begin, b"", b"sources: [" + b", ".join(items) + b"]" + line_eol, SOURCES)


def splice(data: bytes, edits: list[Edit]) -> bytes:
    out = []
    pos = 0
    for edit in sorted(edits, key=lambda e: e.offset):
        if edit.offset < pos or data[edit.offset : edit.offset + len(edit.old)] != edit.old:
            raise PlanError("overlapping or misplaced edit")
        out.append(data[pos : edit.offset])
        out.append(edit.new)
        pos = edit.offset + len(edit.old)
    out.append(data[pos:])
    return b"".join(out)


def plan_page(
    document_id: str,
    rel: str,
    data: bytes,
    proposals: list[AcceptedProposal],
    policy: Policy,
    today: str,
    layout: Layout | None = None,
) -> PagePlan:
    """The new bytes of one page and the edits that make them (`layout`: the shape a new
    page's first section chose, instead of the one its skeleton reads as)."""
    page = parse_page(rel, data)
    layout = layout or page_layout(page, policy)
    eol = b"\r\n" if b"\r\n" in data else b"\n"
    # Table rows first: at the same offset a row stays next to its table, before a section.
    edits = _table_edits(data, proposals, eol) + _section_edits(data, layout, proposals, eol)
    updated = None
    added: list[str] = []
    if page.frontmatter.present and page.frontmatter.end_line:
        lines = _frontmatter_lines(data, page.frontmatter.end_line)
        edit, updated = _updated_edit(lines, today)
        if edit is not None:
            edits.append(edit)
        existing = page.meta.get("sources")
        have = {str(s) for s in existing} if isinstance(existing, list) else set()
        for p in proposals:
            if policy.data["rules"].get("add_sources", True):
                added.extend(c for c in p.citations if c not in have and c not in added)
        close_at = _line_starts(data)[page.frontmatter.end_line - 1]
        source_edit = _sources_edit(data, lines, close_at, added, eol)
        if source_edit is None:
            added = []
        else:
            edits.append(source_edit)
    result = splice(data, edits)
    new_rules = rule_ids(parse_page(rel, result), policy)
    heads = {r.id: r.line for r in new_rules}
    insertions = tuple(
        Insertion(p.id, p.rule_id, heads.get(p.rule_id, 0), p.section) for p in proposals
    )
    plan = PagePlan(
        document_id,
        data,
        result,
        tuple(sorted(edits, key=lambda e: e.offset)),
        insertions,
        updated,
        tuple(added),
    )
    old_ids = [r.id for r in rule_ids(page, policy)]
    check_postcondition(plan, policy, old_ids, [r.id for r in new_rules])
    return plan


def check_postcondition(
    plan: PagePlan,
    policy: Policy,
    old_ids: list[str] | None = None,
    new_ids: list[str] | None = None,
) -> None:
    """Undo every edit on the result alone and demand the base; old IDs stay in order.
    (`old_ids`/`new_ids`: the rule IDs of base and result when the caller parsed them.)"""
    result = plan.result
    restored = []
    pos = 0
    shift = 0
    for edit in sorted(plan.edits, key=lambda e: e.offset):
        at = edit.offset + shift
        if result[at : at + len(edit.new)] != edit.new:
            raise PlanError(f"{plan.document_id}: the result does not hold the planned edit")
        if edit.kind != UPDATED and edit.old:
            raise PlanError(f"{plan.document_id}: only the updated: date may be replaced")
        restored.append(result[pos:at])
        restored.append(edit.old)
        pos = at + len(edit.new)
        shift += len(edit.new) - len(edit.old)
    restored.append(result[pos:])
    if b"".join(restored) != plan.base:
        raise PlanError(f"{plan.document_id}: removing the insertions does not give the base")
    rel = f"{plan.document_id}.md"
    if old_ids is None:
        old_ids = [r.id for r in rule_ids(parse_page(rel, plan.base), policy)]
    if new_ids is None:
        new_ids = [r.id for r in rule_ids(parse_page(rel, result), policy)]
    added = {i.rule_id for i in plan.insertions}
    if [i for i in new_ids if i not in added] != old_ids:
        raise PlanError(f"{plan.document_id}: the old rule IDs are not all kept in order")
    if sorted(i for i in new_ids if i in added) != sorted(added):
        raise PlanError(f"{plan.document_id}: a new rule ID is missing or defined twice")


def plan_index(
    document_id: str, rel: str, data: bytes, rows: list[TableRow], policy: Policy, today: str
) -> PagePlan:
    """An owner's index registering a new page: its inserted row or item, the `updated:` bump."""
    page = parse_page(rel, data)
    eol = b"\r\n" if b"\r\n" in data else b"\n"
    lines = [line.rstrip("\r") for line in data.decode("utf-8", "replace").split("\n")]
    starts = _line_starts(data)
    edits = []
    for index_row in rows:
        placed = index_insert(lines, index_row)
        if isinstance(placed, str):
            raise PlanError(f"{document_id}: {placed}")
        offset = _offset_of_line(data, starts, placed[0])
        lead = eol if offset == len(data) and data and not data.endswith(b"\n") else b""
        edits.append(Edit(offset, b"", lead + placed[1].encode() + eol, TABLE_ROW))
    updated = None
    if page.frontmatter.present and page.frontmatter.end_line:
        edit, updated = _updated_edit(_frontmatter_lines(data, page.frontmatter.end_line), today)
        if edit is not None:
            edits.append(edit)
    result = splice(data, edits)
    plan = PagePlan(
        document_id, data, result, tuple(sorted(edits, key=lambda e: e.offset)), (), updated, ()
    )
    check_postcondition(plan, policy, [], [])  # an index defines no rules
    return plan
