"""One distill run: pending ledger rows -> one bounded batch -> model -> curator -> day branch
-> publish.

Order of a run (every step recoverable after a kill at any point):
1. prepare the work clone (uncommitted leftovers of a killed run are dropped: their rows are
   still pending and are simply redone);
2. publish what is committed today but unpublished (found from commit trailers, so a kill
   between commit and status append loses nothing); if that fails, stop: no row is marked
   done while a committed batch sits unpublished. An earlier day's unpublished batch is
   left behind: its rows are still pending and are distilled afresh on today's branch;
3. select at most 20 pending rows within the curator's byte bounds;
4. curate: build prompt and schema, call the model once, validate, apply (validator gate);
5. commit with trailers naming every source, publish, and only then mark the rows.
"""

from __future__ import annotations

from contextlib import ExitStack
from functools import partial
from typing import Any

from kbkit.curator import (
    KnowledgeApplyResult,
    KnowledgeConfigurationError,
    KnowledgeCurationError,
    KnowledgeCurator,
    KnowledgeEvidenceBatch,
    KnowledgeProposalValidation,
    KnowledgeValidatorError,
)
from kbkit.distill import work_clone
from kbkit.distill.artifacts import Artifacts, batch_folder, new_batch_id
from kbkit.distill.delivery import publish_commits, unpublished
from kbkit.distill.models import ModelCallError
from kbkit.distill.publication import REVIEW, Publisher
from kbkit.distill.report_section import report_section
from kbkit.distill.rows import after_failure, mark
from kbkit.distill.selection import Selection, select_batch
from kbkit.distill.session import Options, Report, Session, key_text
from kbkit.distill.work_clone import CommittedBatch, WorkClone
from kbkit.infra.errors import KbkitError, LockTimeoutError, UsageError
from kbkit.infra.file_lock import lock_path_for, locked
from kbkit.infra.jsonl import ignore_transient_files
from kbkit.infra.steps import reached
from kbkit.intake.ledger import Key, load_status
from kbkit.vcs import git

__all__ = ["Options", "Report", "run"]


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
        return _run(Session(options))


def _run(s: Session) -> Report:
    clone, publisher = _prepare(s)
    republished = _publish_committed(s, clone, publisher)
    if isinstance(republished, Report):
        return republished
    selection = select_batch(s.o, {k for c in republished for k in c.sources})
    if not selection.events:
        s.say("nothing pending")
        return Report(s.o.day, clone.branch, "nothing-pending", notes=tuple(s.notes))
    batch = _Batch(s, clone, selection)
    return batch.curate_commit_publish(publisher)


def _prepare(s: Session) -> tuple[WorkClone, Publisher]:
    """The work clone on today's branch, and the publisher for it."""
    o = s.o
    clone_dir = o.state_dir / "clone"
    s.say(f"work clone {clone_dir} from {o.knowledge_repo}")
    seed = o.settings.fork_url if o.settings.mode == REVIEW else None
    clone = work_clone.prepare(
        clone_dir, o.knowledge_repo, o.day, o.base_branch, dry_run=o.dry_run, seed_url=seed
    )
    if clone.discarded:
        s.notes.append(
            f"dropped uncommitted leftovers of an interrupted run: {len(clone.discarded)} path(s)"
        )
    settings = o.settings._replace(base_branch=clone.base_branch)
    report = partial(report_section, clone.path, o.intake_dir, o.state_dir)
    return clone, Publisher(settings, clone.path, o.scheduled, o.day, report)


