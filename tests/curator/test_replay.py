"""Replay the real InferMatrixCopilot rule batches (skipped when the corpus is absent)."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import pytest

from kbkit.curator import KnowledgeCurationError, KnowledgeCurator, KnowledgeValidatorError
from kbkit.curator.table import find_tables
from kbkit.pages.page import parse_page
from kbkit.tree.rules import HEADING, rule_ids
from tests.conftest import corpus_or_skip
from tests.curator.replay import corpus_clone, infermatrix, replay_batch, replay_rows

pytestmark = [
    pytest.mark.slow,  # make test-all: replays the corpus's real batches
    pytest.mark.corpus,
]
COMMITS = ("713f3f5", "8883186", "6e1e140", "5483cc7")
# 5483cc7's sections carry no provenance marker: the replay cites this source for them.
MARKERS = {"5483cc7": "vLLM-Omni v0.26.0 alignment"}


def _heading_ids(data: bytes) -> list[str]:
    page = parse_page("p.md", data)
    return [r.id for r in rule_ids(page, infermatrix()) if r.form == HEADING]


def _headings(data: bytes) -> list[tuple[int, str]]:
    return [(h.level, h.text) for h in parse_page("p.md", data).headings]


def _only_growth(base: bytes, result: bytes) -> None:
    """No existing byte changes except the updated: date and sources: growth."""
    old, new = base.decode().split("\n"), result.decode().split("\n")
    end = old.index("---", 1)
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("equal", "insert"):
            continue
        assert tag == "replace" and i2 - i1 == j2 - j1 and i2 <= end, (tag, old[i1:i2])
        for a, b in zip(old[i1:i2], new[j1:j2], strict=True):
            if a.startswith("updated:"):
                assert b.startswith("updated:") and b > a
            else:
                assert a.startswith("sources: [") and b.startswith(a[:-1]) and b.endswith("]")


def _table_rows(data: bytes) -> dict[tuple[str | None, int], list[str]]:
    lines = data.decode().split("\n")
    return {(t.heading, t.position): [lines[n - 1] for n, _ in t.rows] for t in find_tables(lines)}


def _rows_as_humans_inserted(base: bytes, applied: bytes, target: bytes) -> int:
    """Every table holds the rows of the human result, in its order, each new row byte for
    byte as the human wrote it (rows the humans edited stay as the base had them)."""
    old, mine, theirs = _table_rows(base), _table_rows(applied), _table_rows(target)
    assert mine.keys() == theirs.keys() == old.keys()
    added = 0
    for key, rows in mine.items():
        first = [r.split("|")[1] for r in rows]
        assert first == [r.split("|")[1] for r in theirs[key]], key
        new = [r for r in rows if r not in old[key]]
        assert set(new) <= set(theirs[key]), key
        added += len(new)
    return added


# Pages the real commit created next to its new sections (not in the replay data): a new
# section links to them, so the tree validator refuses the batch until they exist.
CREATED = {"8883186": "repos/vllm-omni/models/minimax-h3"}
OWNER_INDEX = """---
title: "MiniMax H3"
created: 2026-08-04
updated: 2026-08-04
type: index
tags: [vllm-omni, models]
---

# MiniMax H3

Model owner created by the replayed batch. Rules: [rules](rules.md).
"""
OWNER_RULES = """---
title: "MiniMax H3 规则"
created: 2026-08-04
updated: 2026-08-04
type: rule
tags: [vllm-omni, models]
---

# MiniMax H3 规则

只有 `MMH3-数字字母` 是可审计规则 ID。
"""


# 8883186 also gave an existing owner folder, `ci/`, its first rule page (VOMNI-CI-1a and
# VOMNI-CI-1b as top-level `##` rules) and registered it by a row on top of the folder's
# index table. The replay data holds no copy of that page, so the two sections here are
# written for the test; what is compared is where the page, its rules and the row go.
CI_PAGE = "repos/vllm-omni/ci/rules"
CI_INDEX = "repos/vllm-omni/ci/_index"
CI_SECTION = """## {id} — {title}

