"""Routing tables grow with the rules: insert-only table rows (#14 point 2)."""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from kbkit.curator import KnowledgeCurationError, KnowledgeCurator
from kbkit.curator.plan import check_postcondition
from tests.curator.conftest import WRITING, batch, make_clone, row
from tests.reads_alike import assert_reads_alike, joined

PAGE = f"knowledge/{WRITING}.md"
TITLE = "# Rules for writing knowledge pages"
TABLE = """
## Routing

| Topic | Rules | Where |
|---|---|---|
| Page shape | `WRITE-1a`–`WRITE-1c` | frontmatter, size |
| Safe text | `WRITE-2a`, `WRITE-2b` | secrets, commands |
| Links | `WRITE-3a` | relative links |
"""


def _clone(tmp_path: Path) -> Path:
    """kbkit's tree with a routing table on the writing rules page, under `## Routing`."""
    clone = make_clone(tmp_path / "c", validators="real")
    page = clone / PAGE
    text = page.read_text()
    head, rest = text.split("\n## 1. Page shape", 1)
    page.write_text(f"{head}{TABLE}\n## 1. Page shape{rest}")
    return clone


def _table_row(after: str | None, cells: list[str], heading: str = "Routing") -> dict[str, Any]:
    return {"heading": heading, "table": 1, "after_row": after, "cells": cells}


def _validate(clone: Path, *rows: dict[str, Any]) -> Any:
    curator = KnowledgeCurator(clone, today="2026-12-01")
    return curator, curator.validate_proposals({"proposals": list(rows)}, batch())


NEW = "| Link targets | `WRITE-3b` | inside the tree |"


@pytest.mark.slow
@pytest.mark.parametrize("after", ["Links", None])
def test_a_row_goes_after_the_named_row_or_at_the_end(tmp_path: Path, after: str | None) -> None:
    clone = _clone(tmp_path)
    base = (clone / PAGE).read_text()
    cells = ["Link targets", "`WRITE-3b`", "inside the tree"]
    curator, validation = _validate(clone, row(table_rows=[_table_row(after, cells)]))
    assert validation.rejected == ()
    curator.apply(validation)
    result = (clone / PAGE).read_text()
    assert "| Links | `WRITE-3a` | relative links |\n" + NEW + "\n" in result
    assert validation.accepted[0].section in result
    old, new = base.split("\n"), result.split("\n")
    end = old.index("---", 1)
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    changed = [(t, i1) for t, i1, _, _, _ in matcher.get_opcodes() if t not in ("equal", "insert")]
    assert changed and all(t == "replace" and i1 < end for t, i1 in changed)  # updated: only


