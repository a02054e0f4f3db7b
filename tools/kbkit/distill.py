"""Distill: pending ledger rows -> one bounded batch -> model -> curator -> day branch -> publish.

Order of a run (every step recoverable after a kill at any point):
1. prepare the work clone (uncommitted leftovers of a killed run are dropped: their rows are
   still pending and are simply redone);
2. publish what is committed today but unpublished (found from commit trailers, so a kill
   between commit and status append loses nothing); if that fails, stop: no row is marked
   done while a committed batch sits unpublished. An earlier day's unpublished batch is
   left behind: its rows are still pending and are distilled afresh on today's branch;
3. take at most 20 pending rows within the curator's byte bounds, build prompt and schema,
   call the model once, validate, apply (validator gate), commit with trailers naming every
   source, publish, and only then append status rows.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import Any, NamedTuple

from kbkit import git, work_clone
from kbkit.artifacts import Artifacts, batch_folder, new_batch_id
from kbkit.curator import (
    InvalidRequestError,
    KnowledgeConfigurationError,
    KnowledgeCurationError,
    KnowledgeCurator,
    KnowledgeEvidenceBatch,
    KnowledgeEvidenceEvent,
    KnowledgeValidatorError,
)
from kbkit.curator.events import DIFF_BATCH_BYTES, MAX_EVENTS
from kbkit.errors import KbkitError, LockTimeoutError, UsageError
from kbkit.evidence import to_event
from kbkit.file_lock import lock_path_for, locked
from kbkit.intake.ledger import Key, Row, append_status, load_status, pending_events
from kbkit.jsonl import ignore_transient_files
from kbkit.models import Gateway, ModelCallError
from kbkit.publication import (
    REVIEW,
    DeferredError,
    PendingCommit,
    PublicationError,
    Publisher,
    Settings,
    checkpoint,
)


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


class Report(NamedTuple):
    day: str
    branch: str
    outcome: str  # nothing-pending, no-rules, shadowed, published, deferred, failed, dry-run
    batch_id: str | None = None
    events: tuple[str, ...] = ()  # "kind id" of the batch
    accepted: tuple[dict[str, Any], ...] = ()
    rejected: tuple[dict[str, Any], ...] = ()
    pages: tuple[str, ...] = ()  # document IDs changed
    commit: str | None = None
    artifacts: Path | None = None
    url: str | None = None
    notes: tuple[str, ...] = ()


class _Run:
    def __init__(self, options: Options):
        self.o = options
        self.notes: list[str] = []

    def say(self, message: str) -> None:
        if not self.o.quiet:
            print(f"distill: {message}", file=sys.stderr, flush=True)


def _key_text(key: Key) -> str:
    return f"{key[0]} {key[1]}"


def run(options: Options) -> Report:
    """One distill run; raises KbkitError for problems that touch no row.

    One run at a time per intake ledger and per state folder: an overlapping cron run, or a
    run from another state folder on the same ledger, fails fast instead of distilling the
    same rows twice. The ledger's lock lives beside it (`intake/distill.lock`, git-ignored).
    """
    ledger = options.intake_dir.resolve()
    if ledger.is_dir():
        ignore_transient_files(ledger)
    with ExitStack() as stack:
        for guarded, what in ((ledger, "intake ledger"), (options.state_dir, "state folder")):
            try:
                stack.enter_context(locked(guarded / "distill", timeout=1.0))
            except LockTimeoutError as exc:
                raise KbkitError(
                    f"another `kb distill` is running on the {what} {guarded} (lock "
                    f"{lock_path_for(guarded / 'distill')}); let it finish, then rerun"
                ) from exc
        return _run(options)


def _run(options: Options) -> Report:
    r = _Run(options)
    o = options
    clone_dir = o.state_dir / "clone"
    r.say(f"work clone {clone_dir} from {o.knowledge_repo}")
    seed = o.settings.fork_url if o.settings.mode == REVIEW else None
    clone = work_clone.prepare(
        clone_dir, o.knowledge_repo, o.day, o.base_branch, dry_run=o.dry_run, seed_url=seed
    )
    if clone.discarded:
        r.notes.append(
            f"dropped uncommitted leftovers of an interrupted run: {len(clone.discarded)} path(s)"
        )
    publisher = Publisher(
        o.settings._replace(base_branch=clone.base_branch), clone.path, o.scheduled, o.day
    )
    status = load_status(o.intake_dir)
    committed = _unpublished(clone.path, status)
    # Day boundary: a batch committed on an earlier day and never published is not resumed
    # (its PR would be a second one today); its rows are still pending and are distilled
    # afresh into today's batch, on today's branch.
    stale = [c for c in committed if c.day != o.day]
    committed = [c for c in committed if c.day == o.day]
    if stale:
        r.notes.append(
            f"left {len(stale)} unpublished batch(es) of earlier days "
            f"({', '.join(sorted({c.day for c in stale}))}) behind; their rows are "
            "distilled afresh today"
        )
        r.say(r.notes[-1])
    if committed and not o.dry_run:
        r.say(f"republishing {len(committed)} committed batch(es) not yet published")
        outcome, url = _publish(r, publisher, committed, status)
        if outcome == "deferred":
            return Report(o.day, clone.branch, "deferred", notes=tuple(r.notes))
        if outcome != "done":
            raise KbkitError(
                f"{len(committed)} committed batch(es) are still unpublished ({outcome}); "
                "nothing new was distilled. Fix the cause above and rerun `kb distill`"
            )
    taken_keys = {s for c in committed for s in c.sources}
    pending = [
        p
        for p in pending_events(o.intake_dir)
        if (p.event["source_kind"], p.event["source_id"]) not in taken_keys
    ]
    events: list[KnowledgeEvidenceEvent] = []
    rows: dict[str, tuple[Key, int, Row | None]] = {}
    diff_total = 0
    for item in pending:
        key: Key = (item.event["source_kind"], item.event["source_id"])
        if item.attempts >= o.max_attempts:
            if not o.dry_run:
                append_status(o.intake_dir, *key, "failed", attempts=item.attempts,
                              previous=item.status,
                              reason=f"attempt cap {o.max_attempts} reached")  # fmt: skip
            continue
        try:
            event = to_event(item.event)
        except InvalidRequestError as exc:
            if not o.dry_run:
                append_status(o.intake_dir, *key, "failed", attempts=item.attempts + 1,
                              previous=item.status,
                              reason=f"unusable event: {exc}")  # fmt: skip
            continue
        if event.source_id in rows:
            continue  # two kinds share a source id: one batch can cite it once; next batch
        size = len((event.diff_excerpt or "").encode())
        if len(events) >= o.max_events or diff_total + size > DIFF_BATCH_BYTES:
            break
        diff_total += size
        events.append(event)
        rows[event.source_id] = (key, item.attempts, item.status)
    branch = clone.branch
    if not events:
        r.say("nothing pending")
        return Report(o.day, branch, "nothing-pending", notes=tuple(r.notes))
    events.sort(key=lambda e: (e.kind, e.source_id))  # a stable prompt for a stable request hash
    keys = [rows[e.source_id][0] for e in events]
    batch_id = new_batch_id(o.state_dir, o.day, [_key_text(k) for k in keys])
    folder = batch_folder(o.state_dir, o.day, batch_id)
    event_lines = tuple(_key_text(k) for k in keys)
    r.say(f"batch {batch_id}: {len(events)} event(s)")
    batch = KnowledgeEvidenceBatch(events, o.max_rules)
    try:
        curator = KnowledgeCurator(clone.path, today=o.day)  # reads the clone's policy
        curator.check_validators()  # a broken gate costs no model call and no attempt
    except UsageError:  # a bad policy or gate (KnowledgeConfigurationError): not an attempt
        _restart_empty_day_branch(clone)
        raise
    prompt = curator.build_prompt(batch)
    schema = curator.proposal_schema(max_rules=batch.max_rules, batch=batch)
    art = Artifacts(folder, o.dry_run)
    art.write("batch.json", batch.to_dict())
    art.write("prompt.md", prompt.text)
    art.write("schema.json", schema)

    def fail(reason: str) -> Report:
        if not o.dry_run:
            for key, attempts, previous in rows.values():
                tries = attempts + 1
                state = "failed" if tries >= o.max_attempts else "pending"
                append_status(o.intake_dir, *key, state, attempts=tries, previous=previous,
                              batch_id=batch_id, reason=reason[:1900])  # fmt: skip
        r.say(f"failed: {reason}")
        return Report(o.day, branch, "failed", batch_id, event_lines, artifacts=art.shown(),
                      notes=(*r.notes, reason))  # fmt: skip

    r.say(f"model {o.gateway.name}")
    try:
        reply = o.gateway.complete(prompt.text, schema)
    except ModelCallError as exc:
        return fail(f"model call failed: {exc}")
    art.write("reply.txt", reply)
    checkpoint("reply")
    validation = curator.validate_proposals(reply, batch)
    art.write("validation.json", validation.to_dict())
    accepted = tuple(
        {"rule_id": p.rule_id, "target": p.target, "title": p.title} for p in validation.accepted
    )
    rejected = tuple(
        {"model_index": p.model_index, "rule_id": p.rule_id, "reason": p.reason,
         "message": p.message} for p in validation.rejected
    )  # fmt: skip
    r.say(f"validated: {len(accepted)} accepted, {len(rejected)} rejected")
    if validation.reply_error:
        return fail(f"model reply unusable: {validation.reply_error}")
    if o.dry_run:
        plan = curator.plan(validation) if validation.accepted else None
        pages = tuple(c.document_id for c in plan.changes) if plan else ()
        return Report(o.day, branch, "dry-run", batch_id, event_lines, accepted, rejected, pages,
                      notes=tuple(r.notes))  # fmt: skip
    if not validation.accepted:
        for key, attempts, previous in rows.values():
            append_status(o.intake_dir, *key, "shadowed", attempts=attempts + 1,
                          previous=previous, batch_id=batch_id,
                          reason="no rules: nothing durable to add")  # fmt: skip
        art.write("apply.json", {"changes": [], "note": "no accepted proposals"})
        return Report(o.day, branch, "no-rules", batch_id, event_lines, accepted, rejected,
                      artifacts=art.shown(), notes=tuple(r.notes))  # fmt: skip
    r.say("applying (validator gate)")
    try:
        result = curator.apply(validation)
    except KnowledgeConfigurationError:
        _restart_empty_day_branch(clone)
        raise  # configuration, not a failed attempt: no status row
    except KnowledgeValidatorError as exc:
        art.write("validators.txt", exc.result.output)
        return fail(f"validators refused the change ({exc.result.status}): {exc}")
    except KnowledgeCurationError as exc:
        return fail(f"curator refused: {exc}")
    checkpoint("apply")
    art.write("apply.json", result.to_dict())
    art.write("validators.txt", result.validators.output if result.validators else "")
    pages = tuple(c.document_id for c in result.changes)
    paths = sorted({f"{curator.root}/{c.document_id}.md".lstrip("/") for c in result.changes})
    titles = [f"{p.rule_id} — {p.title} ({p.target})" for p in validation.accepted]
    sha = git.commit_paths(
        clone.path, paths, work_clone.commit_message(batch_id, o.day, keys, titles)
    )
    checkpoint("commit")
    art.write("commit.txt", sha + "\n")
    r.say(f"committed {sha[:12]} on {branch}")
    commit = work_clone.CommittedBatch(sha, batch_id, o.day, tuple(keys))
    outcome, url = _publish(r, publisher, [commit], load_status(o.intake_dir))
    if outcome == "done":
        outcome = "published" if url else "shadowed"
    return Report(o.day, branch, outcome, batch_id, event_lines, accepted, rejected, pages, sha,
                  art.shown(), url, tuple(r.notes))  # fmt: skip


def _restart_empty_day_branch(clone: work_clone.WorkClone) -> None:
    """After a configuration error, drop a day branch that holds nothing of its own, so a
    same-day rerun starts again from the remote's base branch and sees the user's fix."""
    tip = git.rev_parse(clone.path, f"refs/heads/{clone.branch}")
    base = f"origin/{clone.base_branch}"
    if tip is None or not git.is_ancestor(clone.path, tip, base):
        return  # no day branch (a dry run), or it carries commits: keep it
    git.checkout(clone.path, base, detach=True)
    git.run_git(clone.path, "branch", "--quiet", "-D", clone.branch)


def _unpublished(clone: Path, status: Mapping[Key, Row]) -> list[work_clone.CommittedBatch]:
    """Committed batches with at least one source whose row is still pending."""
    found = []
    for commit in work_clone.committed_batches(clone):
        if any(status.get(k, {}).get("state", "pending") == "pending" for k in commit.sources):
            found.append(commit)
    return found


def _publish(
    r: _Run,
    publisher: Publisher,
    commits: list[work_clone.CommittedBatch],
    status: Mapping[Key, Row],
) -> tuple[str, str | None]:
    """Publish commits day by day and mark their pending rows; ("done", url) or a failure."""
    o = r.o
    by_day: dict[str, list[work_clone.CommittedBatch]] = {}
    for commit in commits:
        by_day.setdefault(commit.day, []).append(commit)
    last_url = None
    for day, group in sorted(by_day.items()):
        branch = work_clone.day_branch(day)
        pending = [_pending_commit(o.state_dir, c) for c in group]
        on_branch = [c for c in work_clone.committed_batches(publisher.clone) if c.day == day]
        listed = [_pending_commit(o.state_dir, c) for c in on_branch]
        r.say(f"publishing {branch} ({publisher.settings.mode})")
        try:
            url = publisher.publish(branch, day, pending, listed)
        except DeferredError as exc:
            r.notes.append(str(exc))
            r.say(str(exc))
            return "deferred", None
        except PublicationError as exc:
            for commit in group:
                for key in commit.sources:
                    current = status.get(key, {})
                    if current.get("state", "pending") != "pending":
                        continue
                    tries = int(current.get("attempts", 0)) + 1
                    state = "failed" if tries >= o.max_attempts else "pending"
                    append_status(o.intake_dir, *key, state, attempts=tries,
                                  previous=status.get(key), batch_id=commit.batch_id,
                                  reason=f"committed {commit.sha[:12]}, publication failed: {exc}"[:1900])  # fmt: skip
            r.notes.append(f"publication failed: {exc}")
            r.say(f"publication failed: {exc}")
            return "failed", None
        state = "published" if url else "shadowed"
        for commit in group:
            for key in commit.sources:
                current = status.get(key, {})
                if current.get("state", "pending") != "pending":
                    continue
                append_status(o.intake_dir, *key, state,
                              attempts=int(current.get("attempts", 0)) + 1,
                              previous=status.get(key), batch_id=commit.batch_id, url=url,
                              reason=None if url else f"shadow: committed {commit.sha[:12]} on {branch}")  # fmt: skip
                checkpoint("status")  # a kill here leaves some rows marked, some pending
        if url:  # shadow -> review the same day: the PR lists the shadowed batches too
            for commit in on_branch:
                for key in commit.sources:
                    current = status.get(key, {})
                    if current.get("state") != "shadowed" or current.get("batch_id") != (
                        commit.batch_id
                    ):
                        continue
                    append_status(o.intake_dir, *key, "published",
                                  attempts=int(current.get("attempts", 0)),
                                  previous=status.get(key), batch_id=commit.batch_id, url=url)  # fmt: skip
        last_url = url or last_url
    return "done", last_url


def _pending_commit(state_dir: Path, commit: work_clone.CommittedBatch) -> PendingCommit:
    transcript_file = batch_folder(state_dir, commit.day, commit.batch_id) / "validators.txt"
    try:
        transcript = transcript_file.read_text(encoding="utf-8")
    except OSError:
        transcript = "(transcript not found in the artifacts)"
    events = tuple(_key_text(k) for k in commit.sources)
    return PendingCommit(commit.sha, commit.batch_id, events, transcript)