- 触发：a change to {topic}.
- 强制：collect the selected tests on the base and on the head and compare them.
- 禁止：infer the selection from file names.
- 验收：the collection diff is attached to the review. ^[{source}]"""


def _ci_rows() -> list[dict]:  # type: ignore[type-arg]
    """The new ci/rules.md as two proposal rows: the first creates the page."""
    rules = [
        ("VOMNI-CI-1a", "Selector changes close over the collected tests", "Buildkite", "PR #5695"),
        (
            "VOMNI-CI-1b",
            "Platform quality oracles come from the same hardware",
            "a golden",
            "PR #5436",
        ),
    ]
    rows: list[dict[str, Any]] = []
    for number, (rule_id, title, topic, source) in enumerate(rules):
        text = CI_SECTION.format(id=rule_id, title=title, topic=topic, source=source)
        rows.append(
            {
                "target": CI_PAGE,
                "rule_id": rule_id,
                "title": title,
                "after": rows[-1]["rule_id"] if rows else None,
                "group": None,
                "section": text,
                "citations": [source],
                "rationale": "replayed from the real batch",
                "table_rows": None,
                "new_page": None
                if number
                else {
                    "title": "vLLM-Omni CI rules",
                    "index_row": {
                        "heading": "目录内容",
                        "table": 1,
                        "after_row": "^",  # the humans put it on top
                        "cells": ["Buildkite selectors, markers, goldens", "[CI rules](rules.md)"],
                    },
                },
            }
        )
    return rows


def _check_ci_page(clone: Path, replay_root: Path) -> None:
    """The created page holds the two rules as `##` sections; the index gained exactly the
    row on top of its table and the updated: bump."""
    page = (clone / "knowledge" / f"{CI_PAGE}.md").read_bytes()
    heads = _headings(page)
    assert heads[0] == (1, "vLLM-Omni CI rules")
    assert [h for h in heads[1:]] == [(2, f"{r['rule_id']} — {r['title']}") for r in _ci_rows()]
    assert _heading_ids(page) == ["VOMNI-CI-1a", "VOMNI-CI-1b"]
    base = (replay_root / "knowledge" / f"{CI_INDEX}.md").read_bytes()
    index = (clone / "knowledge" / f"{CI_INDEX}.md").read_bytes()
    row = b"| Buildkite selectors, markers, goldens | [CI rules](rules.md) |\n"
    header = b"|---|---|\n"
    assert base.count(header) == 1
    expected = base.replace(header, header + row).replace(b"updated: 2026-07-10", b"updated:")
    assert index.replace(b"updated: 2026-08-13", b"updated:") == expected
    _only_growth(base, index)


def _gate_refuses_missing_page(curator, validation, clone, commit, batch, rows):  # type: ignore[no-untyped-def]
    """With link checking, the gate refuses the batch and restores every byte; once the
    owner the real commit created exists, the same batch goes through."""
    pages = sorted((clone / "knowledge").rglob("rules.md"))
    pages.append(clone / "knowledge" / f"{CI_INDEX}.md")
    before = [p.read_bytes() for p in pages]
    try:
        curator.plan(validation)
        curator.apply(validation)
    except KnowledgeValidatorError as exc:
        assert exc.result.status == "failed" and exc.result.rolled_back
        assert "tree/link-broken" in exc.result.output and CREATED[commit] in exc.result.output
        assert [p.read_bytes() for p in pages] == before
        assert not (clone / "knowledge" / f"{CI_PAGE}.md").exists()  # the new page is gone
    else:  # this branch's tree validator does not check links yet: undo and go on
        for path, data in zip(pages, before, strict=True):
            path.write_bytes(data)
        (clone / "knowledge" / f"{CI_PAGE}.md").unlink()
    _create_owner(clone, commit)
    return curator.validate_proposals({"proposals": rows}, batch, curator.catalog())


def _create_owner(clone: Path, commit: str) -> None:
    owner = clone / "knowledge" / CREATED[commit]
    owner.mkdir(parents=True)
    (owner / "_index.md").write_text(OWNER_INDEX)
    (owner / "rules.md").write_text(OWNER_RULES)


def _without_last_anchor(replay: Path, rows: list[dict]) -> list[dict]:  # type: ignore[type-arg]
    """Rows anchored on the base page's last rule get no anchor: the default position."""
    out = []
    for found in rows:
        base = (replay / "base" / "knowledge" / f"{found['target']}.md").read_bytes()
        last = _heading_ids(base)[-1]
        out.append({**found, "after": None} if found["after"] == last else found)
    return out


