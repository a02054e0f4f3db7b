"""Curator and publication: one row per batch folder written by `kbkit.distill.artifacts`."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from kbkit.infra import json_input
from kbkit.infra.paths import BATCH_ARTIFACTS as ARTIFACTS
from kbkit.infra.paths import KNOWLEDGE_PRS
from kbkit.intake.ledger import Row, sequence
from kbkit.report.recorded_batches import PR_URL as _PR_URL
from kbkit.report.recorded_batches import recorded_batch
from kbkit.report.window import Window

MAX_ROWS = 50  # newest batches listed one by one; totals cover the whole window
MAX_DECISIONS = 100  # newest proposals listed one by one
MAX_REPLY_BYTES = 4 * 1024 * 1024


def read_object(path: Path) -> dict[str, Any]:
    """A JSON object from a file kbkit wrote; empty when it is missing or not an object."""
    try:
        data = json_input.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _publication(status_rows: list[Row]) -> dict[str, dict[str, Any]]:
    """batch id -> the latest state its rows reached, and a PR link when one was opened."""
    out: dict[str, dict[str, Any]] = {}
    for row in status_rows:
        batch = row.get("batch_id")
        if not isinstance(batch, str):
            continue
        seen = out.setdefault(batch, {"state": None, "seq": -1, "url": None})
        if sequence(row) >= seen["seq"]:
            seen["state"], seen["seq"] = row.get("state"), sequence(row)
        if isinstance(row.get("url"), str):
            seen["url"] = row["url"]
    return out


def _gate(apply: dict[str, Any], folder: Path) -> str:
    validators = apply.get("validators")
    if isinstance(validators, dict) and validators.get("status"):
        return str(validators["status"])
    if apply.get("note"):
        return "not run (no accepted proposals)"
    if (folder / "validators.txt").is_file():
        return "refused"
    return "not reached"


def collect(
    state_dir: Path,
    status_rows: list[Row],
    window: Window,
    shown: Path,
    root: str = "knowledge",
    everything: bool = False,
    recorded: dict[str, dict[str, Any]] | None = None,
    recorded_from: str = "intake/batches.jsonl",
) -> dict[str, Any]:
    """Aggregate every batch whose day is in the window: per batch, and each proposal the
    model made with what was decided (rule id, title, page, reason). A batch's artifact
    folder is read when this runner has it; otherwise its row of `recorded` (the batch
    ledger, `kbkit.intake.batch_ledger`), which the state branch carries to every clone."""
    top = state_dir / ARTIFACTS
    published = _publication(status_rows)
    rows: list[dict[str, Any]] = []
    decisions: list[list[dict[str, Any]]] = []  # per batch, oldest batch first
    reasons: Counter[str] = Counter()
    folders: list[tuple[str, str, Path | None]] = []
    days = sorted(p for p in top.iterdir() if p.is_dir()) if top.is_dir() else []
    for day in days:
        if window.contains(day.name):
            folders += [(day.name, f.name, f) for f in sorted(p for p in day.iterdir() if p.is_dir())]  # fmt: skip
    have = {name for _day, name, _folder in folders}
    ledger_only: list[tuple[str, str, Path | None]] = [
        (row["day"], batch, None)
        for batch, row in (recorded or {}).items()
        if batch not in have and window.contains(row["day"])
    ]
    for day_name, name, found in sorted(folders + ledger_only, key=lambda item: item[:2]):
        if found is None:
            row, made = recorded_batch(recorded_from, (recorded or {})[name], published, root)
            reasons.update(row["rejected_by_reason"])
            rows.append(row)
            decisions.append(made)
            continue
        folder = found
        validation = read_object(folder / "validation.json")
        apply = read_object(folder / "apply.json")
        batch = read_object(folder / "batch.json")
        accepted = [r for r in validation.get("accepted") or [] if isinstance(r, dict)]
        rejected = [r for r in validation.get("rejected") or [] if isinstance(r, dict)]
        by_reason = Counter(str(r.get("reason")) for r in rejected)
        reasons.update(by_reason)
        pub = published.get(folder.name, {})
        commit = folder / "commit.txt"
        rows.append(
            {
                "batch": folder.name,
                "day": day_name,
                "events": len(batch.get("events") or []),
                "accepted": len(accepted),
                "rejected": len(rejected),
                "rejected_by_reason": dict(sorted(by_reason.items())),
                "pages_touched": len(apply.get("changes") or []),
                "gate": _gate(apply, folder),
                "commit": commit.read_text(encoding="utf-8").strip()[:40]
                if commit.is_file()
                else None,
                "state": pub.get("state"),
                "pr": pub.get("url"),
                "artifact": _shown(folder, shown),
                "outcome": _outcome(accepted, rejected, pub.get("state")),
                "notes": [],
            }
        )
        titles = _proposed_titles(folder)
        decisions.append(
            [
                _decision(folder.name, day_name, decision, row, titles, root)
                for decision, proposals in (("accepted", accepted), ("rejected", rejected))
                for row in proposals
            ]
        )
    snapshot = read_object(state_dir / KNOWLEDGE_PRS)
    return {
        "source": f"{_shown(top, shown)}/<day>/<batch>/ (validation.json, apply.json, reply.txt, "
        f"commit.txt), else {recorded_from} (what each batch decided, carried on the state "
        "branch), and intake/status.jsonl (state, PR url)",
        "totals": {
            "batches": len(rows),
            "proposals": sum(len(d) for d in decisions),
            "accepted": sum(r["accepted"] for r in rows),
            "rejected": sum(r["rejected"] for r in rows),
            "pages_touched": sum(r["pages_touched"] for r in rows),
            "published": sum(1 for r in rows if r["pr"]),
            "shadowed": sum(1 for r in rows if r["state"] == "shadowed"),
            "failed": sum(1 for r in rows if r["state"] == "failed"),
            "refused": sum(1 for r in rows if r["outcome"] == "refused"),
        },
        "rejected_by_reason": [
            {"reason": k, "count": v}
            for k, v in sorted(reasons.items(), key=lambda i: (-i[1], i[0]))
        ],
        "decisions": [d for batch in decisions[::-1] for d in batch][
            : None if everything else MAX_DECISIONS
        ],
        "knowledge_prs": knowledge_prs(status_rows, window, snapshot),
        "knowledge_prs_read": _snapshot_day(snapshot),
        "batches": (rows if everything else rows[-MAX_ROWS:])[::-1],
    }


def _outcome(accepted: list[Any], rejected: list[Any], state: object) -> str:
    """A batch folder's outcome as distill names it: refused (every proposal rejected),
    else the state its rows reached (published, shadowed, failed, pending)."""
    if rejected and not accepted:
        return "refused"
    return str(state) if isinstance(state, str) else "unknown"


def _decision(
    batch: str, day: str, decision: str, row: dict[str, Any], titles: dict[int, str], root: str
) -> dict[str, Any]:
    target = row.get("target")
    index = row.get("model_index")
    title = row.get("title")
    if not isinstance(title, str) and isinstance(index, int):
        title = titles.get(index)
    return {
        "batch": batch,
        "day": day,
        "decision": decision,
        "rule_id": row.get("rule_id") if isinstance(row.get("rule_id"), str) else None,
        "title": title if isinstance(title, str) else None,
        "page": f"{root}/{target}.md" if isinstance(target, str) and target else None,
        "reason": row.get("reason") if decision == "rejected" else None,
        "message": row.get("message") if decision == "rejected" else None,
    }


def _proposed_titles(folder: Path) -> dict[int, str]:
    """The title of each row of the model's reply (`reply.txt`), by its position: a rejected
    row's record carries no title of its own."""
    reply = folder / "reply.txt"
    try:
        if reply.stat().st_size > MAX_REPLY_BYTES:
            return {}
        data = json_input.loads(reply.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    rows = data.get("proposals") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        return {}
    return {
        n: row["title"]
        for n, row in enumerate(rows)
        if isinstance(row, dict) and isinstance(row.get("title"), str)
    }


def knowledge_prs(
    status_rows: list[Row], window: Window, snapshot: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Adapter: the knowledge PRs, newest first: one per `url` the ledger's `published` rows
    carry (with the day it was last updated and the events it carries), and every PR of
    distill's last reading of GitHub (`snapshot`, state/knowledge-prs.json), whose state
    (open, merged, closed) it gives. A PR only the ledger knows is `opened` (merged since or
    not: the report does not ask GitHub)."""
    prs: dict[str, dict[str, Any]] = {}
    refused: set[str] = set()
    for row in status_rows:
        url = row.get("url")
        if url is None or row.get("state") != "published" or url in refused:
            continue
        pr = prs.get(url) if isinstance(url, str) else None
        if pr is None:
            if not isinstance(url, str) or not _PR_URL.fullmatch(url):
                refused.add(str(url))
                continue
            pr = prs[url] = {"url": url, "state": "opened", "events": set(), "at": "", "since": ""}
        pr["events"].add((row.get("source_kind"), row.get("source_id")))
        at = row.get("at")
        if isinstance(at, str) and at > pr["at"]:
            pr["at"] = at
        if isinstance(at, str) and (not pr["since"] or at < pr["since"]):
            pr["since"] = at
    for entry in _snapshot_prs(snapshot):
        pr = prs.setdefault(entry["url"], {"url": entry["url"], "events": set(), "at": "", "since": ""})  # fmt: skip
        pr["state"] = entry["state"]
        if not pr["at"]:
            pr["at"] = f"{entry['day']}T00:00:00Z" if entry["day"] else ""
        if entry["day"]:  # the PR's own day: when it was opened
            pr["since"] = f"{entry['day']}T00:00:00Z"
    listed = [
        {
            "url": pr["url"],
            "state": pr["state"],
            "events": len(pr["events"]),
            "at": pr["at"],
            "since": pr["since"] or pr["at"],
        }  # fmt: skip
        for pr in prs.values()
        if window.contains(pr["at"]) or not pr["at"] or pr["state"] == "open"
    ]
    return sorted(listed, key=lambda pr: (pr["at"], pr["url"]), reverse=True)


_SNAPSHOT_STATES = ("open", "merged", "closed")
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _snapshot_prs(snapshot: dict[str, Any] | None) -> list[dict[str, str]]:
    """The well-formed PR entries of a snapshot (anything else is left out)."""
    entries = snapshot.get("prs") if snapshot else None
    out = []
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict):
            continue
        url, state, day = entry.get("url"), entry.get("state"), entry.get("day")
        if isinstance(url, str) and _PR_URL.fullmatch(url) and state in _SNAPSHOT_STATES:
            shown_day = day if isinstance(day, str) and _DAY.fullmatch(day) else ""
            out.append({"url": url, "state": str(state), "day": shown_day})
    return out


def _snapshot_day(snapshot: dict[str, Any] | None) -> str | None:
    """The day distill last read the knowledge PRs from GitHub, when it did."""
    day = snapshot.get("read") if snapshot else None
    return day if isinstance(day, str) and _DAY.fullmatch(day) else None


def _shown(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return str(path)
