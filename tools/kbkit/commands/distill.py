"""`kb distill`: the daily job (cron or CI): pending intake rows -> rules on a day branch."""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import date
from pathlib import Path

from kbkit.distill import job
from kbkit.distill.budget import DEFAULT_MINUTES, DEFAULT_MODEL_CALLS, run_budget, run_lines
from kbkit.distill.models import RecordingGateway, open_gateway
from kbkit.distill.publication import settings_from_env
from kbkit.distill.summary import stopped, summary
from kbkit.infra import clock, settings
from kbkit.infra.errors import KbkitError, UsageError
from kbkit.infra.paths import REPO_HELP, intake_root, repo_root, state_root
from kbkit.intake.repo_identity import read_config
from kbkit.intake.triage import load_triage


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kb distill",
        description="Take up to 20 pending intake events, ask the model for rule sections, "
        "validate and apply them in the work clone (state/clone/), commit on "
        "knowledge/intake-YYYY-MM-DD and publish (shadow by default; a PR with "
        "KBKIT_POST_MODE=review, KBKIT_KNOWLEDGE_PR_ENABLED=true and KBKIT_KNOWLEDGE_FORK_SLUG); "
        "then the next 20, into the same PR, while events are pending and the run's budget lasts "
        "(--max-model-calls, --max-minutes). Changes that carry no rule (bots, dependency "
        "bumps, documentation only, labels: `triage:` in intake/config.yaml) are marked "
        "skipped first, with no model call. The run ends by printing its cost.",
    )
    p.add_argument("--repo", metavar="DIR", help=REPO_HELP)
    p.add_argument("--knowledge-repo", metavar="URL|PATH",
                   help="the knowledge repository to clone (default: $KBKIT_KNOWLEDGE_REPO, then "
                   "`knowledge_repo:` in intake/config.yaml)")  # fmt: skip
    p.add_argument("--base-branch", help="the branch day branches start from (default: origin's)")
    p.add_argument("--model", help="replay:FILE or llm:MODEL_ID (default: $KBKIT_DISTILL_MODEL)")
    p.add_argument("--record", metavar="FILE", type=Path, help="append each reply to a replay file")
    p.add_argument("--today", help="the UTC day YYYY-MM-DD (default: today)")
    p.add_argument("--max-events", type=int, default=20, help="events per batch (at most 20)")
    p.add_argument("--max-rules", type=int, default=5, help="rules the model may propose")
    p.add_argument("--max-attempts", type=int, default=3, help="attempts before a row is failed")
    p.add_argument("--max-model-calls", type=int, default=None, metavar="N",
                   help="the run's budget: distill batch after batch (all into the day's one PR) "
                   "while events are pending, at most N model calls (default: `distill: "
                   f"max_model_calls:` in intake/config.yaml, else {DEFAULT_MODEL_CALLS})")  # fmt: skip
    p.add_argument("--max-minutes", type=float, default=None, metavar="M",
                   help="the run's time budget: start no further batch after M minutes (default: "
                   f"`distill: max_minutes:` in intake/config.yaml, else {DEFAULT_MINUTES:g})")  # fmt: skip
    p.add_argument("--timeout", type=float, default=300.0, help="model call timeout (seconds)")
    p.add_argument("--scheduled", action="store_true",
                   help="an automatic run (also when GITHUB_EVENT_NAME=schedule): at most one PR a day")  # fmt: skip
    p.add_argument("--dry-run", action="store_true",
                   help="everything up to validation (the work clone is cloned or fetched); no ledger, "
                   "page, branch, commit or artifact write")  # fmt: skip
    p.add_argument("--summary", metavar="FILE", type=Path,
                   help="append what the run did, or why it opened or updated no PR, as markdown "
                   "(the daily workflow passes $GITHUB_STEP_SUMMARY)")  # fmt: skip
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.add_argument("--format", choices=("text", "json"), default="text")
    return p


