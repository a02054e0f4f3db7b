"""One distill run: pending ledger rows -> one bounded batch -> model -> curator -> day branch
-> publish.

Order of a run (every step recoverable after a kill at any point, and correct on a fresh
runner that has no `state/` from yesterday):
1. prepare the work clone (what a killed run left uncommitted, tracked or not, is dropped:
   its rows are still pending and are simply redone);
2. review mode: read the knowledge PRs back from GitHub, reconcile the ledger with what they
   list, and rebuild every open one that main has moved under (`review`, `refresh`);
3. choose today's branch: today's open PR, else a new one (a follow-up after today's PR was
   merged or closed, by hand only: the automatic cadence opens at most one PR a day);
4. publish what is committed on it but unpublished (found from commit trailers, so a kill
   between commit and status append loses nothing); if that fails, stop;
5. select at most 20 pending rows (newest first) that no knowledge PR lists; triage marks
   the changes that carry no rule `skipped` on the way (no model call);
6. curate: prompt and schema with the IDs of the other open PRs taken, one model call,
   validate, apply (validator gate);
7. commit with trailers naming every source, publish, and only then mark the rows;
   then steps 5-7 again, batch after batch into the same PR, while events are pending and
   the run's budget (model calls, seconds) lasts (issue #39: an organization's pace);
8. review mode: when main moved during the run, bring the open PRs up to date again.
"""

from __future__ import annotations

import random
import time
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
from kbkit.distill.batch_record import record_batch
from kbkit.distill.delivery import Published, Target, publish, unpublished
from kbkit.distill.knowledge_prs import branch_for
from kbkit.distill.models import ModelCallError
from kbkit.distill.pr_body import Extras, key_line, one_line
from kbkit.distill.publication import REVIEW, PublicationError, Publisher
from kbkit.distill.report_section import report_section
from kbkit.distill.review import ReviewState, open_review
from kbkit.distill.rows import after_failure, mark
from kbkit.distill.selection import Selection, happened, select_batch
from kbkit.distill.session import Options, Report, Session, key_text
from kbkit.distill.taken import taken_ids
from kbkit.distill.work_clone import CommittedBatch, WorkClone
from kbkit.infra.errors import KbkitError, LockTimeoutError, UsageError
from kbkit.infra.file_lock import lock_path_for, locked
from kbkit.infra.jsonl import ignore_transient_files
from kbkit.infra.process import timeout_from_env
from kbkit.infra.steps import reached
from kbkit.intake.ledger import Key, load_status, pending_events
from kbkit.vcs import git, github

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
    review = open_review(s, publisher) if publisher else None
    target = _target(s, clone, review)
    if isinstance(target, Report):
        return target
    dropped = work_clone.checkout_day(clone.path, target.branch, target.base, dry_run=s.o.dry_run)
    if dropped:
        s.note(
            f"dropped {len(dropped)} local commit(s) of {target.branch} that no longer build on "
            "what it was published on; their rows are distilled again"
        )
    committed, target = _publish_committed(s, clone, publisher, target)
    listed = set(review.listed()) if review else set()
    taken = {k for c in committed for k in c.sources} | listed  # not distilled again
    reports: list[Report] = []
    races = 0
    started = time.monotonic()
    while True:  # batch after batch, within the run's budget (issue #39)
        selection = select_batch(s.o, taken)
        s.skipped += len(selection.skipped)
        if selection.skipped:
            s.say(f"triage skipped {len(selection.skipped)} event(s) that carry no rule")
        if not selection.events:
            break
        spent = _budget_spent(s, started) if reports else None
        if spent:
            left = len(selection.events) + len(selection.waiting)
            s.note(f"{spent}: {left} pending event(s) wait for the next run")
            break
        batch = _Batch(s, clone, target, selection)
        reports.append(batch.curate_commit_publish(publisher, review))
        taken |= set(batch.keys)
        if not s.o.dry_run and reports[-1].outcome != "raced":  # a lost race's batch is redone
            record_batch(s.o.intake_dir, reports[-1], batch.reply)  # travels with the ledgers
        if reports[-1].outcome == "raced" and publisher is not None:
            races += 1
            again = _after_a_lost_race(s, clone, publisher, races)
            if again is None:
                break
            review, target = again
            taken = (taken - set(batch.keys)) | set(review.listed())  # distilled again
            continue
        if s.o.dry_run or (reports[-1].outcome == "failed" and batch.committed):
            break  # a dry run writes nothing to go on from; a failed publication stops
        if batch.done is not None and batch.done.outcome == "done":
            target = _published_to(clone, target, batch.done)
    if not reports:
        why = "nothing pending" if not committed else "nothing more pending"
        s.say(why)
        return _final(s, Report(s.o.day, target.branch, "nothing-pending", notes=tuple(s.notes)))
    report = combined(reports)
    if publisher and review and not s.o.dry_run:
        _after_main_moved(s, clone, publisher, review)
    return _final(s, report)


