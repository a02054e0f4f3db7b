"""Markdown tables of a rule page (routing tables) and the rows a proposal inserts into them.

A table is named by the heading above it (its text; None before the first heading) and its
position among the tables under that heading (1-based). A new row is inserted after the row
whose first cell matches `after_row`, before the first row (`^`), or at the table's end;
nothing else on the page moves.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from kbkit.infra.charset import INVISIBLE

_HEADING = re.compile(r"^(#{1,6})[ \t]+((?:.*[^ \t#\n])?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_DELIMITER = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
MAX_CELL_CHARS = 1000
START_ROW = "^"  # the `after_row` that inserts a row before the table's first row


class TableRow(NamedTuple):
    """A row a proposal inserts: which table, after which row, the cells."""

    heading: str | None  # the heading the table stands under (None: before any heading)
    table: int  # 1-based position among the tables under that heading
    after_row: str | None  # first cell of the row it follows; "^": first; None: at the end
    cells: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {**self._asdict(), "cells": list(self.cells)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableRow:
        return cls(data["heading"], int(data["table"]), data["after_row"], tuple(data["cells"]))

    def name(self) -> str:
        return f"table {self.table} under {self.heading!r}"


class Table(NamedTuple):
    heading: str | None
    position: int  # 1-based among the tables under `heading`
    columns: int
    header_line: int  # 1-based line of the header row
    rows: tuple[tuple[int, str], ...]  # (1-based line, first cell) of each body row
    end_line: int  # 1-based line right after the table's last line


def split_cells(line: str) -> list[str]:
    """The cells of one table line (outer pipes dropped, `\\|` kept inside a cell)."""
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    return [cell.strip() for cell in _UNESCAPED_PIPE.split(text)]


def find_tables(lines: list[str]) -> list[Table]:
    """Every pipe table of a page's lines (fenced code skipped), with its heading."""
    tables: list[Table] = []
    heading: str | None = None
    count: dict[str | None, int] = {}
    fence = None
    n = 0
    if lines and lines[0].rstrip("\r") == "---":  # frontmatter: `# ...` there is a comment
        n = next((i + 1 for i in range(1, len(lines)) if lines[i].rstrip("\r") == "---"), 0)
    while n < len(lines):
        line = lines[n]
        opener = _FENCE.match(line)
        if fence is not None:
            if opener and opener.group(1) == fence:
                fence = None
            n += 1
            continue
        if opener:
            fence = opener.group(1)
            n += 1
            continue
        heading_match = _HEADING.match(line)
        if heading_match:
            heading = heading_match.group(2).strip()
            n += 1
            continue
        nxt = lines[n + 1] if n + 1 < len(lines) else ""
        if line.lstrip().startswith("|") and _DELIMITER.match(nxt.strip()):
            columns = len(split_cells(line))
            rows = []
            end = n + 2
            while end < len(lines) and lines[end].lstrip().startswith("|"):
                rows.append((end + 1, split_cells(lines[end])[0]))
                end += 1
            count[heading] = count.get(heading, 0) + 1
            tables.append(Table(heading, count[heading], columns, n + 1, tuple(rows), end + 1))
            n = end
            continue
        n += 1
    return tables


def table_named(tables: list[Table], heading: str | None, index: int) -> Table | None:
    """The table under `heading` at 1-based `index` (None: there is none)."""
    wanted = heading.strip().lstrip("#").strip() if heading is not None else None
    return next((t for t in tables if t.heading == wanted and t.position == index), None)


def cells_problem(cells: tuple[str, ...], table: Table) -> str | None:
    """Why these cells cannot make a row of `table` (None: they can)."""
    if len(cells) != table.columns:
        return f"the table has {table.columns} columns, the row {len(cells)} cells"
    for number, cell in enumerate(cells, 1):
        if not cell.strip() and number == 1:
            return "the first cell names the row: it may not be empty"
        if "\n" in cell or "\r" in cell:
            return f"cell {number} spans lines: a table cell is one line"
        if _UNESCAPED_PIPE.search(cell):
            return f"cell {number} holds an unescaped '|': write it as '\\|'"
        if INVISIBLE.search(cell):
            return f"cell {number} holds an invisible or control character"
        if len(cell) > MAX_CELL_CHARS:
            return f"cell {number} is longer than {MAX_CELL_CHARS} characters"
        if cell != cell.strip():
            return f"cell {number} has leading or trailing spaces"
    return None


def render_row(cells: tuple[str, ...]) -> str:
    """One table line: `| a | b |`."""
    return "| " + " | ".join(cells) + " |"


class TableRows:
    """The tables of one page as the accepted rows of a reply leave them (first cells in
    order, base rows carry their line; new rows carry their index among the new ones)."""

    def __init__(self, lines: list[str]) -> None:
        self.tables = find_tables(lines)
        self.order: dict[tuple[str | None, int], list[tuple[str, int | None, int | None]]] = {
            (t.heading, t.position): [(cell, line, None) for line, cell in t.rows]
            for t in self.tables
        }
        self.added: list[TableRow] = []

    def copy(self) -> TableRows:
        """An independent copy (to try rows without committing to them)."""
        other = TableRows([])
        other.tables = self.tables
        other.order = {key: list(value) for key, value in self.order.items()}
        other.added = list(self.added)
        return other

    def place(self, row: TableRow) -> tuple[Table, int] | str:
        """Where `row` goes (its table, its position among the table's rows), or why not."""
        table = table_named(self.tables, row.heading, row.table)
        if table is None:
            return f"no {row.name()} on the page"
        problem = cells_problem(row.cells, table)
        if problem is not None:
            return problem
        rows = self.order[(table.heading, table.position)]
        if row.after_row is None:
            return table, len(rows)
        wanted = row.after_row.strip()
        if wanted == START_ROW:
            return table, 0
        for position, (cell, _, _) in enumerate(rows):
            if cell == wanted:
                return table, position + 1
        return f"no row of {row.name()} starts with {wanted!r}"

    def add(self, row: TableRow, table: Table, position: int) -> None:
        rows = self.order[(table.heading, table.position)]
        rows.insert(position, (row.cells[0], None, len(self.added)))
        self.added.append(row)

    def insertions(self) -> dict[int, list[TableRow]]:
        """1-based line -> the new rows that go right before it, in order."""
        out: dict[int, list[TableRow]] = {}
        for table in self.tables:
            line = table.header_line + 2  # before the first body row
            for _, base_line, new in self.order[(table.heading, table.position)]:
                if base_line is not None:
                    line = base_line + 1
                else:
                    assert new is not None
                    out.setdefault(line, []).append(self.added[new])
        return out


def table_names(lines: list[str]) -> tuple[str, ...]:
    """The page's tables as the prompt names them: heading, position, header cells."""
    return tuple(
        f"{t.heading or '(before the first heading)'} #{t.position}: "
        f"{' | '.join(split_cells(lines[t.header_line - 1]))} ({len(t.rows)} rows)"
        for t in find_tables(lines)
    )
