"""What distill last saw of the knowledge PRs on GitHub, kept for the offline report.

Review mode reads every knowledge PR back at the start of a run (open, and those closed in
the last 60 days) and may open one more at its end. The report never asks GitHub, so each
run leaves `state/knowledge-prs.json`: each PR's number, link, state (`open`, `merged`,
`closed`), day and rule IDs, and the day it was read. A PR it does not list keeps the
report's own reading of the ledger (opened, state unknown).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kbkit.distill.knowledge_prs import KnowledgePr
from kbkit.infra.json_input import loads
from kbkit.infra.jsonl import atomic_write_text
from kbkit.infra.paths import KNOWLEDGE_PRS

VERSION = 1


def write(state_dir: Path, day: str, prs: list[KnowledgePr]) -> None:
    """The PRs as read today (replaces the last snapshot)."""
    entries = [_entry(pr, pr.state) for pr in sorted(prs, key=lambda p: p.number)]
    _save(state_dir, {"version": VERSION, "read": day, "prs": entries})


def opened(state_dir: Path, day: str, pr: KnowledgePr) -> None:
    """Add (or refresh) the PR this run opened or updated, as open."""
    document = _load(state_dir) or {"version": VERSION, "read": day, "prs": []}
    entry = _entry(pr, "open")
    kept = [e for e in document["prs"] if e.get("url") != pr.pull.url]
    _save(state_dir, {**document, "read": day, "prs": sorted([*kept, entry], key=_number)})


def _entry(pr: KnowledgePr, state: str) -> dict[str, Any]:
    return {
        "number": pr.number,
        "url": pr.pull.url,
        "state": state,
        "title": pr.pull.title,
        "day": pr.day,
        "rules": pr.record.rule_ids() if pr.record else [],
    }


def _number(entry: dict[str, Any]) -> int:
    number = entry.get("number")
    return number if type(number) is int else 0


def _load(state_dir: Path) -> dict[str, Any] | None:
    try:
        data = loads((state_dir / KNOWLEDGE_PRS).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("prs"), list):
        return None
    return data


def _save(state_dir: Path, document: dict[str, Any]) -> None:
    state_dir.mkdir(parents=True, exist_ok=True)
    text = json.dumps(document, indent=1, ensure_ascii=True, sort_keys=True) + "\n"
    atomic_write_text(state_dir / KNOWLEDGE_PRS, text)
