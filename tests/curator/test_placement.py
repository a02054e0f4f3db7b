"""Placement the prompt promises (#14): anchors on earlier rows, the start anchor, mixed
heading levels, several provenance markers, anchors on rejected rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbkit.curator import KnowledgeCurator
from tests.curator.conftest import WRITING, batch, make_clone, row, section

MIXED_PAGE = """---
title: "Mixed rules"
created: 2026-11-01
updated: 2026-11-01
type: rule
tags: [kbkit, rules]
---

# Mixed rules

Only `MIX-<digit><letter>` IDs are auditable rules.

{first}

## 5. Grouped later

{grouped}

## Related

- [kbkit](_index.md)
"""


def _text(clone: Path, doc: str = WRITING) -> str:
    return (clone / "knowledge" / f"{doc}.md").read_text()


def _apply(clone: Path, rows: list[dict], *sources: str) -> KnowledgeCurator:  # type: ignore[type-arg]
    curator = KnowledgeCurator(clone, today="2026-12-01")
    validation = curator.validate_proposals({"proposals": rows}, batch(*sources))
    assert not validation.rejected, validation.rejected
    curator.apply(validation)
    return curator


@pytest.mark.slow
def test_a_new_group_after_a_rule_of_an_earlier_row(clone: Path) -> None:
    """The issue's reproduction on kbkit's own tree (row 2 was rejected with `group`)."""
    rows = [
        row("WRITE-3b", after="WRITE-3a"),
        row("WRITE-4a", title="Review hygiene first", after="WRITE-3b", group="4. Review hygiene"),
        row("WRITE-4b", title="Then the second", after="WRITE-4a"),
    ]
    _apply(clone, rows)
    text = _text(clone)
    order = [text.index(s) for s in ("### WRITE-3a", "### WRITE-3b", "## 4. Review hygiene")]
    assert order == sorted(order)
    assert "\n## 4. Review hygiene\n\n### WRITE-4a — Review hygiene first\n" in text
    assert text.index("### WRITE-4a") < text.index("### WRITE-4b") < text.index("Related:")


def test_a_rule_in_the_middle_of_a_group_still_cannot_open_one(clone: Path) -> None:
    rows = [
        row("WRITE-1d", title="Inside group one", after="WRITE-1b"),
        row("WRITE-4a", title="Not here", after="WRITE-1d", group="4. Review hygiene"),
    ]
    validation = KnowledgeCurator(clone).validate_proposals({"proposals": rows}, batch())
    assert [(r.model_index, r.reason) for r in validation.rejected] == [(1, "group")]


@pytest.mark.slow
def test_the_start_anchor_puts_a_new_group_on_top(clone: Path) -> None:
    base = _text(clone)
    rows = [
        row("WRITE-0a", title="First of all", after="^", group="0. Before anything"),
        row("WRITE-0b", title="Second on top", after="WRITE-0a"),
    ]
    _apply(clone, rows)
    text = _text(clone)
    intro = "Only `WRITE-<digit><letter>` IDs are auditable rules.\n\n## 0. Before anything\n\n"
    assert intro + "### WRITE-0a — First of all\n" in text
    assert text.index("### WRITE-0b") < text.index("## 1. Page shape")
    assert "\n\n\n" not in text
    rest = base[base.index("## 1. Page shape") :]
    assert text.endswith(rest)


@pytest.mark.slow
def test_a_page_with_mixed_levels_accepts_a_new_group_of_deeper_rules(clone: Path) -> None:
    first = section("MIX-1a", "A top rule", level=2)
    grouped = section("MIX-5a", "A grouped rule", level=3)
    page = clone / "knowledge/repos/kbkit/rules-mixed.md"
    page.write_text(MIXED_PAGE.format(first=first, grouped=grouped))
    index = page.parent / "_index.md"
    index.write_text(index.read_text() + "\n- [Mixed rules](rules-mixed.md)\n")
    target = "repos/kbkit/rules-mixed"
    rows = [
        row("MIX-6a", target=target, title="New group rule", group="6. Newer", level=3),
        row("MIX-5b", target=target, title="Second grouped", after="MIX-5a", level=3),
        row("MIX-1b", target=target, title="Second top rule", after="MIX-1a", level=2),
    ]
    _apply(clone, rows)
    text = page.read_text()
    assert "\n## 6. Newer\n\n### MIX-6a — New group rule\n" in text
    assert text.index("### MIX-5a") < text.index("### MIX-5b") < text.index("## 6. Newer")
    assert text.index("## MIX-1a") < text.index("## MIX-1b") < text.index("## 5. Grouped")
    wrong = [row("MIX-1c", target=target, title="Wrong level", after="MIX-1b", level=3)]
    curator = KnowledgeCurator(clone)
    rejected = curator.validate_proposals({"proposals": wrong}, batch()).rejected
    assert [r.reason for r in rejected] == ["heading"]  # after a `##` rule: a `##` rule


def test_every_marker_of_a_section_is_a_citation(clone: Path) -> None:
    proposal = row(cite="PR #101")
    proposal["section"] = proposal["section"].replace(
        "^[PR #101]", "^[PR #101] ^[PR #102] ^[PR #103]"
    )
    proposal["citations"] = ["PR #101", "PR #102", "PR #103"]
    curator = KnowledgeCurator(clone)
    three = batch("PR #101", "PR #102", "PR #103")
    validation = curator.validate_proposals({"proposals": [proposal]}, three)
    assert not validation.rejected and validation.accepted[0].citations == tuple(
        proposal["citations"]
    )
    short = {**proposal, "citations": ["PR #103"]}
    rejected = curator.validate_proposals({"proposals": [short]}, three).rejected
    assert [r.reason for r in rejected] == ["citation"]


def test_a_row_anchored_on_a_rejected_row_names_its_reason(clone: Path) -> None:
    bad = row("WRITE-3b", after="WRITE-3a")
    bad["section"] = bad["section"].replace("- Must not:", "- Never:")
    rows = [bad, row("WRITE-3c", title="After the rejected one", after="WRITE-3b")]
    validation = KnowledgeCurator(clone).validate_proposals({"proposals": rows}, batch())
    [first, second] = validation.rejected
    assert first.reason == "bullets"
    assert second.reason == "anchor"
    assert "row 0 of this reply, which was rejected (bullets:" in second.message


@pytest.mark.slow
def test_rows_after_one_anchor_keep_the_reply_order_and_their_group(clone: Path) -> None:
    rows = [
        row("WRITE-4a", title="A new last group", after="WRITE-3a", group="4. Review hygiene"),
        row("WRITE-3b", title="Still in links", after="WRITE-3a"),
        row("WRITE-3c", title="Also in links", after="WRITE-3a"),
        row("WRITE-4b", title="Into the new group", after="4. Review hygiene"),
    ]
    _apply(clone, rows)
    text = _text(clone)
    heads = ["### WRITE-3a", "### WRITE-3b", "### WRITE-3c", "## 4. Review hygiene"]
    heads += ["### WRITE-4a", "### WRITE-4b", "Related:"]
    positions = [text.index(h) for h in heads]
    assert positions == sorted(positions)


FLAT_PAGE = """---
title: "Flat rules"
created: 2026-11-01
updated: 2026-11-01
type: rule
tags: [kbkit, rules]
---

