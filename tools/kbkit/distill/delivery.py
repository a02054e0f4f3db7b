"""Publish committed batches day by day and mark their rows (published, shadowed, or one
failed attempt more); find the committed batches whose rows are still pending."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from kbkit.distill import work_clone
from kbkit.distill.artifacts import Artifacts, batch_folder
from kbkit.distill.publication import (
    DeferredError,
    PendingCommit,
    PublicationError,
    Publisher,
)
from kbkit.distill.rows import after_failure, mark
from kbkit.distill.session import Session, key_text
from kbkit.distill.work_clone import CommittedBatch
from kbkit.infra.steps import reached
from kbkit.intake.ledger import Key, Row

PR_BODY = "pr-body.md"  # the shadow artifact: the day's PR body as review mode would send it


def unpublished(clone: Path, status: Mapping[Key, Row]) -> list[CommittedBatch]:
    """Committed batches with at least one source whose row is still pending."""
    found = []
    for commit in work_clone.committed_batches(clone):
        if any(status.get(k, {}).get("state", "pending") == "pending" for k in commit.sources):
            found.append(commit)
    return found


def publish_commits(
    s: Session,
    publisher: Publisher,
    commits: list[CommittedBatch],
    status: Mapping[Key, Row],
) -> tuple[str, str | None]:
    """Publish commits day by day and mark their pending rows; ("done", url) or a failure
    ("deferred" or "failed", None)."""
    by_day: dict[str, list[CommittedBatch]] = {}
    for commit in commits:
        by_day.setdefault(commit.day, []).append(commit)
    last_url = None
    for day, group in sorted(by_day.items()):
        branch = work_clone.day_branch(day)
        pending = [pending_commit(s.o.state_dir, c) for c in group]
        on_branch = [c for c in work_clone.committed_batches(publisher.clone) if c.day == day]
        listed = [pending_commit(s.o.state_dir, c) for c in on_branch]
        s.say(f"publishing {branch} ({publisher.settings.mode})")
        try:
            url = publisher.publish(branch, day, pending, listed)
        except DeferredError as exc:
            s.note(str(exc))
            return "deferred", None
        except PublicationError as exc:
            _mark_group(s, group, status, branch=branch, failure=exc)
            s.note(f"publication failed: {exc}")
            return "failed", None
        if url is None:
            _keep_shadow_body(
                s, publisher, day, group, listed + [p for p in pending if p not in listed]
            )
        _mark_group(s, group, status, branch=branch, url=url)
        if url:  # shadow -> review the same day: the PR lists the shadowed batches too
            _mark_shadowed_as_published(s, on_branch, status, url)
        last_url = url or last_url
    return "done", last_url


def _keep_shadow_body(
    s: Session,
    publisher: Publisher,
    day: str,
    group: list[CommittedBatch],
    shown: list[PendingCommit],
) -> None:
    """Shadow mode: each batch's artifacts keep the PR body review mode would have sent."""
    body = publisher.body(day, shown, None)
    for commit in group:
        folder = batch_folder(s.o.state_dir, commit.day, commit.batch_id)
        Artifacts(folder, s.o.dry_run).write(PR_BODY, body)


def _still_pending(commit: CommittedBatch, status: Mapping[Key, Row]) -> list[Key]:
    return [k for k in commit.sources if status.get(k, {}).get("state", "pending") == "pending"]


def _mark_group(
    s: Session,
    group: list[CommittedBatch],
    status: Mapping[Key, Row],
    *,
    branch: str,
    url: str | None = None,
    failure: Exception | None = None,
) -> None:
    """Mark the group's still-pending rows after one publication: published (a URL),
    shadowed (none), or one failed attempt more (`failure`)."""
    for commit in group:
        for key in _still_pending(commit, status):
            tries = int(status.get(key, {}).get("attempts", 0)) + 1
            if failure is not None:
                state = after_failure(tries, s.o.max_attempts)
                reason: str | None = f"committed {commit.sha[:12]}, publication failed: {failure}"
            elif url:
                state, reason = "published", None
            else:
                state, reason = "shadowed", f"shadow: committed {commit.sha[:12]} on {branch}"
            mark(
                s.o.intake_dir,
                key,
                state,
                attempts=tries,
                previous=status.get(key),
                batch_id=commit.batch_id,
                url=url,
                reason=reason,
            )
            if failure is None:
                reached("status")  # a kill here leaves some rows marked, some pending


def _mark_shadowed_as_published(
    s: Session, on_branch: list[CommittedBatch], status: Mapping[Key, Row], url: str
) -> None:
    for commit in on_branch:
        for key in commit.sources:
            current = status.get(key, {})
            if current.get("state") != "shadowed" or current.get("batch_id") != commit.batch_id:
                continue
            mark(
                s.o.intake_dir,
                key,
                "published",
                attempts=int(current.get("attempts", 0)),
                previous=status.get(key),
                batch_id=commit.batch_id,
                url=url,
            )


def pending_commit(state_dir: Path, commit: CommittedBatch) -> PendingCommit:
    """What the PR body shows of a committed batch (its transcript from the artifacts)."""
    transcript_file = batch_folder(state_dir, commit.day, commit.batch_id) / "validators.txt"
    try:
        transcript = transcript_file.read_text(encoding="utf-8")
    except OSError:
        transcript = "(transcript not found in the artifacts)"
    events = tuple(key_text(k) for k in commit.sources)
    return PendingCommit(commit.sha, commit.batch_id, events, transcript)
