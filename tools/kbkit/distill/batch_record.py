"""The durable record of one distilled batch (`kbkit.intake.batch_ledger`): what the model
proposed and what was decided, written beside the ledgers so it travels on the state branch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kbkit.distill.session import Report
from kbkit.infra import clock, json_input
from kbkit.intake.batch_ledger import append_batch, clip

MAX_REPLY_CHARS = 4 * 1024 * 1024
MAX_NOTES = 5


def titles(reply: str | None) -> dict[int, str]:
    """The title of each row of the model's reply, by its position (a rejected proposal's
    record carries no title of its own)."""
    if not reply or len(reply) > MAX_REPLY_CHARS:
        return {}
    try:
        data = json_input.loads(reply)
    except ValueError:
        return {}
    rows = data.get("proposals") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        return {}
    return {
        n: clip(row["title"]) or ""
        for n, row in enumerate(rows)
        if isinstance(row, dict) and isinstance(row.get("title"), str)
    }


def batch_row(report: Report, reply: str | None) -> dict[str, Any]:
    """One row of `intake/batches.jsonl` for a finished batch."""
    named = titles(reply)
    proposals = [
        {"decision": "accepted", "rule_id": p.get("rule_id"), "title": clip(p.get("title")),
         "target": p.get("target"), "reason": None, "message": None}
        for p in report.accepted
    ] + [
        {"decision": "rejected", "rule_id": p.get("rule_id"),
         "title": named.get(p["model_index"]) if isinstance(p.get("model_index"), int) else None,
         "target": p.get("target"), "reason": p.get("reason"), "message": clip(p.get("message"))}
        for p in report.rejected
    ]  # fmt: skip
    return {
        "batch_id": report.batch_id,
        "day": report.day,
        "at": clock.timestamp(clock.now()),
        "outcome": report.outcome,
        "branch": report.branch,
        "events": list(report.events),
        "proposals": proposals,
        "pages": list(report.pages),
        "commit": report.commit,
        "url": report.url,
        "notes": [clip(note) for note in report.notes[-MAX_NOTES:]],
    }


def record_batch(intake_dir: Path, report: Report, reply: str | None) -> None:
    """Append the batch's outcome to the ledger folder (nothing for a dry run or no batch)."""
    if report.batch_id is None or report.outcome in ("dry-run", "nothing-pending", "deferred"):
        return
    append_batch(intake_dir, batch_row(report, reply))
