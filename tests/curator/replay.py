"""Test helpers: clones built from the real corpus, validator shims, replay proposals."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

from kbkit.curator.layout import page_layout
from kbkit.curator.section import MARKER
from kbkit.curator.table import find_tables, split_cells
from kbkit.pages.page import parse_page
from kbkit.policy.model import Policy, builtin_policy
from kbkit.tree.rules import HEADING, rule_ids

TOOLS = Path(__file__).resolve().parents[2] / "tools"
INFERMATRIX_VALIDATORS = (
    "knowledge/tools/check_knowledge_tree.py",
    "knowledge/tools/check_wiki_lint.py",
)
SHIM = """import sys
sys.path.insert(0, {tools!r})
from kbkit.__main__ import main
raise SystemExit(main([{command!r}, "--repo", {repo!r}, *{policy!r}]))
"""


def write_shims(clone: Path, policy: str | None, paths: tuple[str, ...]) -> None:
    """Validator commands that run this checkout's kbkit on the clone (policy None: the
    clone's own knowledge/policy.yaml)."""
    extra = ["--policy", policy] if policy else []
    for path, command in zip(paths, ("check-knowledge-tree", "check-wiki-lint"), strict=True):
        target = clone / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(
            SHIM.format(tools=str(TOOLS), command=command, repo=str(clone), policy=extra)
        )


def corpus_clone(corpus: Path, dest: Path, overlay: Path | None = None) -> Path:
    """A copy of the corpus tree (optionally with replay base pages laid over it) + shims."""
    shutil.copytree(corpus, dest, ignore=shutil.ignore_patterns("README.md"))
    if overlay is not None:
        for page in overlay.rglob("*.md"):
            target = dest / page.relative_to(overlay)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(page, target)
    write_shims(dest, "infermatrix", INFERMATRIX_VALIDATORS)
    return dest


def new_sections(base: bytes, target: bytes, policy: Policy) -> list[dict[str, Any]]:
    """Each rule section the target adds, as a proposal row (anchor: the previous rule)."""
    base_page = parse_page("b.md", base)
    base_ids = {r.id for r in rule_ids(base_page, policy)}
    base_groups = {h.text for h in base_page.headings}
    page = parse_page("t.md", target)
    layout = page_layout(page, policy)
    lines = page.text.split("\n")
    heading_ids = [r.id for r in rule_ids(page, policy) if r.form == HEADING]
    rows = []
    for span in layout.rules:
        if span.id in base_ids:
            continue
        text = "\n".join(lines[span.line - 1 : span.end - 1])
        heading = lines[span.line - 1].split(" ", 1)[1]
        title = heading[len(span.id) :].strip().lstrip("—").strip()
        position = heading_ids.index(span.id)
        marker = MARKER.search(text.rstrip().split("\n")[-1])
        cited = [c.strip() for c in marker.group(1).split(";")] if marker else []
        rows.append(
            {
                "target": "",
                "rule_id": span.id,
                "title": title,
                "after": heading_ids[position - 1] if position else None,
                "group": _new_group(page, base_groups, span.line, layout.level),
                "section": text,
                "citations": cited,
                "rationale": "replayed from the real batch",
            }
        )
    return rows


def _new_group(page: Any, base_groups: set[str], line: int, level: int) -> str | None:
    """The group heading the target opened right before this section, if any."""
    before = [h for h in page.headings if h.line < line]
    if before and before[-1].level == level - 1 and before[-1].text not in base_groups:
        return str(before[-1].text)
    return None


def _lines(data: bytes) -> list[str]:
    return [line.rstrip("\r") for line in data.decode().split("\n")]


def new_table_rows(base: bytes, target: bytes) -> list[dict[str, Any]]:
    """Each table row the target inserts (a first cell no row of the base table has), as a
    `table_rows` item anchored on the row before it in the target."""
    base_lines, lines = _lines(base), _lines(target)
    known = {(t.heading, t.position): {cell for _, cell in t.rows} for t in find_tables(base_lines)}
    out = []
    for table in find_tables(lines):
        old = known.get((table.heading, table.position))
        if old is None:
            continue  # a table the batch created: not an insert-only change
        previous = None
        for line, cell in table.rows:
            if cell not in old:
                cells = split_cells(lines[line - 1])
                out.append(
                    {
                        "heading": table.heading,
                        "table": table.position,
                        "after_row": previous,
                        "cells": cells,
                    }
                )
            previous = cell
    return out


def infermatrix() -> Policy:
    return builtin_policy("infermatrix")


def python() -> str:
    return sys.executable


def replay_rows(
    commit_dir: Path, policy: Policy, marker: str | None = None
) -> list[dict[str, Any]]:
    """Proposal rows for every new rule section of every target page of one replay commit.
    `marker`: cite this source where a real section carries no provenance marker."""
    rows = []
    target_root = commit_dir / "target" / "knowledge"
    for target in sorted(target_root.rglob("rules*.md")):
        rel = target.relative_to(target_root).as_posix()
        base = commit_dir / "base" / "knowledge" / rel
        page_rows = new_sections(base.read_bytes(), target.read_bytes(), policy)
        for found in page_rows:
            found["target"] = rel[:-3]
            if not found["citations"] and marker:
                found["section"] += f" ^[{marker}]"
                found["citations"] = [marker]
            rows.append(found)
        table_rows = new_table_rows(base.read_bytes(), target.read_bytes())
        if page_rows and table_rows:  # the page's routing rows travel with its first rule
            page_rows[0]["table_rows"] = table_rows
    return rows


def replay_batch(rows: list[dict[str, Any]]) -> Any:
    from kbkit.curator import KnowledgeEvidenceBatch, KnowledgeEvidenceEvent

    sources = sorted({c for r in rows for c in r["citations"]})
    events = [
        KnowledgeEvidenceEvent("merged_pr", s, "vllm-project/vllm-omni", f"Merged {s}")
        for s in sources
    ]
    return KnowledgeEvidenceBatch(events, max_rules=20)
