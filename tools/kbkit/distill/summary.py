"""The run's summary for `$GITHUB_STEP_SUMMARY`: what the run opened or updated, or why not.

A day whose run opened or updated no PR says why in one line (nothing pending, no rule
proposed, the cadence deferred it, shadow mode, a failed attempt, or the error that stopped
it), so a quiet day never looks like a broken one, nor the other way round. Copied text is
inert (`kbkit.infra.inert`); the error that stopped a run is outside text, shown with no live
link or image (`kbkit.infra.outward.markdown`).
"""

from __future__ import annotations

from kbkit.distill.session import Report, batch_line
from kbkit.infra import inert, outward

WHY = {
    "nothing-pending": "nothing was pending (every recorded event is published, shadowed or "
    "failed, or listed by a knowledge PR)",
    "no-rules": "the model proposed no rule that passed validation for this batch; its "
    "events are marked shadowed with the reason `no rules`",
    "refused": "every rule the model proposed was refused by the mechanical checks (the "
    "reasons are below and in the batch's validation.json); its events stay pending, one "
    "attempt counted, and are proposed again",
    "shadowed": "shadow mode",
    "raced": "another kbkit run published to today's branch first, every time this run "
    "tried; its events stay pending (no attempt counted) for the next run",
    "dry-run": "a dry run writes nothing",
}


def summary(report: Report, mode_line: str) -> str:
    """Markdown for the run's summary."""
    lines = [f"### kb distill {report.day}", ""]
    if report.outcome == "published" and report.url and len(report.batches) > 1:
        lines.append(
            f"- **PR**: {report.url} now carries {len(report.batches)} new batches "
            f"({len(report.events)} event(s), {len(report.accepted)} rule(s) accepted, "
            f"{len(report.rejected)} rejected)"
        )
    elif report.outcome == "published" and report.url:
        lines.append(
            f"- **PR**: {report.url} now carries batch `{report.batch_id}` ({len(report.events)} "
            f"event(s), {len(report.accepted)} rule(s) accepted, {len(report.rejected)} rejected)"
        )
    else:
        if report.outcome in ("failed", "deferred"):
            why = report.notes[-1] if report.notes else "see the log"
            why = ("a failed attempt: " if report.outcome == "failed" else "") + why
        else:
            why = WHY.get(report.outcome, report.outcome)
        if report.outcome == "shadowed":
            why += (
                f" ({mode_line}); its artifacts are under `state/artifacts/knowledge-intake/` "
                "(the daily workflow uploads them)"
            )
        what = "No new batch" if report.updated else "No PR opened or updated"
        lines.append(f"- **{what}**: {why}")
    if report.updated:
        shown = ", ".join(f"#{n}" for n in report.updated)
        lines.append(f"- **Brought up to date with main**: {shown} (rebuilt, or closed when nothing was left)")  # fmt: skip
    if len(report.batches) > 1:
        lines += [f"  - {batch_line(b, '`')}" for b in report.batches]
    if report.waiting:
        lines.append(f"- **Waiting**: {report.waiting} pending event(s) did not fit this run")
    if report.skipped:
        lines.append(f"- **Skipped by triage**: {report.skipped} event(s) that carry no rule (no model call)")  # fmt: skip
    lines += [f"- {note}" for note in report.notes if note not in lines[2]]
    if report.cost:
        lines.append(
            f"- **Cost**: {report.cost.get('model_calls', 0)} model call(s), "
            f"{report.cost.get('github_calls', 0)} GitHub call(s)"
        )
    return inert.markdown("\n".join(lines) + "\n\n")


def stopped(day: str, message: str) -> str:
    """Markdown for a run stopped by an error."""
    text = outward.markdown(" ".join(message.split())[:1000])  # it may quote a page's text
    head = f"**No PR opened or updated**: the run stopped: {text}"
    return inert.markdown(f"### kb distill {day}\n\n- {head}\n\n")
