"""Publish the batches committed on today's branch and mark their rows.

Review: the batches' records join the target PR's record. An open PR gets its body (the
record) first, then the push of its branch (with a lease on the head that was read), then
one comment per new batch; without an open PR the branch is pushed and a PR opened with the
body. Rows become `published` only after that, with the PR's URL. Shadow: each batch keeps
the body review would have sent (`pr-body.md`) and its rows become `shadowed`.

A failure the remote reports is one failed attempt for every row of the batches; rows that
reach the attempt cap are `failed` and their commits leave the branch (and a body that
already listed them is put back), so nothing that failed ships in a later PR.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NamedTuple

from kbkit.curator import KnowledgeProposalValidation
from kbkit.distill import pr_snapshot, work_clone
from kbkit.distill.artifacts import Artifacts, batch_folder
from kbkit.distill.knowledge_prs import KnowledgePr
from kbkit.distill.pr_body import Extras, batch_comment, render
from kbkit.distill.pr_record import TRANSCRIPT_CHARS, BatchRecord, PrRecord
from kbkit.distill.publication import PublicationError, Publisher, RaceLost
from kbkit.distill.rows import after_failure, mark
from kbkit.distill.session import Session
from kbkit.distill.work_clone import CommittedBatch
from kbkit.infra.json_input import loads
from kbkit.infra.steps import reached
from kbkit.intake.ledger import Key, Row
from kbkit.vcs import git

PR_BODY = "pr-body.md"  # the shadow artifact: the day's PR body as review mode would send it


class Target(NamedTuple):
    """Where today's batches go."""

    branch: str
    base: str  # the commit the branch builds on: its open PR's head, or main
    pr: KnowledgePr | None = None  # the open PR it updates (None: publication opens one)
    expect: str | None = None  # the fork branch's commit a push may replace (None: new)
    follow_up_of: int | None = None  # today's merged or closed PR, for a follow-up


class Published(NamedTuple):
    outcome: str  # done, failed, or raced (another run pushed first: nothing marked)
    url: str | None = None
    pr: KnowledgePr | None = None  # the PR now carrying the batches (review)


def unpublished(clone: Path, target: Target, status: Mapping[Key, Row]) -> list[CommittedBatch]:
    """Batches on the target branch above its base whose rows are not published yet:
    pending (a run killed after its commit), or shadowed by that very batch (a shadow run
    earlier today, now in review mode)."""
    tip = git.rev_parse(clone, f"refs/heads/{target.branch}")
    if tip is None:
        return []
    found = []
    for commit in work_clone.batches_between(clone, target.base, tip):
        states = [status.get(k, {}) for k in commit.sources]
        if any(
            row.get("state", "pending") == "pending"
            or (row.get("state") == "shadowed" and row.get("batch_id") == commit.batch_id)
            for row in states
        ):
            found.append(commit)
    return found


def batch_record(state_dir: Path, commit: CommittedBatch) -> BatchRecord | None:
    """A committed batch's record, from its artifacts (None when they are gone)."""
    folder = batch_folder(state_dir, commit.day, commit.batch_id)
    try:
        validation = KnowledgeProposalValidation.from_dict(
            loads((folder / "validation.json").read_text(encoding="utf-8"))
        )
        transcript = (folder / "validators.txt").read_text(encoding="utf-8")
    except (OSError, ValueError, KeyError, TypeError):
        return None
    rejected = tuple(
        {"model_index": r.model_index, "rule_id": r.rule_id, "reason": r.reason, "message": r.message}
        for r in validation.rejected
    )  # fmt: skip
    rows = tuple(p.wire() for p in validation.accepted)
    return BatchRecord(
        commit.batch_id, commit.day, commit.sources, rows, rejected, transcript[:TRANSCRIPT_CHARS]
    )


def publish(
    s: Session,
    publisher: Publisher | None,
    target: Target,
    commits: list[CommittedBatch],
    status: Mapping[Key, Row],
    extras: Callable[[], Extras],
) -> Published:
    """Publish `commits` (on the target branch, oldest first) and mark their rows."""
    records = [batch_record(s.o.state_dir, c) for c in commits]
    if any(r is None for r in records):
        raise PublicationError(
            "the artifacts of a committed batch are gone (state/ was wiped); its rows stay "
            "pending and are distilled again"
        )
    batches = [r for r in records if r is not None]
    shas = _branch_commits(s.o.state_dir / "clone", target)
    s.say(f"publishing {target.branch} ({'review' if publisher else 'shadow'})")
    if publisher is None:
        _keep_shadow_body(s, target, batches, extras()._replace(commits=shas))
        _mark(s, commits, status, state="shadowed", branch=target.branch)
        return Published("done")
    try:
        pr = _to_github(s, publisher, target, batches, extras()._replace(commits=shas))
    except RaceLost as exc:  # another run's batches went first: not an attempt, no row marked
        git.reset_branch(s.o.state_dir / "clone", target.branch, target.base)
        s.note(f"{exc}; this run reads the PRs again and distills its events on top (no attempt counted)")  # fmt: skip
        return Published("raced")
    except PublicationError as exc:
        failed = _mark(s, commits, status, failure=exc, branch=target.branch)
        if failed:
            _leave_branch(s, target, commits)
        s.note(f"publication failed: {exc}")
        return Published("failed")
    _mark(s, commits, status, state="published", branch=target.branch, url=pr.pull.url)
    if not s.o.dry_run:
        pr_snapshot.opened(s.o.state_dir, s.o.day, pr)
    return Published("done", pr.pull.url, pr)


