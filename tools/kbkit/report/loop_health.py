"""Is the loop healthy, and what waits on the lead: the first two answers of the report.

Loop health weighs what the ledgers say went wrong: failed events (every one, and how many
distill gave up on at its attempt cap), batches whose every proposal was refused (in the
window), the oldest pending event's age against PENDING_DAYS, events still retrying, and
the last successful run (the newest published or shadowed transition). The loop is sick
(`bad`) while an event is failed or pending past PENDING_DAYS; refused batches and retries
make it `warn`; otherwise it is healthy, in one line.

What waits on the lead: open knowledge PRs (with their age and link), refused batches to
look at, failed events to requeue or drop.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbkit.report.words import plural

PENDING_DAYS = 7  # an event pending longer than this makes the loop sick
OPEN_STATES = ("open", "opened")  # opened: the ledger knows the PR, not whether it merged


def _days(since: str | None, now: datetime) -> int | None:
    """Whole days from `since` (a UTC timestamp or day) to `now`; None when unreadable."""
    if not since:
        return None
    try:
        moment = datetime.fromisoformat(since.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=now.tzinfo)
    return max(0, int((now - moment).total_seconds() // 86400))


def collect(intake: dict[str, Any], curator: dict[str, Any], now: datetime) -> dict[str, Any]:
    """The loop's health and what waits on the lead, from the report's intake and curator
    sections (so every figure is one those sections show)."""
    states = intake["states"]
    oldest = intake["oldest_pending"]
    age = _days(oldest["recorded_at"], now) if oldest else None
    retrying = sum(n for k, n in intake["pending_attempts"].items() if k != "0")
    refused = [b for b in curator["batches"] if b.get("outcome") == "refused"]
    problems, cautions = [], []
    if states["failed"]:
        problems.append(
            f"{plural(states['failed'], 'failed event')} ({intake['failed_at_cap']} at the "
            "attempt cap)"
        )
    if age is not None and age > PENDING_DAYS:
        problems.append(f"the oldest pending event has waited {plural(age, 'day')}")
    if curator["totals"]["refused"]:
        cautions.append(
            f"{plural(curator['totals']['refused'], 'batch', 'batches')} refused in the window"
        )
    if retrying:
        cautions.append(f"{plural(retrying, 'pending event')} retrying after a failed attempt")
    level = "bad" if problems else "warn" if cautions else "good"
    if level == "good" and not intake["events"] and not curator["totals"]["batches"]:
        level = "none"  # no event recorded, no batch: nothing to judge yet
    prs = [
        {**pr, "age_days": _days(pr.get("since") or pr["at"], now)}
        for pr in curator["knowledge_prs"]
        if pr["state"] in OPEN_STATES
    ]
    return {
        "level": level,
        "problems": problems + cautions,
        "failed_events": states["failed"],
        "failed_at_cap": intake["failed_at_cap"],
        "refused_batches": curator["totals"]["refused"],
        "retrying": retrying,
        "oldest_pending_days": age,
        "pending_days_limit": PENDING_DAYS,
        "last_success": intake["last_success"],
        "last_success_days": _days(intake["last_success"], now),
        "waiting": {
            "open_prs": prs,
            "refused_batches": [
                {
                    "batch": b["batch"],
                    "day": b["day"],
                    "reasons": b["rejected_by_reason"],
                    "pr": b["pr"],
                    "artifact": b["artifact"],
                }
                for b in refused
            ],  # fmt: skip
            "failed_events": states["failed"],
        },
    }


def verdict(loop: dict[str, Any]) -> str:
    """The loop's health in one sentence."""
    last = loop["last_success"]
    since = f"last successful run {last[:10]}" if last else "no successful run yet"
    if loop["level"] == "none":
        return "Nothing to judge yet: no event recorded and no batch distilled"
    if loop["level"] == "good":
        return (
            f"Healthy: nothing failed, nothing refused, nothing pending over "
            f"{loop['pending_days_limit']} days; {since}"
        )
    lead = "Sick" if loop["level"] == "bad" else "Needs a look"
    return f"{lead}: " + "; ".join(loop["problems"]) + f"; {since}"
