"""The run's summary for `$GITHUB_STEP_SUMMARY`: what the run opened or updated, or why not.

A day whose run opened or updated no PR says why in one line (nothing pending, no rule
proposed, the cadence deferred it, shadow mode, a failed attempt, or the error that stopped
it), so a quiet day never looks like a broken one, nor the other way round. Copied text is
inert (`kbkit.infra.inert`).
"""

from __future__ import annotations

from kbkit.distill.session import Report
from kbkit.infra import inert

WHY = {
    "nothing-pending": "no PR opened or updated: nothing was pending (every recorded event "
    "is published, shadowed or failed, or listed by a knowledge PR)",
    "no-rules": "no PR opened or updated: the model proposed no rule that passed validation "
    "for this batch; its events are marked shadowed with the reason `no rules`",
    "shadowed": "no PR opened or updated: shadow mode",
    "dry-run": "no PR opened or updated: a dry run writes nothing",
}


def summary(report: Report, mode_line: str) -> str:
    """Markdown for the run's summary."""
    if report.outcome == "published" and report.url:
        head = (
            f"**PR**: {report.url} now carries batch `{report.batch_id}` ({len(report.events)} "
            f"event(s), {len(report.accepted)} rule(s) accepted, {len(report.rejected)} rejected)"
        )
    elif report.outcome in ("failed", "deferred"):
        why = report.notes[-1] if report.notes else "see the log"
        what = "a failed attempt: " if report.outcome == "failed" else ""
        head = f"**No PR opened or updated**: {what}{why}"
    elif report.outcome == "shadowed":
        head = f"**{WHY['shadowed']}** ({mode_line}); its artifacts are under `state/artifacts/knowledge-intake/` (the daily workflow uploads them)"
    else:
        head = f"**{WHY.get(report.outcome, report.outcome)}**"
    lines = [f"### kb distill {report.day}", "", f"- {head}"]
    if report.waiting:
        lines.append(f"- **Waiting**: {report.waiting} pending event(s) did not fit this batch")
    lines += [f"- {note}" for note in report.notes if note not in head]
    return inert.markdown("\n".join(lines) + "\n\n")


def stopped(day: str, message: str) -> str:
    """Markdown for a run stopped by an error."""
    text = " ".join(message.split())[:1000]
    head = f"**No PR opened or updated**: the run stopped: {text}"
    return inert.markdown(f"### kb distill {day}\n\n- {head}\n\n")