def _to_github(
    s: Session, publisher: Publisher, target: Target, batches: list[BatchRecord], extras: Extras
) -> KnowledgePr:
    tip = git.rev_parse(publisher.clone, f"refs/heads/{target.branch}")
    assert tip is not None
    if target.pr is not None and target.pr.record is not None:
        before = target.pr.record
        record = before
        for batch in batches:
            record = record.with_batch(batch)
        number = target.pr.number
        publisher.still_at(target.branch, target.expect)  # another run's batch went first?
        publisher.edit_body(number, render(record, extras))  # the record first
        reached("record")
        try:
            publisher.push(target.branch, tip, target.expect)
        except PublicationError:
            try:  # the body must not list what the branch does not carry
                publisher.edit_body(number, render(before, extras))
            except PublicationError as again:
                s.note(f"could not put the body of #{number} back ({again}); the next run rebuilds it")  # fmt: skip
            raise
        reached("push")
        for batch in batches:
            publisher.comment(number, batch_comment(batch, extras.commits.get(batch.batch_id)))
        return target.pr._replace(record=record)
    publisher.push(target.branch, tip, target.expect)
    reached("push")
    record = PrRecord(s.o.day, tuple(batches))
    title = f"Knowledge intake {s.o.day}" + (" (follow-up)" if target.follow_up_of else "")
    pull = publisher.create(target.branch, title, render(record, extras))
    reached("pr")
    return KnowledgePr(pull, record)


def _branch_commits(clone: Path, target: Target) -> dict[str, str]:
    """batch id -> commit of every batch on the target branch (above main)."""
    tip = git.rev_parse(clone, f"refs/heads/{target.branch}")
    main = git.rev_parse(clone, "origin/HEAD") or target.base
    since = git.merge_base(clone, main, tip) if tip else None
    if tip is None or since is None:
        return {}
    return {c.batch_id: c.sha for c in work_clone.batches_between(clone, since, tip)}


def _keep_shadow_body(
    s: Session, target: Target, batches: list[BatchRecord], extras: Extras
) -> None:
    """Shadow mode: each batch's artifacts keep the PR body review mode would have sent,
    listing every batch on the day branch."""
    tip = git.rev_parse(s.o.state_dir / "clone", f"refs/heads/{target.branch}") or target.base
    on_branch = work_clone.batches_between(s.o.state_dir / "clone", target.base, tip)
    everything = [r for c in on_branch if (r := batch_record(s.o.state_dir, c))]
    known = {b.batch_id for b in everything}
    everything += [b for b in batches if b.batch_id not in known]
    shas = {c.batch_id: c.sha for c in on_branch}
    body = render(PrRecord(s.o.day, tuple(everything)), extras._replace(commits=shas))
    for batch in batches:
        Artifacts(batch_folder(s.o.state_dir, batch.day, batch.batch_id), s.o.dry_run).write(
            PR_BODY, body
        )


def _mark(
    s: Session,
    commits: list[CommittedBatch],
    status: Mapping[Key, Row],
    *,
    branch: str,
    state: str | None = None,
    url: str | None = None,
    failure: Exception | None = None,
) -> bool:
    """Mark the rows of `commits` after one publication: `state` (with `url`), or one failed
    attempt more (`failure`). True when a row reached the attempt cap."""
    capped = False
    for commit in commits:
        for key in commit.sources:
            current = status.get(key, {})
            attempts = int(current.get("attempts", 0))
            if current.get("state", "pending") == "pending":
                tries, new_state = attempts + 1, state or "pending"
            elif state == "published" and current.get("batch_id") == commit.batch_id:
                tries, new_state = attempts, "published"  # shadowed earlier today, now in a PR
            else:
                continue
            reason: str | None = None
            if failure is not None:
                new_state = after_failure(tries, s.o.max_attempts)
                capped = capped or new_state == "failed"
                reason = f"committed {commit.sha[:12]}, publication failed: {failure}"
            elif new_state == "shadowed":
                reason = f"shadow: committed {commit.sha[:12]} on {branch}"
            mark(
                s.o.intake_dir,
                key,
                new_state,
                attempts=tries,
                previous=status.get(key),
                batch_id=commit.batch_id,
                url=url,
                reason=reason,
            )
            if failure is None:
                reached("status")  # a kill here leaves some rows marked, some pending
    return capped


def _leave_branch(s: Session, target: Target, commits: list[CommittedBatch]) -> None:
    """Rows failed at the cap: their commits leave the branch (it goes back to its base)."""
    clone = s.o.state_dir / "clone"
    git.reset_branch(clone, target.branch, target.base)
    s.note(
        f"{len(commits)} batch(es) reached the attempt cap and left {target.branch}: their "
        "rows are failed (`kb intake requeue` returns them to pending)"
    )