def options_from(args: argparse.Namespace) -> job.Options:
    repo = repo_root(args.repo)
    intake = intake_root(repo)
    max_calls, minutes = run_budget(intake, args.max_model_calls, args.max_minutes)
    source = (
        args.knowledge_repo
        or settings.value("KBKIT_KNOWLEDGE_REPO")
        or read_config(intake).get("knowledge_repo")
    )
    if not source:
        raise UsageError(
            "no knowledge repository: pass --knowledge-repo URL|PATH, set KBKIT_KNOWLEDGE_REPO, or "
            "add `knowledge_repo:` to intake/config.yaml"
        )
    spec = args.model or settings.value("KBKIT_DISTILL_MODEL")
    if not spec:
        raise UsageError("no model: pass --model replay:FILE or --model llm:MODEL_ID")
    if not 1 <= args.max_events <= 20:
        raise UsageError("--max-events must be between 1 and 20")
    if not 1 <= args.max_rules <= 20:
        raise UsageError("--max-rules must be between 1 and 20")
    if args.max_attempts < 1:
        raise UsageError("--max-attempts must be at least 1")
    day = args.today or clock.today().isoformat()
    try:
        date.fromisoformat(day)
    except ValueError as exc:
        raise UsageError(f"--today {day!r}: write the day as YYYY-MM-DD") from exc
    gateway = open_gateway(spec, timeout=args.timeout)
    if args.record:  # also in a dry run: recording is the write that was asked for
        gateway = RecordingGateway(gateway, args.record)
    return job.Options(
        intake_dir=intake,
        state_dir=state_root(repo),
        knowledge_repo=str(source),
        day=day,
        gateway=gateway,
        settings=settings_from_env(os.environ, str(source), args.base_branch or ""),
        base_branch=args.base_branch,
        max_events=args.max_events,
        max_rules=args.max_rules,
        max_attempts=args.max_attempts,
        dry_run=args.dry_run,
        scheduled=args.scheduled or settings.value("GITHUB_EVENT_NAME") == "schedule",
        quiet=args.quiet,
        max_model_calls=max_calls,
        max_seconds=minutes * 60,
        triage=load_triage(intake),
    )


def render(report: job.Report) -> str:
    lines = [f"{report.day}: {report.outcome} ({report.branch})"]
    if report.events:
        lines.append(f"events: {len(report.events)} ({', '.join(report.events)})")
    for row in report.accepted:
        lines.append(f"accepted: {row['rule_id']} on {row['target']}: {row['title']}")
    for row in report.rejected:
        lines.append(
            f"rejected: row {row['model_index']} ({row['rule_id']}): {row['reason']}: {row['message']}"
        )
    if report.pages:
        lines.append(f"pages: {', '.join(report.pages)}")
    if report.commit:
        lines.append(f"commit: {report.commit}")
    if report.url:
        lines.append(f"pull request: {report.url}")
    if report.artifacts:
        lines.append(f"artifacts: {report.artifacts}")
    lines += run_lines(report)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run distill batches within the budget; exit 0 done, 1 a failed attempt or a batch whose
    every proposal was refused (rows stay pending) or dry-run changes."""
    args = parser().parse_args(argv)
    try:
        options = options_from(args)
        if not args.quiet:
            print(f"distill: {options.settings.explanation}", file=sys.stderr)
        report = job.run(options)
    except KbkitError as exc:  # a stopped run says so in the summary too
        _append(args.summary, stopped(args.today or clock.today().isoformat(), str(exc)))
        raise
    _append(args.summary, summary(report, options.settings.explanation))
    if args.format == "json":
        data = report._asdict()
        data["artifacts"] = str(report.artifacts) if report.artifacts else None
        print(json.dumps({"version": 1, **data}, indent=2, ensure_ascii=False))
    else:
        print(render(report))
    if report.outcome in ("failed", "refused") or any(
        b["outcome"] in ("failed", "refused") for b in report.batches
    ):
        return 1
    return 1 if report.outcome == "dry-run" and report.pages else 0


def _append(path: Path | None, text: str) -> None:
    """Append `text` to the summary file, when one was named (best effort: a summary that
    cannot be written never changes the run's outcome)."""
    if path is None:
        return
    try:
        with path.open("a", encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        print(f"distill: could not write the summary to {path}: {exc.strerror}", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
