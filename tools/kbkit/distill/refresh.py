"""Keep every open knowledge PR mergeable: rebuild its branch on the newest main.

An open PR is current when main is an ancestor of its head and the head's batch commits are
exactly the batches its record lists. Anything else (main moved: a merge, a squash, a
rebase, a hand edit; a body edited but the push lost) and the branch is rebuilt from its
record: a fresh branch at main, each batch's recorded proposals validated again against
main's catalog (with the other open PRs' IDs taken) and applied append-only, the gate run,
one commit per batch with the batch's trailers. A proposal already on main word for word is
published upstream and leaves the record quietly; one that no longer validates (its ID taken
by a hand edit, its anchor gone) or whose page the gate refuses leaves with its reason, and
the events only it cited go back to pending. The body (the record) is written first, then
the branch is pushed with a lease on the head that was read, then a comment says what
happened; a PR left with no rule is closed with that comment.

People's commits on the branch (a reviewer's fix-up: any commit after the first batch
commit that carries no batch trailers) are replayed onto the rebuilt branch in their order,
authors kept, and the comment names them. When one does not apply any more, the PR is left
exactly as it is and a comment names the commits: a person's work is never dropped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kbkit.curator import (
    KnowledgeConfigurationError,
    KnowledgeCurator,
    KnowledgeEvidenceBatch,
    KnowledgeEvidenceEvent,
    KnowledgeValidatorError,
)
from kbkit.curator.errors import InvalidRequestError
from kbkit.distill import work_clone
from kbkit.distill.evidence import to_event
from kbkit.distill.knowledge_prs import KnowledgePr
from kbkit.distill.pr_body import REPORT_HEADING, Extras, one_line, rebuild_comment, render
from kbkit.distill.pr_record import TRANSCRIPT_CHARS, BatchRecord, PrRecord
from kbkit.distill.publication import PublicationError, Publisher
from kbkit.distill.rows import mark
from kbkit.distill.session import Session
from kbkit.distill.taken import taken_ids
from kbkit.infra import inert
from kbkit.infra.steps import reached
from kbkit.intake.ledger import Key, Row, load_events, load_status
from kbkit.vcs import git


def is_current(clone: Path, main: str, head: str | None, record: PrRecord) -> bool:
    """Main is an ancestor of `head` and the head's batch commits are the record's."""
    if head is None or git.rev_parse(clone, head) is None:
        return False
    if not git.is_ancestor(clone, main, head):
        return False
    on_head = [c.batch_id for c in work_clone.batches_between(clone, main, head)]
    return on_head == [b.batch_id for b in record.batches if b.rows]


def bring_up_to_date(s: Session, state: Any, publisher: Publisher) -> Any:
    """Rebuild every open PR that is not current; the state with their new records and
    heads (`state` is a review.ReviewState)."""
    prs = list(state.prs)
    heads = dict(state.fork_heads)
    for index, pr in enumerate(prs):
        if not pr.is_open or pr.record is None:
            continue
        head = heads.get(pr.pull.head_ref)
        if is_current(publisher.clone, state.main, head, pr.record):
            continue
        if s.o.dry_run:
            s.note(f"knowledge PR #{pr.number} would be rebuilt on main {state.main[:12]}")
            continue
        others = [p for p in prs if p.number != pr.number]
        try:
            record, tip = _rebuild(s, state._replace(prs=others, fork_heads=heads), pr, publisher)
        except PublicationError as exc:
            s.note(f"knowledge PR #{pr.number} could not be rebuilt ({exc}); the next run tries again")  # fmt: skip
            continue
        prs[index] = pr._replace(record=record)
        if tip is not None:
            heads[pr.pull.head_ref] = tip
        else:
            prs[index] = prs[index]._replace(pull=pr.pull._replace(state="closed"))
    return state._replace(prs=prs, fork_heads=heads)


def _rebuild(
    s: Session, state: Any, pr: KnowledgePr, publisher: Publisher
) -> tuple[PrRecord, str | None]:
    """Rebuild `pr`'s branch on main; its new record and pushed head (None: closed)."""
    clone, branch, record = publisher.clone, pr.pull.head_ref, pr.record
    assert record is not None
    s.say(f"knowledge PR #{pr.number}: main moved; rebuilding {branch} on {state.main[:12]}")
    old_head = state.fork_heads.get(branch)
    people = _people_commits(clone, state.main, old_head)
    git.reset_branch(clone, branch, state.main)
    curator = KnowledgeCurator(clone, today=s.o.day)
    heads = {p.number: h for p in state.prs if (h := state.fork_heads.get(p.pull.head_ref))}
    curator.taken = taken_ids(clone, state.prs, heads, state.main, curator.policy)
    curator.check_validators()  # a broken gate is configuration: exit 2 before any write
    events = load_events(s.o.intake_dir)
    kept: list[BatchRecord] = []
    dropped: list[dict[str, Any]] = []
    transcripts: list[str] = []
    already: list[str] = []
    for batch in record.batches:
        todo = [r for r in batch.rows if not _on_main(clone, curator.root, r)]
        already += [str(r["rule_id"]) for r in batch.rows if r not in todo]
        if not todo:
            kept.append(batch._replace(rows=()))
            continue
        rows, lost, transcript = _apply_again(s, curator, batch, todo, events)
        dropped += lost
        if transcript:
            transcripts.append(transcript)
        kept.append(batch._replace(rows=tuple(rows), transcript=transcript[:TRANSCRIPT_CHARS] or batch.transcript))  # fmt: skip
    kept = _without_orphaned_sources(kept, dropped)
    if people and not git.replay(clone, [sha for sha, _ in people]):
        assert old_head is not None  # people's commits were read from it
        git.reset_branch(clone, branch, old_head)  # the branch as the PR shows it
        publisher.comment(pr.number, people_comment(state.main, people, replayed=False))
        s.updated.append(pr.number)
        s.note(f"knowledge PR #{pr.number} left as it is: {len(people)} commit(s) by people no longer apply on main")  # fmt: skip
        return record, old_head
    new = record._replace(batches=tuple(kept), dropped=(*record.dropped, *dropped))
    commits = {c.batch_id: c.sha for c in work_clone.batches_between(clone, state.main, branch)}
    extras = Extras(report=_report_of(pr.pull.body), commits=commits)
    body = render(new, extras)
    comment = rebuild_comment(state.main, new.rule_ids(), dropped, "\n".join(transcripts), already)  # fmt: skip
    if people:
        comment += "\n" + people_comment(state.main, people, replayed=True)
    _pending_before_unlisted(s, pr, record, new)
    if not new.rule_ids():
        publisher.comment(pr.number, comment + "\nNothing is left to propose, so kbkit closes this PR.\n")  # fmt: skip
        publisher.close(pr.number, body)
        s.updated.append(pr.number)
        s.note(f"knowledge PR #{pr.number} closed: none of its rules is left to propose")
        return new, None
    publisher.edit_body(pr.number, body)  # the record first: a lost push is rebuilt next run
    reached("rebuilt")
    tip = git.rev_parse(clone, branch)
    assert tip is not None
    publisher.push(branch, tip, state.fork_heads.get(branch))
    publisher.comment(pr.number, comment)
    s.updated.append(pr.number)
    s.note(
        f"knowledge PR #{pr.number} rebuilt on main {state.main[:12]}: {len(new.rule_ids())} "
        f"rule(s) kept, {len(dropped)} no longer apply"
    )
    return new, tip


