"""The report's numbers: every section collected once, as one JSON-ready mapping."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from kbkit import clock
from kbkit.report.window import DEFAULT_DAYS, Window

VERSION = 1


class Sources(NamedTuple):
    """Where each section reads from."""

    repo: Path  # holds the knowledge tree (and, by default, intake/ and state/)
    intake: Path
    state: Path


def _shown(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix() or "."
    except ValueError:
        return str(path)


def build(sources: Sources, window: Window, *, use_cache: bool = True) -> dict[str, Any]:
    """Collect every section; a missing ledger, store or artifact folder reads as empty."""
    from kbkit.jsonl import gc_paused

    now = clock.now()
    with gc_paused():  # 100k-row ledgers and stores make no cycles; collections only cost time
        return _build(sources, window, use_cache, now)


def _build(sources: Sources, window: Window, use_cache: bool, now: Any) -> dict[str, Any]:
    from kbkit.intake.ledger import EVENTS_FILE, STATUS_FILE
    from kbkit.lessons.store import STORE_DIR
    from kbkit.policy import load_policy
    from kbkit.report import batches, intake_funnel, lessons_section, tree_health

    base = sources.repo
    policy = load_policy(sources.repo)
    ledgers = intake_funnel.Ledgers(sources.intake)
    intake_shown = _shown(sources.intake, base)
    lessons_dir = sources.intake / STORE_DIR
    return {
        "version": VERSION,
        "generated_at": clock.timestamp(now),
        "repo": str(sources.repo),
        "window": {
            **window.to_dict(),
            "default": f"the last {DEFAULT_DAYS} days up to today (UTC)",
        },
        "tree": tree_health.collect(sources.repo, policy, now.date(), use_cache),
        "intake": intake_funnel.collect(
            ledgers,
            window,
            now,
            f"{intake_shown}/{EVENTS_FILE}, {intake_shown}/{STATUS_FILE}, {intake_shown}/cursor.json",
        ),
        "curator": batches.collect(sources.state, ledgers.status_rows, window, base),
        "lessons": lessons_section.collect(
            lessons_dir,
            window,
            f"{_shown(lessons_dir, base)}/ (lessons, evidence, outcomes, usage .jsonl)",
        ),
    }