def _after_a_lost_race(
    s: Session, clone: WorkClone, publisher: Publisher, races: int
) -> tuple[ReviewState, Target] | None:
    """Another run (another repository's workflow on the same cron) published to today's
    branch first: let it finish, read the PRs again and aim at what it left (its PR, at its
    head); None when the run should stop (races lost RACES times, or the cadence defers)."""
    if races > RACES:
        s.note(f"lost the race for today's branch {races} times; the events wait for the next run")  # fmt: skip
        return None
    time.sleep(random.uniform(0.5, 1.5) * timeout_from_env("KBKIT_RACE_PAUSE", RACE_PAUSE))
    review = open_review(s, publisher)
    target = _target(s, clone, review)
    if isinstance(target, Report):
        return None
    work_clone.checkout_day(clone.path, target.branch, target.base, dry_run=s.o.dry_run)
    return review, target


RACES = 3  # lost races for today's branch before a run gives up (no attempt is ever counted)
RACE_PAUSE = 2.0  # seconds, about, before reading the PRs again; KBKIT_RACE_PAUSE


def _budget_spent(s: Session, started: float) -> str | None:
    """Why the run starts no further batch (its budget is spent), or None."""
    if s.model_calls >= s.o.max_model_calls:
        return f"the run's budget of {s.o.max_model_calls} model call(s) is spent"
    if s.o.max_seconds is not None and time.monotonic() - started >= s.o.max_seconds:
        return f"the run's time budget ({s.o.max_seconds:g} s) is spent"
    return None


def combined(reports: list[Report]) -> Report:
    """One report for the run's batches: the events, rules and pages of all of them, the
    outcome of the last one that published (else of the last one), each batch in `batches`."""
    briefs = tuple(
        {
            "batch_id": r.batch_id,
            "outcome": r.outcome,
            "events": len(r.events),
            "accepted": len(r.accepted),
            "rejected": len(r.rejected),
            "commit": r.commit,
        }
        for r in reports
    )
    landed = [r for r in reports if r.outcome in ("published", "shadowed")]
    tried = [r for r in reports if r.outcome != "raced"]
    last = landed[-1] if landed else (tried or reports)[-1]
    return last._replace(
        events=tuple(e for r in tried for e in r.events),  # a lost race's batch is redone
        accepted=tuple(a for r in tried for a in r.accepted),
        rejected=tuple(x for r in tried for x in r.rejected),
        pages=tuple(sorted({p for r in tried for p in r.pages})),
        waiting=reports[-1].waiting,
        batches=briefs,
    )


def _final(s: Session, report: Report) -> Report:
    """The report with everything the run noted, every PR it brought up to date, and what
    the run cost."""
    cost = {"model_calls": s.model_calls, "github_calls": github.calls_made() - s.github_calls_before}  # fmt: skip
    return report._replace(
        notes=tuple(s.notes),
        updated=tuple(sorted(set(s.updated))),
        skipped=s.skipped,
        cost=cost,
    )