def _pending_before_unlisted(
    s: Session, pr: KnowledgePr, before: PrRecord, after: PrRecord
) -> None:
    """Rows the rebuilt record stops listing go back to pending *before* the body changes:
    a run stopped in between leaves a row pending that the PR still lists (the next run reads
    it back as published and drops it again), never one published by a PR that does not
    list it."""
    gone = set(before.sources()) - set(after.sources())
    if not gone or s.o.dry_run:
        return
    status = load_status(s.o.intake_dir)
    for key in sorted(gone):
        current = status.get(key) or {}
        if current.get("state") != "published" or current.get("url") != pr.pull.url:
            continue
        mark(
            s.o.intake_dir,
            key,
            "pending",
            attempts=int(current.get("attempts", 0)),
            previous=current,
            reason=f"knowledge PR #{pr.number} no longer lists it (rebuilt on main)",
        )


def _apply_again(
    s: Session,
    curator: KnowledgeCurator,
    batch: BatchRecord,
    todo: list[dict[str, Any]],
    events: dict[Key, Row],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str]:
    """Validate and apply `todo` (a batch's rows not on main yet) on the clone, commit; the
    rows kept, the rows dropped (with reasons) and the gate's transcript."""
    evidence = KnowledgeEvidenceBatch([_event(events, k) for k in batch.sources], max(len(todo), 1))
    validation = curator.validate_proposals(json.dumps({"proposals": todo}), evidence)
    dropped = [_dropped(todo[r.model_index], r.reason, r.message) for r in validation.rejected]
    if not validation.accepted:
        return [], dropped, ""
    try:
        result = curator.apply(validation)
    except KnowledgeConfigurationError:
        raise
    except KnowledgeValidatorError as exc:
        why = f"the validators refused it on the new main ({exc.result.status})"
        lost = [_dropped(todo[p.model_index], "validators", why) for p in validation.accepted]
        return [], dropped + lost, exc.result.output
    kept = [todo[p.model_index] for p in validation.accepted]
    titles = [f"{p.rule_id} — {p.title} ({p.target})" for p in validation.accepted]
    work_clone.commit_batch(
        curator.clone,
        curator.root,
        result.changes,
        batch.batch_id,
        batch.day,
        batch.sources,
        titles,
    )
    return kept, dropped, result.validators.output if result.validators else ""