# Flat rules

Only `FLAT-<digit><letter>` IDs are auditable rules.

{first}

{second}

## Related

- [kbkit](_index.md)
"""


def _flat_page(clone: Path) -> tuple[Path, str]:
    page = clone / "knowledge/repos/kbkit/rules-flat.md"
    first, second = (
        section("FLAT-1a", "A top rule", level=2),
        section("FLAT-1b", "Another", level=2),
    )
    page.write_text(FLAT_PAGE.format(first=first, second=second))
    index = page.parent / "_index.md"
    index.write_text(index.read_text() + "\n- [Flat rules](rules-flat.md)\n")
    return page, "repos/kbkit/rules-flat"


@pytest.mark.slow
def test_a_flat_page_opens_its_first_group_as_the_real_pages_do(tmp_path: Path) -> None:
    """The issue's case: every rule a top-level `## ID — title`; a batch opens `## group` and
    puts its rules at `###` under it, the next row anchors on it; the flat rules stay as
    they were, byte for byte (the corpus's serving page has this shape)."""
    clone = make_clone(tmp_path / "clone", validators="real")
    page, target = _flat_page(clone)
    base = page.read_text()
    rows = [
        row("FLAT-2a", target=target, title="Opens the group", group="2. Later", level=3),
        row("FLAT-2b", target=target, title="Anchored on the new rule", after="FLAT-2a", level=3),
        row("FLAT-2c", target=target, title="At the group's end", after="## 2. Later", level=3),
        row("FLAT-1c", target=target, title="Still flat", after="FLAT-1b", level=2),
    ]
    _apply(clone, rows)
    text = page.read_text()
    before, related = base.split("\n## Related\n")
    rules = before[before.index("# Flat rules") :]
    assert rules in text and text.endswith("\n## Related\n" + related)  # byte for byte
    order = ["## FLAT-1a", "## FLAT-1b", "## FLAT-1c", "\n## 2. Later\n\n### FLAT-2a — Opens",
             "### FLAT-2b", "### FLAT-2c", "## Related"]  # fmt: skip
    assert [text.index(s) for s in order] == sorted(text.index(s) for s in order)
    assert "\n\n\n" not in text


def test_a_flat_page_opens_a_group_only_after_its_last_rule(clone: Path) -> None:
    _, target = _flat_page(clone)
    curator = KnowledgeCurator(clone)
    for after in ("FLAT-1a", "^"):
        rows = [row("FLAT-2a", target=target, title="Here?", after=after, group="2. G", level=3)]
        [rejected] = curator.validate_proposals({"proposals": rows}, batch()).rejected
        assert rejected.reason == "group" and "after its last rule" in rejected.message
    top_level = [row("FLAT-2a", target=target, title="Wrong level", group="2. G", level=2)]
    [rejected] = curator.validate_proposals({"proposals": top_level}, batch()).rejected
    assert rejected.reason == "heading"  # a group's rules are `###`
