"""The report's names in words: event kinds, states, rules, arms and metrics as a reader says
them, and counts with the right plural."""

from __future__ import annotations

KINDS = {
    "merged_pr": ("merged pull request", "merged pull requests"),
    "bugfix_run": ("bugfix run", "bugfix runs"),
    "lesson": ("promoted lesson", "promoted lessons"),
}
STATES = {
    "pending": "pending",
    "published": "published (in a PR)",
    "shadowed": "shadowed (no PR)",
    "failed": "failed",
    "rejected": "rejected (its PR closed unmerged)",
    "skipped": "skipped (triage: no rule expected)",
}
ARMS = {
    "randomised_inject": "randomly assigned: lessons injected",
    "randomised_shadow": "randomly assigned: lessons withheld (shadow)",
    "inject_shown": "inject mode, lessons shown",
    "inject_none": "inject mode, no lesson selected",
    "shadow": "shadow mode (lessons logged, not shown)",
    "history": "never considered (closed before lessons)",
}
METRICS = {
    "confirmed_per_task": "confirmed findings per task",
    "tokens_per_confirmed": "tokens per confirmed finding",
    "tool_calls_per_confirmed": "tool calls per confirmed finding",
    "false_positive_rate": "false-positive rate",
    "duplicate_rate": "duplicate rate",
}
VIA = {
    "github": "the GitHub scan",
    "git": "the git history",
    "drop": "drop files",
    "mailbox": "issue comments",
}
LESSON_KINDS = {"positive": "positive", "negative": "negative", "caution": "caution"}


def plural(count: int, one: str, many: str | None = None) -> str:
    """`1 page`, `2 pages`: the count and the noun."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


def kind(name: str, count: int | None = None) -> str:
    """An event kind in words (`merged_pr` -> `merged pull requests`)."""
    one, many = KINDS.get(name, (name.replace("_", " "), name.replace("_", " ") + "s"))
    return (one if count == 1 else many) if count is not None else many


def state(name: str) -> str:
    return STATES.get(name, name.replace("_", " "))


def arm(name: str) -> str:
    return ARMS.get(name, name.replace("_", " "))


def metric(name: str) -> str:
    return METRICS.get(name, name.replace("_", " "))


def rule(rule_id: str) -> str:
    """What a validator rule checks, from the rulebook (the id itself when unknown)."""
    from kbkit.checks.rules import all_rules

    found = all_rules().get(rule_id)
    return found.summary if found is not None else rule_id


def pull_request(url: str) -> str:
    """`owner/name #12` for a pull request's address (`https://host/owner/name/pull/12`)."""
    parts = url.split("/")
    if len(parts) >= 7 and parts[-2] == "pull" and parts[-1].isdigit():
        return f"{parts[-4]}/{parts[-3]} #{parts[-1]}"
    return url


def pr_states(prs: list[dict[str, object]]) -> str:
    """`3 knowledge PRs: 1 open, 2 merged` (states in the order a reader looks for them)."""
    counts: dict[str, int] = {}
    for pr in prs:
        counts[str(pr["state"])] = counts.get(str(pr["state"]), 0) + 1
    order = ("open", "merged", "closed", "opened")
    named = {"opened": "opened (state not read)"}
    parts = [f"{counts[s]} {named.get(s, s)}" for s in order if counts.get(s)]
    noun = "knowledge PR" if len(prs) == 1 else "knowledge PRs"
    return f"{len(prs)} {noun}: " + ", ".join(parts)


def pr_states_source(read: str | None) -> str:
    """Where the PRs' states come from."""
    if read:
        return (
            f"Open, merged and closed as GitHub showed them to kb distill on {read} "
            "(the report itself asks GitHub nothing)."
        )
    return (
        "The ledger records that a PR was opened, not whether it was merged since: kb distill "
        "in review mode leaves the states it reads in state/knowledge-prs.json."
    )


def reason(decision: dict[str, object]) -> str:
    """Why a proposal was rejected: its reason code and the curator's message (`—` when it
    was accepted)."""
    if decision.get("decision") != "rejected":
        return "—"
    code, message = decision.get("reason"), decision.get("message")
    return f"{code}: {message}" if message else str(code)


def source(entry: dict[str, object]) -> str:
    """`4 merged pull requests from kbkit-dev/kbkit (the GitHub scan)`, without the count."""
    count = entry.get("events")
    text = kind(str(entry["kind"]), count if isinstance(count, int) else None)
    if entry.get("repo"):
        text += f" from {entry['repo']}"
    via = entry.get("via")
    if via:
        text += f" ({VIA.get(str(via), str(via))})"
    return text


def left_out(shown: int, total: int, what: str, whats: str | None = None) -> str:
    """The line under a cut list: how many are not listed and how to list them ("" when
    none is left out)."""
    rest = total - shown
    if rest <= 0:
        return ""
    many = f"more {whats}" if whats else None
    return f"... and {plural(rest, 'more ' + what, many)} not listed here; kb report --all lists every one."