def _report_of(body: str) -> str:
    """The day's report the body carried (kept as it was: it is that day's)."""
    start = body.find(REPORT_HEADING)
    end = body.rfind("<!-- kbkit:record:v1 ")
    return body[start:end].rstrip() + "\n" if start >= 0 and end > start else ""


def _people_commits(clone: Path, main: str, head: str | None) -> list[tuple[str, str]]:
    """(commit id, message) of the commits people added to the bot's branch: every commit
    after its first batch commit that is not a batch commit, oldest first."""
    if head is None or git.rev_parse(clone, head) is None:
        return []
    commits = git.commits_in(clone, f"{main}..{head}")
    ours = [i for i, (sha, message) in enumerate(commits) if work_clone.parse_trailers(sha, message)]  # fmt: skip
    if not ours:
        return []
    return [(sha, message) for i, (sha, message) in enumerate(commits) if i > ours[0] and i not in ours]  # fmt: skip


def people_comment(main: str, people: list[tuple[str, str]], *, replayed: bool) -> str:
    """What the rebuild did with the commits people pushed to the branch, named one by one."""
    named = [f"- `{sha[:12]}` {one_line(message.splitlines()[0] if message.strip() else '')}" for sha, message in people]  # fmt: skip
    if replayed:
        head = f"Kept {len(people)} commit(s) pushed to this branch by people, replayed on top in their order:"  # fmt: skip
    else:
        head = (
            f"`main` moved (now {main[:12]}), but {len(people)} commit(s) pushed to this branch "
            "by people no longer apply on it, so kbkit leaves this PR exactly as it is. Rebase "
            "the branch on `main` by hand (or close the PR and the events are proposed again):"
        )
    return inert.markdown("\n".join([head, *named]) + "\n")


def _on_main(clone: Path, root: str, row: dict[str, Any]) -> bool:
    """The row's section is on its page already, word for word: published upstream."""
    page = clone / root / f"{row['target']}.md"
    try:
        return str(row["section"]).strip() in page.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False


def _dropped(row: dict[str, Any], reason: str, message: str) -> dict[str, Any]:
    return {
        "rule_id": row.get("rule_id"),
        "target": row.get("target"),
        "reason": reason,
        "message": message,
        "citations": list(row.get("citations") or []),
    }


def _without_orphaned_sources(
    kept: list[BatchRecord], dropped: list[dict[str, Any]]
) -> list[BatchRecord]:
    """Take off the record the events that only dropped rules cited: they go back to
    pending (the reconciliation after the rebuild marks them) and are distilled again."""
    still = {str(c) for b in kept for r in b.rows for c in r.get("citations") or []}
    lost = {str(c) for d in dropped for c in d["citations"]} - still
    for item in dropped:
        item["sources"] = []
    out = []
    for batch in kept:
        gone = [k for k in batch.sources if k[1] in lost]
        for item in dropped:
            item["sources"] += [list(k) for k in gone if k[1] in item["citations"]]
        out.append(batch._replace(sources=tuple(k for k in batch.sources if k[1] not in lost)))
    for item in dropped:
        del item["citations"]
    return out


def _event(events: dict[Key, Row], key: Key) -> KnowledgeEvidenceEvent:
    """The evidence event of a recorded source (only its id matters for a re-validation:
    what a marker may cite); a stand-in when the ledger lacks the row."""
    row = events.get(key)
    if row is not None:
        try:
            return to_event(row)
        except InvalidRequestError:
            pass
    return KnowledgeEvidenceEvent(kind=key[0], source_id=key[1], repo="unknown", title=key[1])