def _publish_committed(
    s: Session, clone: WorkClone, publisher: Publisher
) -> list[CommittedBatch] | Report:
    """Publish today's committed but unpublished batches first; returns them (their rows
    are not distilled again), a deferred report, or raises when publication failed."""
    o = s.o
    status = load_status(o.intake_dir)
    committed = unpublished(clone.path, status)
    # Day boundary: a batch committed on an earlier day and never published is not resumed
    # (its PR would be a second one today); its rows are still pending and are distilled
    # afresh into today's batch, on today's branch.
    stale = [c for c in committed if c.day != o.day]
    committed = [c for c in committed if c.day == o.day]
    if stale:
        s.note(
            f"left {len(stale)} unpublished batch(es) of earlier days "
            f"({', '.join(sorted({c.day for c in stale}))}) behind; their rows are "
            "distilled afresh today"
        )
    if committed and not o.dry_run:
        s.say(f"republishing {len(committed)} committed batch(es) not yet published")
        outcome, _ = publish_commits(s, publisher, committed, status)
        if outcome == "deferred":
            return Report(o.day, clone.branch, "deferred", notes=tuple(s.notes))
        if outcome != "done":
            raise KbkitError(
                f"{len(committed)} committed batch(es) are still unpublished ({outcome}); "
                "nothing new was distilled. Fix the cause above and rerun `kb distill`"
            )
    return committed