def _prepare(s: Session) -> tuple[WorkClone, Publisher | None]:
    """The work clone, and the publisher in review mode."""
    o = s.o
    clone_dir = o.state_dir / "clone"
    s.say(f"work clone {clone_dir} from {o.knowledge_repo}")
    clone = work_clone.prepare(clone_dir, o.knowledge_repo, o.base_branch, dry_run=o.dry_run)
    if clone.discarded:
        s.notes.append(
            f"dropped uncommitted leftovers of an interrupted run: {len(clone.discarded)} path(s)"
        )
    settings = o.settings._replace(base_branch=clone.base_branch)
    return clone, Publisher(settings, clone.path) if settings.mode == REVIEW else None


def _report(s: Session, clone: WorkClone) -> partial[str]:
    return partial(report_section, clone.path, s.o.intake_dir, s.o.state_dir)


def _target(s: Session, clone: WorkClone, review: ReviewState | None) -> Target | Report:
    """Today's branch: today's open PR, a new PR (the first of the day, or a follow-up by
    hand), or a deferred report when the automatic cadence already opened today's PR."""
    o = s.o
    main = git.rev_parse(clone.path, f"origin/{clone.base_branch}")
    assert main is not None
    if review is None:  # shadow: build on the day's branch as it is, or start at main
        branch = work_clone.day_branch(o.day)
        tip = git.rev_parse(clone.path, f"refs/heads/{branch}")
        base = git.merge_base(clone.path, main, tip) if tip else None
        return Target(branch, base or main)
    todays = sorted((p for p in review.prs if p.day == o.day), key=lambda p: p.ordinal)
    latest = todays[-1] if todays else None
    if latest is not None and latest.is_open and latest.record is not None:
        head = review.head(latest)
        return Target(latest.pull.head_ref, head or main, latest, head)
    if latest is not None and latest.is_open:  # its record is unreadable: leave it alone
        s.note(
            f"today's PR #{latest.number} is open but {latest.problem or 'has no record'}: "
            "kbkit adds nothing to it; restore its body (the hidden kbkit:record comment) "
            "or close it, and the events are distilled into the next PR"
        )
        return _final(s, Report(o.day, latest.pull.head_ref, "deferred"))
    if latest is not None and o.scheduled:
        waiting = len([e for e in _pending_keys(s) if e not in review.listed()])
        why = (
            f"today's PR #{latest.number} is {latest.state}; the automatic cadence opens at "
            f"most one PR a day, so {waiting} pending event(s) wait for tomorrow's run (run "
            "`kb distill` by hand to open a follow-up today)"
        )
        s.note(why)
        return _final(s, Report(o.day, latest.pull.head_ref, "deferred"))
    ordinal = latest.ordinal + 1 if latest is not None else 1
    branch = branch_for(o.day, ordinal)
    follow_up = latest.number if latest is not None else None
    return Target(branch, main, None, review.fork_heads.get(branch), follow_up)


def _pending_keys(s: Session) -> list[Key]:
    return [(p.event["source_kind"], p.event["source_id"]) for p in pending_events(s.o.intake_dir)]


def _publish_committed(
    s: Session, clone: WorkClone, publisher: Publisher | None, target: Target
) -> tuple[list[CommittedBatch], Target]:
    """Publish the target branch's committed but unpublished batches first; returns them
    (their rows are not distilled again) and the target as it now is (the PR that carries
    them), or raises when their publication failed."""
    o = s.o
    status = load_status(o.intake_dir)
    committed = [] if o.dry_run else unpublished(clone.path, target, status)
    if not committed:
        return [], target
    s.say(f"republishing {len(committed)} committed batch(es) not yet published")
    try:
        done = publish(s, publisher, target, committed, status, lambda: Extras(report=_report(s, clone)(o.day)))  # fmt: skip
    except PublicationError as exc:  # their artifacts are gone: drop the commits, redo
        git.reset_branch(clone.path, target.branch, target.base)
        s.note(str(exc))
        return [], target
    if done.outcome != "done" and unpublished(clone.path, target, load_status(o.intake_dir)):
        raise KbkitError(
            f"{len(committed)} committed batch(es) are still unpublished; nothing new was "
            "distilled. Fix the cause above and rerun `kb distill`"
        )
    if done.outcome != "done":  # failed at the cap: gone from the branch
        return [], target
    return committed, _published_to(clone, target, done)


