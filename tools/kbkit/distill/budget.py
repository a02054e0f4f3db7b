"""A distill run's budget (issue #39: an organization's pace): how many model calls and how
many minutes one run may spend distilling batch after batch, and the lines that say what it
spent."""

from __future__ import annotations

from pathlib import Path

from kbkit.distill.session import Report, batch_line
from kbkit.infra.errors import UsageError
from kbkit.intake.repo_identity import CONFIG_FILE, read_config

DEFAULT_MODEL_CALLS = 10  # 10 batches of 20: 200 events a run
DEFAULT_MINUTES = 20.0  # the example workflow's job has 30


def run_budget(
    intake: Path, calls_option: int | None, minutes_option: float | None
) -> tuple[int, float]:
    """The run's budget: the options, else `distill:` in intake/config.yaml, else defaults;
    a bad value is a usage error naming the option or the file."""
    where = f"{intake / CONFIG_FILE}: `distill`"
    config = read_config(intake).get("distill") or {}
    if not isinstance(config, dict):
        raise UsageError(f"{where} must be a mapping (max_model_calls, max_minutes)")
    unknown = sorted(str(k) for k in config if k not in ("max_model_calls", "max_minutes"))
    if unknown:
        raise UsageError(f"{where}: unknown key {unknown[0]!r}; use max_model_calls, max_minutes")
    calls = calls_option if calls_option is not None else config.get("max_model_calls", DEFAULT_MODEL_CALLS)  # fmt: skip
    minutes = minutes_option if minutes_option is not None else config.get("max_minutes", DEFAULT_MINUTES)  # fmt: skip
    if type(calls) is not int or calls < 1:
        raise UsageError(f"the model-call budget must be a whole number of at least 1, not {calls!r} (--max-model-calls or {where}.max_model_calls)")  # fmt: skip
    if type(minutes) not in (int, float) or minutes <= 0:
        raise UsageError(f"the time budget must be a positive number of minutes, not {minutes!r} (--max-minutes or {where}.max_minutes)")  # fmt: skip
    return calls, float(minutes)


def run_lines(report: Report) -> list[str]:
    """The end of `kb distill`'s text: each batch (when there were several), what triage
    skipped, the notes, and what the run cost (model calls, GitHub calls: gh processes)."""
    lines = []
    if len(report.batches) > 1:
        lines += [batch_line(b) for b in report.batches]
    if report.skipped:
        lines.append(f"skipped by triage: {report.skipped} event(s) that carry no rule")
    lines += [f"note: {note}" for note in report.notes]
    cost = report.cost
    lines.append(
        f"cost: {cost.get('model_calls', 0)} model call(s), "
        f"{cost.get('github_calls', 0)} GitHub call(s)"
    )
    return lines
