"""New rule pages on kbkit's own tree: an owner's first rule page, registered in its index."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from kbkit.curator import (
    KnowledgeCurationError,
    KnowledgeCurator,
    KnowledgeProposalValidation,
    KnowledgeValidatorError,
)
from tests.conftest import PROJECT
from tests.curator.conftest import WRITING, batch, make_clone, row

NEW = "repos/kbkit/ci/rules"
INDEX = "repos/kbkit/ci/_index"
LINK_ROW = ["rules for hooks and CI", "[rules](rules.md)", "`KCI-*`"]


def _new_page(
    cells: list[str] | None = None, after_row: str | None = "^", title: str = "kbkit CI rules"
) -> dict[str, Any]:
    index_row = {"heading": "Contents", "table": 1, "after_row": after_row, "cells": cells}
    return {"title": title, "index_row": {**index_row, "cells": cells or LINK_ROW}}


def _rows(**first: Any) -> list[dict[str, Any]]:
    new_page = first.pop("new_page", _new_page())
    return [
        row("KCI-1a", target=NEW, level=2, new_page=new_page, **first),
        row("KCI-1b", target=NEW, after="KCI-1a", level=2, title="Hooks run the installed kbkit"),
    ]


def _path(clone: Path, document_id: str) -> Path:
    return clone / "knowledge" / f"{document_id}.md"


EXPECTED = """---
title: "kbkit CI rules"
created: 2026-12-01
updated: 2026-12-01
type: rule
tags: [kbkit, ci]
sources: ["PR #101"]
---

# kbkit CI rules

