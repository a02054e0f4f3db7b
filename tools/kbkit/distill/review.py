"""Review mode's start of a run: GitHub's knowledge PRs read back, the ledger reconciled with
them, and every open one brought up to date with main.

The ledger is a copy; the PRs are the truth. A row whose source event a knowledge PR's
record lists (open, merged, or closed by kbkit) is published, whatever the local ledger says
(a lost status push cannot publish it twice); a row the ledger calls published by a
knowledge PR that no longer lists it (a rule that stopped applying) is pending again. A PR a
person closed without merging (it still carries rules: kbkit closes only PRs with none left)
rejected its rules: its events are `rejected`, never proposed again unless someone runs
`kb intake requeue --rejected` (a requeued row stays pending until a new PR lists it).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from kbkit.distill import knowledge_prs, pr_snapshot, refresh
from kbkit.distill.knowledge_prs import KnowledgePr
from kbkit.distill.publication import Publisher
from kbkit.distill.rows import mark
from kbkit.distill.session import Session
from kbkit.distill.work_clone import BRANCH_PREFIX
from kbkit.intake.ledger import Key, load_events, load_status
from kbkit.vcs import git


class ReviewState(NamedTuple):
    prs: list[KnowledgePr]
    fork_heads: dict[str, str]  # branch -> commit, as fetched into FORK_REFS
    main: str  # the base branch's commit the open PRs were brought up to date with

    def listed(self) -> dict[Key, KnowledgePr]:
        """Every source event a knowledge PR lists -> that PR (the first, if two did); the
        PRs a person rejected are not counted (`rejected`)."""
        found: dict[Key, KnowledgePr] = {}
        for pr in self.prs:
            for key in pr.record.sources() if pr.record and not is_rejected(pr) else ():
                found.setdefault(key, pr)
        return found

    def rejected(self) -> dict[Key, KnowledgePr]:
        """Every source event a rejected knowledge PR lists (and no other PR does) -> it."""
        listed = self.listed()
        found: dict[Key, KnowledgePr] = {}
        for pr in self.prs:
            for key in pr.record.sources() if pr.record and is_rejected(pr) else ():
                if key not in listed:
                    found.setdefault(key, pr)
        return found

    def head(self, pr: KnowledgePr) -> str | None:
        return self.fork_heads.get(pr.pull.head_ref)


def is_rejected(pr: KnowledgePr) -> bool:
    """Closed without merging by a person: kbkit itself closes only a PR with no rule left."""
    return (
        pr.pull.state == "closed"
        and not pr.pull.merged
        and bool(pr.record and pr.record.rule_ids())
    )


def open_review(s: Session, publisher: Publisher) -> ReviewState:
    """Read the knowledge PRs, reconcile the ledger, bring every open PR up to date."""
    o = s.o
    clone = publisher.clone
    base = publisher.settings.base_branch
    prs = knowledge_prs.read(publisher.upstream, publisher.fork_owner, base, o.day, clone)
    needed = {pr.pull.head_ref for pr in prs if pr.is_open}
    today = f"{BRANCH_PREFIX}{o.day}"
    heads = publisher.fork_heads(f"{BRANCH_PREFIX}*", lambda b: b in needed or b.startswith(today))
    main = git.rev_parse(clone, f"origin/{base}")
    assert main is not None
    state = ReviewState(prs, heads, main)
    reconcile(s, state)
    for pr in prs:
        if pr.is_open and pr.problem:
            s.note(f"knowledge PR #{pr.number}: {pr.problem}; it is left as it is")
    state = refresh.bring_up_to_date(s, state, publisher)
    reconcile(s, state)  # rows a rebuild dropped are pending now
    if not o.dry_run:
        pr_snapshot.write(o.state_dir, o.day, state.prs)  # for the offline report
    return state


def reconcile(s: Session, state: ReviewState) -> None:
    """Mark published what a knowledge PR lists, pending what the ledger credits to a
    knowledge PR that no longer lists it."""
    o = s.o
    if o.dry_run:
        return
    events = load_events(o.intake_dir)
    status = load_status(o.intake_dir)
    listed = state.listed()
    fixed = 0
    for key, pr in listed.items():
        current = status.get(key) or {}
        done = current.get("state") == "published" and current.get("url") == pr.pull.url
        if key not in events or done:
            continue
        batch = next((b for b in pr.record.batches if key in b.sources), None) if pr.record else None  # fmt: skip
        mark(
            o.intake_dir,
            key,
            "published",
            attempts=int(current.get("attempts", 0)),
            previous=status.get(key),
            batch_id=batch.batch_id if batch else None,
            url=pr.pull.url,
            reason=f"listed by knowledge PR #{pr.number} (read back from GitHub)",
        )
        fixed += 1
    fixed += _mark_rejected(s, state, events, status)
    by_url = {pr.pull.url: pr for pr in state.prs if pr.record is not None}
    rejected = state.rejected()
    for key, current in status.items():
        lister = by_url.get(str(current.get("url") or ""))
        if (
            current.get("state") != "published"
            or lister is None
            or key in listed
            or key in rejected
        ):
            continue
        mark(
            o.intake_dir,
            key,
            "pending",
            attempts=int(current.get("attempts", 0)),
            previous=current,
            reason=f"knowledge PR #{lister.number} no longer lists it",
        )
        fixed += 1
    if fixed:
        s.note(f"reconciled {fixed} ledger row(s) with the knowledge PRs on GitHub")


def _mark_rejected(s: Session, state: ReviewState, events: dict[Key, Any], status: dict[Key, Any]) -> int:  # fmt: skip
    """Rows a rejected PR lists become `rejected`, once: a row someone requeued since (its
    reason says so) stays pending for a new PR."""
    marked = 0
    for key, pr in state.rejected().items():
        current = status.get(key) or {}
        now = current.get("state", "pending")
        requeued = now == "pending" and str(current.get("reason", "")).startswith("requeued")
        if key not in events or now not in ("pending", "published") or requeued:
            continue
        mark(
            s.o.intake_dir,
            key,
            "rejected",
            attempts=int(current.get("attempts", 0)),
            previous=status.get(key),
            url=pr.pull.url,
            reason=f"knowledge PR #{pr.number} was closed without merging",
        )
        marked += 1
    return marked