@pytest.mark.parametrize(
    ("commit", "anchors"),
    [(c, "previous-rule") for c in COMMITS] + [("713f3f5", "default"), ("6e1e140", "default")],
)
def test_replay_reproduces_the_real_positions(tmp_path: Path, commit: str, anchors: str) -> None:
    replay = corpus_or_skip("infermatrix-replay", commit)
    corpus = corpus_or_skip("infermatrix-knowledge")
    clone = corpus_clone(corpus, tmp_path / "clone", replay / "base")
    rows = replay_rows(replay, infermatrix(), marker=MARKERS.get(commit))
    if anchors == "default":
        rows = _without_last_anchor(replay, rows)
        assert any(r["after"] is None for r in rows)
    assert rows, "the replay commit adds rule sections"
    if commit == "8883186":
        rows += _ci_rows()
    curator = KnowledgeCurator(clone, policy="infermatrix", today="2026-08-13")
    batch = replay_batch(rows)
    curator.build_prompt(batch)
    validation = curator.validate_proposals({"proposals": rows}, batch)
    assert validation.rejected == (), validation.rejected
    if commit in CREATED:
        validation = _gate_refuses_missing_page(curator, validation, clone, commit, batch, rows)
    result = curator.apply(validation)
    assert result.validators is not None and result.validators.status == "passed"
    table_rows = 0
    created = {c.document_id for c in result.changes if c.created}
    assert created == ({CI_PAGE} if commit == "8883186" else set())
    for change in result.changes:
        if change.document_id in (CI_PAGE, CI_INDEX):
            _check_ci_page(clone, corpus)
            continue
        rel = f"knowledge/{change.document_id}.md"
        base = (replay / "base" / rel).read_bytes()
        target = (replay / "target" / rel).read_bytes()
        applied = (clone / rel).read_bytes()
        assert _heading_ids(applied) == _heading_ids(target)
        assert _headings(applied) == _headings(target)  # new groups (713f3f5) included
        text = applied.decode()
        for insertion in change.insertions:
            human = insertion.text.removesuffix(f" ^[{MARKERS.get(commit)}]")  # see MARKERS
            assert insertion.text in text and human in target.decode()
        _only_growth(base, applied)
        table_rows += _rows_as_humans_inserted(base, applied, target)
    assert table_rows == sum(len(r.get("table_rows") or ()) for r in rows) > 0


def test_sibling_batches_reusing_ids_are_caught(tmp_path: Path) -> None:
    """8883186 and 5483cc7 (6e1e140's parent) fork from 8b6d03f and both allocate
    DIFF-1c, SERV-6a and SERV-6b: the second batch must not land on top of the first."""
    first = corpus_or_skip("infermatrix-replay", "8883186")
    second = corpus_or_skip("infermatrix-replay", "5483cc7")
    clone = corpus_clone(corpus_or_skip("infermatrix-knowledge"), tmp_path / "c", second / "base")
    _create_owner(clone, "8883186")  # see CREATED
    curator = KnowledgeCurator(clone, policy="infermatrix", today="2026-08-06")
    rows_a = replay_rows(first, infermatrix())
    rows_b = replay_rows(second, infermatrix(), marker="vLLM-Omni v0.26.0 alignment")
    batch_a, batch_b = replay_batch(rows_a), replay_batch(rows_b)
    validation_a = curator.validate_proposals({"proposals": rows_a}, batch_a)
    validation_b = curator.validate_proposals({"proposals": rows_b[:20]}, batch_b)
    assert not validation_a.rejected and not validation_b.rejected
    reused = {"DIFF-1c", "SERV-6a", "SERV-6b"}
    assert reused <= {p.rule_id for p in validation_a.accepted}
    assert reused <= {p.rule_id for p in validation_b.accepted}
    curator.apply(validation_a)
    before = {p: p.read_bytes() for p in (clone / "knowledge").rglob("rules.md")}
    with pytest.raises(KnowledgeCurationError, match="stale"):
        curator.apply(validation_b)
    assert {p: p.read_bytes() for p in before} == before
    again = curator.validate_proposals({"proposals": rows_b[:20]}, batch_b, curator.catalog())
    taken = {r.rule_id for r in again.rejected if r.reason == "rule-id-taken"}
    assert reused <= taken