"""


def test_catalog_offers_owners_without_a_rule_page(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "clone", "real")
    curator = KnowledgeCurator(clone, today="2026-12-01")
    catalog = curator.catalog()
    # Owners with an index and no rule page; never a root, an owner axis or a guides folder.
    assert sorted(catalog.new_pages) == [NEW, "repos/kbkit/pipeline/rules"]
    slot = catalog.new_pages[NEW]
    assert slot.owner == INDEX and slot.file_name == "rules.md"
    # Where the index registers pages: its tables (its lists only when it has no table).
    assert slot.tables == ("Contents #1: When you need | Look at | Notes (1 rows)",)
    prompt = curator.build_prompt(batch())
    assert f"- new page `{NEW}` (file rules.md, does not exist yet)" in prompt.text
    assert NEW in prompt.targets
    schema = curator.proposal_schema(5, batch())
    assert NEW in schema["properties"]["proposals"]["items"]["properties"]["target"]["enum"]
    assert type(catalog).from_dict(json.loads(json.dumps(catalog.to_dict()))) == catalog


def test_the_prompt_lists_the_owners_of_the_repositories_the_evidence_comes_from(
    tmp_path: Path,
) -> None:
    """Owners under repos/<name>/ are listed only for a batch with events from <name>
    (`org/name` matches, in any letter case); the others stay valid targets, and the
    prompt says how many it left out."""
    from kbkit.curator import KnowledgeEvidenceBatch
    from tests.curator.conftest import event

    clone = make_clone(tmp_path / "clone", "real")
    curator = KnowledgeCurator(clone, today="2026-12-01")
    elsewhere = KnowledgeEvidenceBatch([event(repo="acme/billing")], 5)
    prompt = curator.build_prompt(elsewhere)
    assert "- new page `repos/kbkit/" not in prompt.text
    assert "(2 more owner(s) in repositories this evidence does not come from" in prompt.text
    assert NEW in prompt.targets
    assert (
        NEW
        in curator.proposal_schema(5, elsewhere)["properties"]["proposals"]["items"]["properties"][
            "target"
        ]["enum"]
    )
    both = KnowledgeEvidenceBatch([event(repo="acme/billing"), event("PR #2", repo="KBKIT")], 5)
    text = curator.build_prompt(both).text
    assert f"- new page `{NEW}`" in text and "- new page `repos/kbkit/pipeline/rules`" in text
    assert "more owner(s)" not in text


@pytest.mark.slow
def test_new_page_is_created_and_registered_in_the_index(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "clone", "real")
    index_before = _path(clone, INDEX).read_bytes()
    curator = KnowledgeCurator(clone, today="2026-12-01")
    validation = curator.validate_proposals({"proposals": _rows()}, batch())
    assert not validation.rejected, validation.rejected
    again = KnowledgeProposalValidation.from_dict(json.loads(json.dumps(validation.to_dict())))
    assert again == validation
    plan = curator.plan(again)
    assert not _path(clone, NEW).exists()  # a dry run writes nothing
    result = curator.apply(again)
    assert result.validators is not None and result.validators.status == "passed"
    created = _path(clone, NEW).read_text()
    sections = "\n\n".join(p.section for p in validation.accepted)
    assert created == EXPECTED + sections + "\n"
    assert created.count("\n## KCI-") == 2  # top-level rules: the first row opened no group
    # The index: one inserted row on top of its table and the updated: bump, nothing else.
    row_line = b"| rules for hooks and CI | [rules](rules.md) | `KCI-*` |\n"
    header = b"|---|---|---|\n"
    expected = index_before.replace(header, header + row_line).replace(
        b"updated: 2026-11-26", b"updated: 2026-12-01"
    )
    assert _path(clone, INDEX).read_bytes() == expected
    changes = {c.document_id: c for c in result.changes}
    assert changes[NEW].created and not changes[INDEX].created
    assert [c.to_dict() for c in plan.changes] == [c.to_dict() for c in result.changes]
    # The page is now an ordinary rule page of the catalog: no slot any more.
    catalog = curator.catalog()
    assert NEW in catalog.pages and NEW not in catalog.new_pages
    assert catalog.pages[NEW].rule_ids == ("KCI-1a", "KCI-1b")


@pytest.mark.slow
def test_a_new_page_with_a_group_holds_level_three_rules(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "clone", "real")
    curator = KnowledgeCurator(clone, today="2026-12-01")
    rows = [
        row("KCI-1a", target=NEW, group="1. Hooks", new_page=_new_page(after_row=None)),
        row("KCI-1b", target=NEW, after="KCI-1a", title="Hooks run the installed kbkit"),
        row("KCI-2a", target=NEW, group="2. CI", after="1. Hooks", title="CI pins the kbkit"),
    ]
    validation = curator.validate_proposals({"proposals": rows}, batch())
    assert not validation.rejected, validation.rejected
    curator.apply(validation)
    text = _path(clone, NEW).read_text()
    heads = [line for line in text.split("\n") if line.startswith("#")]
    assert [h.split(" —")[0] for h in heads] == [
        "# kbkit CI rules",
        "## 1. Hooks",
        "### KCI-1a",
        "### KCI-1b",
        "## 2. CI",
        "### KCI-2a",
    ]
    index = _path(clone, INDEX).read_text().split("\n")
    assert index[-2].startswith("| rules for hooks and CI")  # after_row null: the table's end


CASES = {
    "first row without new_page": (
        lambda: [row("KCI-1a", target=NEW, level=2)],
        0,
        "new-page",
        "does not exist yet",
    ),
    "new_page on an existing page": (
        lambda: [row("WRITE-3b", target=WRITING, new_page=_new_page())],
        0,
        "new-page",
        "the page exists",
    ),
    "index row without a link": (
        lambda: _rows(new_page=_new_page(["CI rules", "rules.md", "x"])),
        0,
        "new-page",
        "no cell links the new page (rules.md)",
    ),
    "index row in no table": (
        lambda: _rows(
            new_page={**_new_page(), "index_row": {**_new_page()["index_row"], "table": 2}}
        ),
        0,
        "new-page",
        "no table 2 under 'Contents'",
    ),
    "index row with the wrong cells": (
        lambda: _rows(new_page=_new_page(["[rules](rules.md)", "x"])),
        0,
        "new-page",
        "3 columns, the row 2 cells",
    ),
    "a title that is a heading": (
        lambda: _rows(new_page=_new_page(title="# CI rules")),
        0,
        "new-page",
        "plain text",
    ),
    "a row after a rejected creator": (
        lambda: [
            row("KCI-1a", target=NEW, level=3, new_page=_new_page()),  # ## expected
            row("KCI-1b", target=NEW, after="KCI-1a", level=2, title="Second rule here"),
        ],
        1,
        "new-page",
        "created by row 0 of this reply, which was rejected (heading:",
    ),
    "a second creator": (
        lambda: [_rows()[0], row("KCI-1b", target=NEW, level=2, new_page=_new_page())],
        1,
        "new-page",
        "row 0 of this reply creates the page",
    ),
    "a taken prefix": (
        lambda: [row("WRITE-9a", target=NEW, level=2, new_page=_new_page())],
        0,
        "rule-id-prefix",
        "WRITE belongs to",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_new_page_refusals(tmp_path: Path, case: str) -> None:
    rows, index, reason, message = CASES[case]
    clone = make_clone(tmp_path / "clone", "real")
    curator = KnowledgeCurator(clone, today="2026-12-01")
    validation = curator.validate_proposals({"proposals": rows()}, batch())
    rejected = {r.model_index: r for r in validation.rejected}
    assert index in rejected, validation.accepted
    assert rejected[index].reason == reason
    assert message in rejected[index].message


@pytest.mark.slow
def test_failed_gate_removes_the_new_page(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "clone", "fail")
    index_before = _path(clone, INDEX).read_bytes()
    curator = KnowledgeCurator(clone, today="2026-12-01")
    validation = curator.validate_proposals({"proposals": _rows()}, batch())
    with pytest.raises(KnowledgeValidatorError) as caught:
        curator.apply(validation)
    assert caught.value.result.rolled_back
    assert not _path(clone, NEW).exists()
    assert _path(clone, INDEX).read_bytes() == index_before


def test_stale_new_page_is_refused_before_any_write(tmp_path: Path) -> None:
    clone = make_clone(tmp_path / "clone", "real")
    curator = KnowledgeCurator(clone, today="2026-12-01")
    validation = curator.validate_proposals({"proposals": _rows()}, batch())
    index = _path(clone, INDEX)
    index.write_bytes(index.read_bytes() + b"\nA new line.\n")
    with pytest.raises(KnowledgeCurationError, match="stale"):
        curator.apply(validation)
    assert not _path(clone, NEW).exists()
    fresh = KnowledgeCurator(clone, today="2026-12-01")
    validation = fresh.validate_proposals({"proposals": _rows()}, batch())
    tampered = validation.to_dict()
    tampered["accepted"][0]["new_page"]["title"] = "Other title"
    with pytest.raises(KnowledgeCurationError, match="tampered"):
        fresh.apply(KnowledgeProposalValidation.from_dict(tampered))
    _path(clone, NEW).write_text("someone else's page\n")
    with pytest.raises(KnowledgeCurationError, match="stale"):
        fresh.apply(validation)
    assert _path(clone, NEW).read_text() == "someone else's page\n"


@pytest.mark.slow
def test_killed_apply_leaves_no_new_page(tmp_path: Path) -> None:
    """SIGKILL a real applying process after it created the page: the next curator call
    removes the page again and restores the index byte for byte."""
    clone = make_clone(tmp_path / "clone", "real")
    index_before = _path(clone, INDEX).read_bytes()
    curator = KnowledgeCurator(clone, today="2026-12-01")
    validation = curator.validate_proposals({"proposals": _rows()}, batch())
    assert not validation.rejected
    file = tmp_path / "validation.json"
    file.write_text(json.dumps(validation.to_dict()))
    env = dict(os.environ)
    env["PYTHONPATH"] = f"{PROJECT}{os.pathsep}{PROJECT / 'tools'}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.curator.worker", str(clone), str(file), "30"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=PROJECT,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        while not _path(clone, NEW).exists():
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert _path(clone, NEW).exists()  # the killed apply left it behind
    recovered = KnowledgeCurator(clone, today="2026-12-01").recover()
    assert recovered.journal_found and NEW in recovered.restored
    assert not _path(clone, NEW).exists()
    assert _path(clone, INDEX).read_bytes() == index_before


LIST_INDEX = "repos/kbkit/pipeline/_index"
LIST_PAGE = "repos/kbkit/pipeline/rules"
CONTENTS_TABLE = """| When you need | Look at | Notes |
|---|---|---|
| step-by-step guides | [guides](guides/_index.md) | the daily distill, shadow and review mode |
"""
CONTENTS_LIST = """- [guides](guides/_index.md): the daily distill, shadow and review mode
- [lessons](guides/lessons-for-agents.md): lessons kept for agents
  on the side (a continuation line)
