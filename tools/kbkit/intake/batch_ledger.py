"""`intake/batches.jsonl`: what each distilled batch decided, beside the ledgers it acted on.

One row per finished distill batch: its events, every proposal the model made with what was
decided (accepted, or rejected with the curator's reason code and message), the pages it
changed, the commit and the PR. `kb distill` appends it; `kb intake sync` carries it on the
state branch with the other ledgers, so a fresh runner and a lead's clone both know what the
model proposed and what was decided, after the run's artifacts (`state/`) are gone. The
report reads it for every batch whose artifact folder it does not have.

Append-only, merged by union like the other ledgers; a batch written twice (a same-day
rerun that published it) folds to its last row.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kbkit.infra.jsonl import append_rows, read_jsonl

BATCHES_FILE = "batches.jsonl"
VERSION = 1
TEXT_CHARS = 500  # a message or note quotes model or validator output: keep rows bounded


def append_batch(intake_dir: Path, row: dict[str, Any]) -> None:
    """Append one batch's outcome (`row` as `kbkit.distill.batch_record` builds it)."""
    append_rows(intake_dir / BATCHES_FILE, [{"version": VERSION, **row}])


def read_batches(intake_dir: Path) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Batch id -> its latest well-formed row, and a problem line per row that is not."""
    contents = read_jsonl(intake_dir / BATCHES_FILE)
    problems = [f"{BATCHES_FILE}:{p.line}: {p.message}" for p in contents.problems]
    out: dict[str, dict[str, Any]] = {}
    for row in contents.rows:
        data = row.data
        batch, day = data.get("batch_id"), data.get("day")
        if not (isinstance(batch, str) and batch and isinstance(day, str) and len(day) == 10):
            problems.append(f"{BATCHES_FILE}:{row.line}: a batch row without batch_id or day")
            continue
        proposals = data.get("proposals")
        data["proposals"] = [p for p in proposals if isinstance(p, dict)] if isinstance(proposals, list) else []  # fmt: skip
        out[batch] = data
    return out, problems


def clip(text: object) -> str | None:
    """A message or note as a row keeps it: text, cut to TEXT_CHARS; None stays None."""
    return None if text is None else str(text)[:TEXT_CHARS]
