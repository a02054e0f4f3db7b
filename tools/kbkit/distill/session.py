"""One distill run's options, its notes and progress lines, and the report it returns."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.curator.events import MAX_EVENTS
from kbkit.distill.models import Gateway
from kbkit.distill.publication import Settings
from kbkit.intake.ledger import Key
from kbkit.intake.triage import OFF, Triage
from kbkit.vcs import github


class Options(NamedTuple):
    intake_dir: Path
    state_dir: Path
    knowledge_repo: str
    day: str
    gateway: Gateway
    settings: Settings
    base_branch: str | None = None
    max_events: int = MAX_EVENTS
    max_rules: int = 5
    max_attempts: int = 3
    dry_run: bool = False
    scheduled: bool = False
    quiet: bool = False
    # The run's budget (issue #39): it distills batch after batch while events are pending,
    # until it has made `max_model_calls` model calls or `max_seconds` have passed (at
    # least one batch always runs). 1 call: one batch a run, as before.
    max_model_calls: int = 1
    max_seconds: float | None = None
    triage: Triage = OFF  # what is skipped before any model call (`kb distill`: the config's)


class Report(NamedTuple):
    day: str
    branch: str
    outcome: (
        str  # nothing-pending, no-rules, refused, shadowed, published, deferred, failed, dry-run
    )
    batch_id: str | None = None
    events: tuple[str, ...] = ()  # "kind id" of the batch
    accepted: tuple[dict[str, Any], ...] = ()
    rejected: tuple[dict[str, Any], ...] = ()
    pages: tuple[str, ...] = ()  # document IDs changed
    commit: str | None = None
    artifacts: Path | None = None
    url: str | None = None
    notes: tuple[str, ...] = ()
    waiting: int = 0  # pending events the batch had no room for
    updated: tuple[int, ...] = ()  # knowledge PRs brought up to date with main (or closed)
    batches: tuple[dict[str, Any], ...] = ()  # each batch of the run: id, outcome, counts
    skipped: int = 0  # events triage skipped this run (no model call)
    cost: dict[str, int] = {}  # model_calls, github_calls


class Session:
    """A run's options plus what it noted on the way (the report's `notes`)."""

    def __init__(self, options: Options):
        self.o = options
        self.notes: list[str] = []
        self.updated: list[int] = []  # knowledge PRs rebuilt or closed by this run
        self.model_calls = 0
        self.github_calls_before = github.calls_made()
        self.skipped = 0

    def say(self, message: str) -> None:
        """One progress line on stderr (unless quiet)."""
        if not self.o.quiet:
            print(f"distill: {message}", file=sys.stderr, flush=True)

    def note(self, message: str) -> None:
        """A note for the report, also said as progress."""
        self.notes.append(message)
        self.say(message)


def key_text(key: Key) -> str:
    """A ledger key as the "kind id" line commits, bodies and reports show."""
    return f"{key[0]} {key[1]}"


def batch_line(batch: dict[str, Any], quote: str = "") -> str:
    """One batch of a run in words: its id (between `quote`s), outcome and counts."""
    return (
        f"batch {quote}{batch['batch_id']}{quote}: {batch['outcome']}, {batch['events']} "
        f"event(s), {batch['accepted']} accepted, {batch['rejected']} rejected"
    )
