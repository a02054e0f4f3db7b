"""The one way distill marks intake rows: a status row appended to the ledger."""

from __future__ import annotations

from pathlib import Path

from kbkit.intake.ledger import Key, Row, append_status

REASON_CHARS = 1900  # a reason quotes model, validator or gh output: keep the row bounded


def mark(
    intake_dir: Path,
    key: Key,
    state: str,
    *,
    attempts: int,
    previous: Row | None,
    batch_id: str | None = None,
    reason: str | None = None,
    url: str | None = None,
) -> None:
    """Append the transition of `key` to `state`, its reason cut to REASON_CHARS."""
    append_status(
        intake_dir,
        *key,
        state,
        attempts=attempts,
        previous=previous,
        batch_id=batch_id,
        reason=reason[:REASON_CHARS] if reason is not None else None,
        url=url,
    )


def after_failure(tries: int, max_attempts: int) -> str:
    """The state of a row after a failed attempt: failed at the cap, else pending again."""
    return "failed" if tries >= max_attempts else "pending"
