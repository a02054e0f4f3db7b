"""`kb intake check`: every line of every ledger against its JSON Schema."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kbkit.infra.errors import InputError, UsageError
from kbkit.infra.jsonl import read_jsonl
from kbkit.intake.ledger import EVENTS_FILE, STATUS_FILE
from kbkit.intake.merged_prs import CURSOR_FILE, read_cursor
from kbkit.intake.schemas import EVENTS, STATUS, schema_errors
from kbkit.rulebook.findings import ERROR, WARNING, Finding


def schema_for(path: Path) -> str:
    """The schema of a ledger file, from its name (events*.jsonl or status*.jsonl)."""
    if path.name.startswith("events"):
        return EVENTS
    if path.name.startswith("status"):
        return STATUS
    raise UsageError(f"{path}: not an intake ledger; name it events*.jsonl or status*.jsonl")


def check_ledger(path: Path) -> list[Finding]:
    """Findings for one ledger: unreadable lines, schema violations; a torn tail warns."""
    schema = schema_for(path)
    contents = read_jsonl(path)
    label = str(path)
    findings = [
        Finding(
            label,
            p.line,
            "intake-torn" if p.torn else "intake-json",
            WARNING if p.torn else ERROR,
            p.message if p.torn else f"{p.message}; `kb intake compact` drops it",
        )
        for p in contents.problems
    ]
    for row in contents.rows:
        findings.extend(
            Finding(label, row.line, "intake-schema", ERROR, message)
            for message in schema_errors(schema, row.data)
        )
    return findings


def check_intake(intake_dir: Path, files: Sequence[Path] = ()) -> list[Finding]:
    """Check the given ledger files, or both ledgers and the cursor of `intake_dir`."""
    if files:
        return [finding for path in files for finding in check_ledger(path)]
    findings = [
        finding
        for name in (EVENTS_FILE, STATUS_FILE)
        if (intake_dir / name).exists()
        for finding in check_ledger(intake_dir / name)
    ]
    try:
        read_cursor(intake_dir)
    except InputError as exc:
        findings.append(
            Finding(
                str(intake_dir / CURSOR_FILE),
                0,
                "intake-cursor",
                ERROR,
                str(exc).split(": ", 1)[-1],
            )
        )
    return findings
