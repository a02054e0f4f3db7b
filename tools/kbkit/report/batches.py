"""Curator and publication: one row per batch folder written by `kbkit.distill.artifacts`."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from kbkit.infra import json_input
from kbkit.infra.paths import BATCH_ARTIFACTS as ARTIFACTS
from kbkit.intake.ledger import Row, sequence
from kbkit.report.window import Window

MAX_ROWS = 50  # newest batches listed one by one; totals cover the whole window


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json_input.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _publication(status_rows: list[Row]) -> dict[str, dict[str, Any]]:
    """batch id -> the latest state its rows reached, and a PR link when one was opened."""
    out: dict[str, dict[str, Any]] = {}
    for row in status_rows:
        batch = row.get("batch_id")
        if not isinstance(batch, str):
            continue
        seen = out.setdefault(batch, {"state": None, "seq": -1, "url": None})
        if sequence(row) >= seen["seq"]:
            seen["state"], seen["seq"] = row.get("state"), sequence(row)
        if isinstance(row.get("url"), str):
            seen["url"] = row["url"]
    return out


def _gate(apply: dict[str, Any], folder: Path) -> str:
    validators = apply.get("validators")
    if isinstance(validators, dict) and validators.get("status"):
        return str(validators["status"])
    if apply.get("note"):
        return "not run (no accepted proposals)"
    if (folder / "validators.txt").is_file():
        return "refused"
    return "not reached"


def collect(state_dir: Path, status_rows: list[Row], window: Window, shown: Path) -> dict[str, Any]:
    """Aggregate every batch folder whose day is in the window."""
    top = state_dir / ARTIFACTS
    published = _publication(status_rows)
    rows: list[dict[str, Any]] = []
    reasons: Counter[str] = Counter()
    days = sorted(p for p in top.iterdir() if p.is_dir()) if top.is_dir() else []
    for day in days:
        if not window.contains(day.name):
            continue
        for folder in sorted(p for p in day.iterdir() if p.is_dir()):
            validation = _json(folder / "validation.json")
            apply = _json(folder / "apply.json")
            batch = _json(folder / "batch.json")
            rejected = validation.get("rejected") or []
            by_reason = Counter(str(r.get("reason")) for r in rejected if isinstance(r, dict))
            reasons.update(by_reason)
            pub = published.get(folder.name, {})
            commit = folder / "commit.txt"
            rows.append(
                {
                    "batch": folder.name,
                    "day": day.name,
                    "events": len(batch.get("events") or []),
                    "accepted": len(validation.get("accepted") or []),
                    "rejected": len(rejected),
                    "rejected_by_reason": dict(sorted(by_reason.items())),
                    "pages_touched": len(apply.get("changes") or []),
                    "gate": _gate(apply, folder),
                    "commit": commit.read_text(encoding="utf-8").strip()[:40]
                    if commit.is_file()
                    else None,
                    "state": pub.get("state"),
                    "pr": pub.get("url"),
                    "artifact": _shown(folder, shown),
                }
            )
    return {
        "source": f"{_shown(top, shown)}/<day>/<batch>/ (validation.json, apply.json, commit.txt) "
        "and intake/status.jsonl (state, PR url)",
        "totals": {
            "batches": len(rows),
            "accepted": sum(r["accepted"] for r in rows),
            "rejected": sum(r["rejected"] for r in rows),
            "pages_touched": sum(r["pages_touched"] for r in rows),
            "published": sum(1 for r in rows if r["pr"]),
            "shadowed": sum(1 for r in rows if r["state"] == "shadowed"),
            "failed": sum(1 for r in rows if r["state"] == "failed"),
        },
        "rejected_by_reason": [
            {"reason": k, "count": v}
            for k, v in sorted(reasons.items(), key=lambda i: (-i[1], i[0]))
        ],
        "batches": rows[-MAX_ROWS:][::-1],
    }


def _shown(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return str(path)