SCHEDULER = "repos/vllm-omni/components/scheduler/rules"
SERVING = "repos/vllm-omni/components/serving/rules"
DUPLEX = "Full-duplex 与 CFG companion 生命周期"


def _duplex_group(replay: Path) -> tuple[str, list[str]]:
    """The group 5483cc7's authors opened on the serving page, as they wrote it (heading
    through the end of its last rule), and its sections."""
    from kbkit.curator.layout import page_layout

    data = (replay / "target" / "knowledge" / f"{SERVING}.md").read_bytes()
    page = parse_page("serving.md", data)
    lines = page.text.split("\n")
    spans = [s for s in page_layout(page, infermatrix()).rules if s.id.startswith("SERV-6")]
    start = next(h.line for h in page.headings if h.text == DUPLEX)
    block = "\n".join(lines[start - 1 : spans[-1].end - 1])
    return block, ["\n".join(lines[s.line - 1 : s.end - 1]) for s in spans]


def test_a_flat_real_page_opens_its_first_group_as_the_batch_authors_did(tmp_path: Path) -> None:
    """The corpus's scheduler page keeps every rule top-level (`## SCHED-1a` ... `## 相关`).
    The group 5483cc7's authors opened on the serving page (`## group`, `###` rules under
    it) goes onto it: the page then has the serving page's shape (top-level rules first,
    then groups of `###` rules), the inserted text is the humans' text byte for byte, and
    every existing byte of the page stays where it was."""
    replay = corpus_or_skip("infermatrix-replay", "5483cc7")
    corpus = corpus_or_skip("infermatrix-knowledge")
    clone = corpus_clone(corpus, tmp_path / "clone")
    page = clone / "knowledge" / f"{SCHEDULER}.md"
    base = page.read_bytes()
    assert all(level <= 2 for level, _ in _headings(base))  # flat: no group, no `###` rule
    block, sections = _duplex_group(replay)
    marker = MARKERS["5483cc7"]
    ids = [f"SCHED-7{letter}" for letter in "abc"]
    rows = []
    for number, (rule_id, text) in enumerate(zip(ids, sections, strict=True)):
        text = text.replace(f"SERV-6{'abc'[number]}", rule_id, 1) + f" ^[{marker}]"
        title = text.split("\n", 1)[0].split(" — ", 1)[1]
        rows.append({
            "target": SCHEDULER, "rule_id": rule_id, "title": title,
            "after": ids[number - 1] if number else None, "group": None if number else DUPLEX,
            "section": text, "citations": [marker], "rationale": "the serving page's group",
            "table_rows": None, "new_page": None,
        })  # fmt: skip
    curator = KnowledgeCurator(clone, policy="infermatrix", today="2026-08-13")
    batch = replay_batch(rows)
    validation = curator.validate_proposals({"proposals": rows}, batch)
    assert validation.rejected == (), validation.rejected
    result = curator.apply(validation)
    assert result.validators is not None and result.validators.status == "passed"
    applied = page.read_bytes()
    _only_growth(base, applied)  # the flat rules and everything else: byte for byte
    humans = block
    for number, rule_id in enumerate(ids):
        humans = humans.replace(f"SERV-6{'abc'[number]}", rule_id, 1)
    for section in sections:
        last = section.rstrip().split("\n")[-1]
        humans = humans.replace(last, f"{last} ^[{marker}]", 1)
    assert f"\n\n{humans}\n\n## 相关\n" in applied.decode()
    levels = [(level, text.split(" ")[0]) for level, text in _headings(applied)]
    assert levels[-5:] == [(2, "Full-duplex"), (3, "SCHED-7a"), (3, "SCHED-7b"), (3, "SCHED-7c"),
                           (2, "相关")]  # fmt: skip