"""


@pytest.mark.slow
def test_an_index_that_lists_its_pages_gets_a_list_item(tmp_path: Path) -> None:
    """An owner whose index registers pages as a bulleted list gets an item, not a row."""
    clone = make_clone(tmp_path / "clone", "real")
    index = _path(clone, LIST_INDEX)
    text = index.read_text()
    assert CONTENTS_TABLE in text
    index.write_text(text.replace(CONTENTS_TABLE, CONTENTS_LIST))
    before = index.read_bytes()
    curator = KnowledgeCurator(clone, today="2026-12-01")
    slot = curator.catalog().new_pages[LIST_PAGE]
    assert "Contents list #1 (2 items)" in slot.tables
    item = "[rules](rules.md): `KPIPE-*` rules of the daily pipeline"
    entry = {"heading": "Contents", "table": 1, "after_row": "[guides]", "cells": [item]}
    new_page = {"title": "kbkit pipeline rules", "index_row": entry}
    rows = [row("KPIPE-1a", target=LIST_PAGE, level=2, new_page=new_page)]
    two_cells = {**new_page, "index_row": {**entry, "cells": [item, "x"]}}
    refused = [row("KPIPE-1a", target=LIST_PAGE, level=2, new_page=two_cells)]
    rejected = curator.validate_proposals({"proposals": refused}, batch()).rejected
    assert rejected[0].reason == "new-page" and "one cell" in rejected[0].message
    validation = curator.validate_proposals({"proposals": rows}, batch())
    assert not validation.rejected, validation.rejected
    curator.apply(validation)
    first = b"- [guides](guides/_index.md): the daily distill, shadow and review mode\n"
    expected = before.replace(first, first + f"- {item}\n".encode()).replace(
        b"updated: 2026-11-27", b"updated: 2026-12-01"
    )
    assert index.read_bytes() == expected
    assert _path(clone, LIST_PAGE).exists()


def test_find_lists_names_items_and_their_ends() -> None:
    from kbkit.curator.item_list import find_lists, place_item

    lines = ["---", "- not: a list", "---", "# T", "", "## A", "", "* one", "  more", "* two", ""]
    lines += ["```", "- in code", "```", "", "- other", "", "- loose"]
    found = find_lists(lines)
    assert [(x.heading, x.position, x.marker, [i.text for i in x.items]) for x in found] == [
        ("A", 1, "*", ["one", "two"]),
        ("A", 2, "-", ["other", "loose"]),
    ]
    assert [(i.line, i.end) for i in found[0].items] == [(8, 10), (10, 11)]
    assert place_item(found, "A", 1, None, "new") == (11, "* new")
    assert place_item(found, "A", 1, "^", "new") == (8, "* new")
    assert place_item(found, "A", 1, "one", "new") == (10, "* new")
    assert "starts with 'zzz'" in str(place_item(found, "A", 1, "zzz", "new"))
    assert "no table or list 3" in str(place_item(found, "A", 3, None, "new"))