@pytest.mark.slow
def test_rows_anchor_on_rows_of_earlier_proposals(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    first = row(table_rows=[_table_row("Safe text", ["Targets", "`WRITE-3b`", "tree"])])
    second = row(
        "WRITE-3c",
        title="Anchors name headings that exist",
        after="WRITE-3b",
        table_rows=[_table_row("Targets", ["Anchors", "`WRITE-3c`", "headings"])],
    )
    curator, validation = _validate(clone, first, second)
    assert validation.rejected == ()
    plan = curator.plan(validation)
    curator.apply(validation)
    lines = (clone / PAGE).read_text().split("\n")
    at = lines.index("| Safe text | `WRITE-2a`, `WRITE-2b` | secrets, commands |")
    assert lines[at + 1 : at + 4] == [
        "| Targets | `WRITE-3b` | tree |",
        "| Anchors | `WRITE-3c` | headings |",
        "| Links | `WRITE-3a` | relative links |",
    ]
    assert len(plan.changes) == 1


@pytest.mark.slow
def test_an_escaped_pipe_is_one_cell(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    cells = ["Pipes", "`WRITE-3b`", r"a \| b"]
    curator, validation = _validate(clone, row(table_rows=[_table_row(None, cells)]))
    assert validation.rejected == ()
    curator.apply(validation)
    assert "| Pipes | `WRITE-3b` | a \\| b |\n" in (clone / PAGE).read_text()


@pytest.mark.parametrize(
    ("table_row", "message"),
    [
        (_table_row("Links", ["Too", "few"]), "3 columns, the row 2 cells"),
        (_table_row("Links", ["A", "B", "C", "D"]), "3 columns, the row 4 cells"),
        (_table_row("Links", ["A", "x | y", "C"]), "unescaped '|'"),
        (_table_row("Links", ["A", "two\nlines", "C"]), "one line"),
        (_table_row("Links", ["", "B", "C"]), "may not be empty"),
        (_table_row("Nope", ["A", "B", "C"]), "no row of table 1 under 'Routing'"),
        (_table_row("Links", ["A", "B", "C"], heading="Elsewhere"), "no table 1 under"),
        ({**_table_row("Links", ["A", "B", "C"]), "table": 2}, "no table 2 under"),
    ],
)
def test_a_bad_row_is_refused_and_nothing_changes(
    tmp_path: Path, table_row: dict[str, Any], message: str
) -> None:
    clone = _clone(tmp_path)
    base = (clone / PAGE).read_bytes()
    _, validation = _validate(clone, row(table_rows=[table_row]))
    assert validation.accepted == ()
    (rejected,) = validation.rejected
    assert rejected.reason == "table-row" and message in rejected.message
    assert (clone / PAGE).read_bytes() == base


def test_a_row_anchored_on_a_rejected_proposal_row_is_refused(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    bad = row(table_rows=[_table_row("Links", ["Targets", "x"])])
    second = row(
        "WRITE-3c",
        title="Anchors name headings that exist",
        table_rows=[_table_row("Targets", ["Anchors", "`WRITE-3c`", "headings"])],
    )
    _, validation = _validate(clone, bad, second)
    assert [r.reason for r in validation.rejected] == ["table-row", "table-row"]


def test_a_reply_without_table_rows_still_validates(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    old = row()
    del old["table_rows"]
    _, validation = _validate(clone, old)
    assert validation.rejected == () and validation.accepted[0].table_rows == ()


def test_the_plan_proves_the_rows_are_only_inserted(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    cells = ["Link targets", "`WRITE-3b`", "inside the tree"]
    curator, validation = _validate(clone, row(table_rows=[_table_row("Links", cells)]))
    plan = curator.plan(validation)
    assert plan.changes and plan.changes[0].insertions
    from kbkit.curator.apply import plan_all

    (page_plan,) = plan_all(clone, "knowledge", validation.accepted, curator.policy, "2026-12-01")
    assert [e.kind for e in page_plan.edits].count("table-row") == 1
    check_postcondition(page_plan, curator.policy)
    forged = page_plan._replace(result=page_plan.result.replace(b"| Links |", b"| LINKS |"))
    with pytest.raises(Exception, match="planned edit|base"):
        check_postcondition(forged, curator.policy)


def test_a_tampered_table_row_is_refused_at_apply(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    cells = ["Link targets", "`WRITE-3b`", "inside the tree"]
    curator, validation = _validate(clone, row(table_rows=[_table_row("Links", cells)]))
    data = validation.to_dict()
    data["accepted"][0]["table_rows"][0]["cells"][2] = "somewhere else"
    from kbkit.curator import KnowledgeProposalValidation

    forged = KnowledgeProposalValidation.from_dict(json.loads(json.dumps(data)))
    base = (clone / PAGE).read_bytes()
    with pytest.raises(KnowledgeCurationError, match="tampered"):
        curator.apply(forged)
    assert (clone / PAGE).read_bytes() == base


def test_the_prompt_lists_the_tables(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    curator = KnowledgeCurator(clone, today="2026-12-01")
    prompt = curator.build_prompt(batch()).text
    assert "tables: Routing #1: Topic | Rules | Where (3 rows)" in prompt
    assert "# Table rows" in prompt


def test_a_table_row_carries_no_javascript_link(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    cells = ["Targets", "[x](javascript:alert(1))", "tree"]
    _, validation = _validate(clone, row(table_rows=[_table_row("Links", cells)]))
    [rejected] = validation.rejected
    assert rejected.reason == "link-scheme" and rejected.message.startswith("a table row: ")


@settings(max_examples=800, deadline=None)
@given(joined(("#", "##", " ", "\t", "a", "b", "\r", "\n"), 14))
def test_heading_lines_are_read_as_the_lazy_pattern_reads_them(line: str) -> None:
    from kbkit.curator import item_list, table

    for module in (item_list, table):
        assert_reads_alike(module._HEADING, r"^(#{1,6})[ \t]+(.*?)[ \t#]*$", line)
