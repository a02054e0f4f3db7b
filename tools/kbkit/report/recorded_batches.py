"""Batches the ledger recorded (`intake/batches.jsonl`, `kbkit.intake.batch_ledger`): the
report's rows and decisions for a batch whose artifact folder this runner does not have
(a fresh runner, a lead's clone), in the same shape `kbkit.report.batches` gives a folder."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

PR_URL = re.compile(r"https://[A-Za-z0-9.-]+(?::[0-9]+)?/[^\s<>\"'`\\]+/pull/[0-9]+")

GATES = {
    "published": "passed",
    "shadowed": "passed",
    "no-rules": "not run (no accepted proposals)",
    "refused": "not reached",
}


def recorded_batch(
    source: str, row: dict[str, Any], published: dict[str, dict[str, Any]], root: str
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A batch the ledger recorded (no artifact folder here): its row and its decisions."""
    batch, day = str(row["batch_id"]), str(row["day"])
    made = []
    for p in row["proposals"]:
        decision = "accepted" if p.get("decision") == "accepted" else "rejected"
        target = p.get("target")
        made.append(
            {
                "batch": batch,
                "day": day,
                "decision": decision,
                "rule_id": p.get("rule_id") if isinstance(p.get("rule_id"), str) else None,
                "title": p.get("title") if isinstance(p.get("title"), str) else None,
                "page": f"{root}/{target}.md" if isinstance(target, str) and target else None,
                "reason": p.get("reason") if decision == "rejected" else None,
                "message": p.get("message") if decision == "rejected" else None,
            }
        )
    rejected = [d for d in made if d["decision"] == "rejected"]
    outcome = str(row.get("outcome") or "unknown")
    pub = published.get(batch, {})
    notes = row.get("notes")
    failed_gate = outcome == "failed" and any(
        isinstance(n, str) and n.startswith("validators refused") for n in notes or []
    )
    commit = row.get("commit")
    url = pub.get("url") or row.get("url")
    return {
        "batch": batch,
        "day": day,
        "events": len(row.get("events") or []),
        "accepted": len(made) - len(rejected),
        "rejected": len(rejected),
        "rejected_by_reason": dict(sorted(Counter(str(d["reason"]) for d in rejected).items())),
        "pages_touched": len(row.get("pages") or []),
        "gate": "refused" if failed_gate else GATES.get(outcome, "not reached"),
        "commit": commit[:40] if isinstance(commit, str) else None,
        "state": pub.get("state"),
        "pr": url if isinstance(url, str) and PR_URL.fullmatch(url) else None,
        "artifact": None,
        "outcome": outcome,
        "notes": [n for n in notes or [] if isinstance(n, str)][-3:],
        "recorded": source,
    }, made