def _published_to(clone: WorkClone, target: Target, done: Published) -> Target:
    """The target after a publication: its PR, and the fork's branch at the pushed tip."""
    if done.pr is None:
        return target
    tip = git.rev_parse(clone.path, f"refs/heads/{target.branch}")
    return target._replace(pr=done.pr, expect=tip, follow_up_of=None)


def _after_main_moved(
    s: Session, clone: WorkClone, publisher: Publisher, review: ReviewState
) -> None:
    """Main moved while this run worked (a merge, a hand edit): bring the open PRs up to
    date once more, so every open PR merges cleanly when the run ends."""
    seen = review.main
    for _ in range(MAIN_MOVED_ROUNDS):  # it may move again while they are rebuilt
        git.fetch(clone.path)
        main = git.rev_parse(clone.path, f"origin/{clone.base_branch}")
        if main is None or main == seen:
            return
        s.note(f"main moved during the run (now {main[:12]}); bringing the open PRs up to date again")  # fmt: skip
        seen = open_review(s, publisher).main
    s.note("main kept moving during the run; the next run brings the open PRs up to date")


MAIN_MOVED_ROUNDS = 3


class _Batch:
    """One selected batch on its way through the curator, git and publication."""

    def __init__(self, s: Session, clone: WorkClone, target: Target, selection: Selection):
        self.s, self.o, self.clone, self.target, self.selection = s, s.o, clone, target, selection
        self.keys: list[Key] = selection.keys()
        self.event_lines = tuple(key_text(k) for k in self.keys)
        self.batch_id = new_batch_id(s.o.state_dir, s.o.day, list(self.event_lines))
        self.art = Artifacts(batch_folder(s.o.state_dir, s.o.day, self.batch_id), s.o.dry_run)
        self.accepted: tuple[dict[str, Any], ...] = ()
        self.rejected: tuple[dict[str, Any], ...] = ()
        self.committed = False  # a commit was made (a failed publication then stops the run)
        self.done: Published | None = None  # how its publication went
        self.reply: str | None = None

    def report(self, outcome: str, **fields: Any) -> Report:
        """The run's report for this batch; `fields` fill the rest."""
        values: dict[str, Any] = {
            "batch_id": self.batch_id,
            "events": self.event_lines,
            "accepted": self.accepted,
            "rejected": self.rejected,
            "artifacts": self.art.shown(),
            "notes": tuple(self.s.notes),
            "waiting": len(self.selection.waiting),
        }
        return Report(self.o.day, self.target.branch, outcome, **(values | fields))

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
        self.s.notes.append(reason)
        return self.report("failed")

    def refused(self) -> Report:
        """Every proposal of the batch was refused by the mechanical checks: the model's
        fault, so one attempt is charged, but the events stay pending (failed only at the
        cap): their evidence was never judged durable or not. The reasons go with the rows."""
        reasons = "; ".join(
            f"{row['rule_id'] or 'row ' + str(row['model_index'])}: {row['reason']}" for row in self.rejected
        )  # fmt: skip
        reason = f"every proposal refused ({reasons})"[:1500]
        self.mark_all(reason)
        self.s.say(f"refused: {reason}")
        self.s.notes.append(reason)
        return self.report("refused")

    def curate_commit_publish(self, publisher: Publisher | None, review: ReviewState | None) -> Report:  # fmt: skip
        """Steps 6 and 7: ask the model, validate, apply, commit, publish, mark."""
        self.s.say(f"batch {self.batch_id}: {len(self.keys)} event(s)")
        curator = self._open_curator(review)
        validation = self._ask_model(curator)
        if isinstance(validation, Report):
            return validation
        if self.o.dry_run:
            plan = curator.plan(validation) if validation.accepted else None
            pages = tuple(c.document_id for c in plan.changes) if plan else ()
            return self.report("dry-run", pages=pages, artifacts=None)
        if not validation.accepted and validation.rejected:
            return self.refused()
        if not validation.accepted:
            self.mark_all("no rules: nothing durable to add", "shadowed")
            self.art.write("apply.json", {"changes": [], "note": "no accepted proposals"})
            return self.report("no-rules")
        result = self._apply(curator, validation)
        if isinstance(result, Report):
            return result
        commit = self._commit(curator, validation, result)
        self.committed = True
        self.done = done = publish(self.s, publisher, self.target, [commit], load_status(self.o.intake_dir), self._extras)  # fmt: skip
        pages = tuple(c.document_id for c in result.changes)
        return self.report(_outcome(done, publisher), pages=pages, commit=commit.sha, url=done.url)

    def _extras(self) -> Extras:
        report = report_section(self.clone.path, self.o.intake_dir, self.o.state_dir, self.o.day)
        return Extras(self.target.follow_up_of, self._waiting(), report)

    def _waiting(self) -> str:
        """What this batch left for later, newest first, and the oldest of it."""
        waiting = self.selection.waiting
        if not waiting:
            return ""
        oldest = waiting[-1]
        key = (str(oldest.get("source_kind")), str(oldest.get("source_id")))
        return (
            "## Waiting\n\n"
            f"{len(waiting)} more pending event(s) did not fit this batch (at most "
            f"{self.o.max_events} events a batch, newest first); they wait for later batches. "
            f"The oldest: {key_line(key)} ({happened(oldest)[:10] or 'undated'}): "
            f"{one_line(oldest.get('title') or '')}\n\n"
        )

    def _open_curator(self, review: ReviewState | None) -> KnowledgeCurator:
        try:
            curator = KnowledgeCurator(self.clone.path, today=self.o.day)  # the clone's policy
            curator.check_validators()  # a broken gate costs no model call and no attempt
        except UsageError:  # a bad policy or gate (KnowledgeConfigurationError): not an attempt
            _restart_empty_day_branch(self.clone, self.target)
            raise
        if review is not None:  # the other open PRs' rules are taken
            own = self.target.pr.number if self.target.pr else None
            others = [p for p in review.prs if p.number != own]
            heads = {p.number: h for p in others if (h := review.head(p))}
            curator.taken = taken_ids(self.clone.path, others, heads, review.main, curator.policy)
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
        self.s.model_calls += 1
        try:
            reply = self.o.gateway.complete(prompt.text, schema)
        except ModelCallError as exc:
            return self.fail(f"model call failed: {exc}")
        self.art.write("reply.txt", reply)
        self.reply = reply
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
                "target": p.target,
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
            _restart_empty_day_branch(self.clone, self.target)
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
        titles = [f"{p.rule_id} — {p.title} ({p.target})" for p in validation.accepted]
        sha = work_clone.commit_batch(
            self.clone.path, curator.root, result.changes, self.batch_id, self.o.day, self.keys, titles
        )  # fmt: skip
        reached("commit")
        self.art.write("commit.txt", sha + "\n")
        self.s.say(f"committed {sha[:12]} on {self.target.branch}")
        return CommittedBatch(sha, self.batch_id, self.o.day, tuple(self.keys))


def _outcome(done: Published, publisher: Publisher | None) -> str:
    if done.outcome == "raced":
        return "raced"
    if done.outcome != "done":
        return "failed"
    return "published" if publisher is not None else "shadowed"


def _restart_empty_day_branch(clone: WorkClone, target: Target) -> None:
    """After a configuration error, drop a day branch that holds nothing of its own, so a
    same-day rerun starts again from the remote's base branch and sees the user's fix."""
    tip = git.rev_parse(clone.path, f"refs/heads/{target.branch}")
    base = f"origin/{clone.base_branch}"
    if tip is None or not git.is_ancestor(clone.path, tip, base):
        return  # no day branch (a dry run), or it carries commits: keep it
    git.checkout(clone.path, base, detach=True)
    git.run_git(clone.path, "branch", "--quiet", "-D", target.branch)