class _Batch:
    """One selected batch on its way through the curator, git and publication."""

    def __init__(self, s: Session, clone: WorkClone, selection: Selection):
        self.s, self.o, self.clone, self.selection = s, s.o, clone, selection
        self.keys: list[Key] = selection.keys()
        self.event_lines = tuple(key_text(k) for k in self.keys)
        self.batch_id = new_batch_id(s.o.state_dir, s.o.day, list(self.event_lines))
        self.art = Artifacts(batch_folder(s.o.state_dir, s.o.day, self.batch_id), s.o.dry_run)
        self.accepted: tuple[dict[str, Any], ...] = ()
        self.rejected: tuple[dict[str, Any], ...] = ()

    def report(self, outcome: str, **fields: Any) -> Report:
        """The run's report for this batch; `fields` fill the rest."""
        values: dict[str, Any] = {
            "batch_id": self.batch_id,
            "events": self.event_lines,
            "accepted": self.accepted,
            "rejected": self.rejected,
            "artifacts": self.art.shown(),
            "notes": tuple(self.s.notes),
        }
        return Report(self.o.day, self.clone.branch, outcome, **(values | fields))

    def mark_all(self, reason: str, state: str | None = None) -> None:
        """Mark every row of the batch, this attempt counted; `state` None: the attempt
        failed (pending again, failed at the cap)."""
        for key, attempts, previous in self.selection.rows.values():
            tries = attempts + 1
            mark(
                self.o.intake_dir,
                key,
                state or after_failure(tries, self.o.max_attempts),
                attempts=tries,
                previous=previous,
                batch_id=self.batch_id,
                reason=reason,
            )

    def fail(self, reason: str) -> Report:
        """A failed attempt: rows pending again (failed at the cap)."""
        if not self.o.dry_run:
            self.mark_all(reason)
        self.s.say(f"failed: {reason}")
        return Report(
            self.o.day,
            self.clone.branch,
            "failed",
            self.batch_id,
            self.event_lines,
            artifacts=self.art.shown(),
            notes=(*self.s.notes, reason),
        )

    def curate_commit_publish(self, publisher: Publisher) -> Report:
        """Steps 4 and 5: ask the model, validate, apply, commit, publish, mark."""
        self.s.say(f"batch {self.batch_id}: {len(self.keys)} event(s)")
        curator = self._open_curator()
        validation = self._ask_model(curator)
        if isinstance(validation, Report):
            return validation
        if self.o.dry_run:
            plan = curator.plan(validation) if validation.accepted else None
            pages = tuple(c.document_id for c in plan.changes) if plan else ()
            return self.report("dry-run", pages=pages, artifacts=None)
        if not validation.accepted:
            self.mark_all("no rules: nothing durable to add", "shadowed")
            self.art.write("apply.json", {"changes": [], "note": "no accepted proposals"})
            return self.report("no-rules")
        result = self._apply(curator, validation)
        if isinstance(result, Report):
            return result
        commit = self._commit(curator, validation, result)
        outcome, url = publish_commits(self.s, publisher, [commit], load_status(self.o.intake_dir))
        if outcome == "done":
            outcome = "published" if url else "shadowed"
        pages = tuple(c.document_id for c in result.changes)
        return self.report(outcome, pages=pages, commit=commit.sha, url=url)

    def _open_curator(self) -> KnowledgeCurator:
        try:
            curator = KnowledgeCurator(self.clone.path, today=self.o.day)  # the clone's policy
            curator.check_validators()  # a broken gate costs no model call and no attempt
        except UsageError:  # a bad policy or gate (KnowledgeConfigurationError): not an attempt
            _restart_empty_day_branch(self.clone)
            raise
        return curator

    def _ask_model(self, curator: KnowledgeCurator) -> KnowledgeProposalValidation | Report:
        """Prompt, schema and one model call; the validated reply or a failed report."""
        batch = KnowledgeEvidenceBatch(self.selection.events, self.o.max_rules)
        prompt = curator.build_prompt(batch)
        schema = curator.proposal_schema(max_rules=batch.max_rules, batch=batch)
        self.art.write("batch.json", batch.to_dict())
        self.art.write("prompt.md", prompt.text)
        self.art.write("schema.json", schema)
        self.s.say(f"model {self.o.gateway.name}")
        try:
            reply = self.o.gateway.complete(prompt.text, schema)
        except ModelCallError as exc:
            return self.fail(f"model call failed: {exc}")
        self.art.write("reply.txt", reply)
        reached("reply")
        validation = curator.validate_proposals(reply, batch)
        self.art.write("validation.json", validation.to_dict())
        self.accepted = tuple(
            {"rule_id": p.rule_id, "target": p.target, "title": p.title}
            for p in validation.accepted
        )
        self.rejected = tuple(
            {
                "model_index": p.model_index,
                "rule_id": p.rule_id,
                "reason": p.reason,
                "message": p.message,
            }
            for p in validation.rejected
        )
        self.s.say(f"validated: {len(self.accepted)} accepted, {len(self.rejected)} rejected")
        if validation.reply_error:
            return self.fail(f"model reply unusable: {validation.reply_error}")
        return validation

    def _apply(
        self, curator: KnowledgeCurator, validation: KnowledgeProposalValidation
    ) -> KnowledgeApplyResult | Report:
        self.s.say("applying (validator gate)")
        try:
            result = curator.apply(validation)
        except KnowledgeConfigurationError:
            _restart_empty_day_branch(self.clone)
            raise  # configuration, not a failed attempt: no status row
        except KnowledgeValidatorError as exc:
            self.art.write("validators.txt", exc.result.output)
            return self.fail(f"validators refused the change ({exc.result.status}): {exc}")
        except KnowledgeCurationError as exc:
            return self.fail(f"curator refused: {exc}")
        reached("apply")
        self.art.write("apply.json", result.to_dict())
        self.art.write("validators.txt", result.validators.output if result.validators else "")
        return result

    def _commit(
        self,
        curator: KnowledgeCurator,
        validation: KnowledgeProposalValidation,
        result: KnowledgeApplyResult,
    ) -> CommittedBatch:
        paths = sorted({f"{curator.root}/{c.document_id}.md".lstrip("/") for c in result.changes})
        titles = [f"{p.rule_id} — {p.title} ({p.target})" for p in validation.accepted]
        message = work_clone.commit_message(self.batch_id, self.o.day, self.keys, titles)
        sha = git.commit_paths(self.clone.path, paths, message)
        reached("commit")
        self.art.write("commit.txt", sha + "\n")
        self.s.say(f"committed {sha[:12]} on {self.clone.branch}")
        return CommittedBatch(sha, self.batch_id, self.o.day, tuple(self.keys))


def _restart_empty_day_branch(clone: WorkClone) -> None:
    """After a configuration error, drop a day branch that holds nothing of its own, so a
    same-day rerun starts again from the remote's base branch and sees the user's fix."""
    tip = git.rev_parse(clone.path, f"refs/heads/{clone.branch}")
    base = f"origin/{clone.base_branch}"
    if tip is None or not git.is_ancestor(clone.path, tip, base):
        return  # no day branch (a dry run), or it carries commits: keep it
    git.checkout(clone.path, base, detach=True)
    git.run_git(clone.path, "branch", "--quiet", "-D", clone.branch)
