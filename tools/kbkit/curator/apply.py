"""Apply accepted proposals as one transaction across all their pages.

Order (STYLE 9): take the clone lock (threads and processes), recover an interrupted apply,
re-check every target SHA (stale -> refuse), plan every page and prove its post-condition,
journal the base bytes and the digest of what will be written, write each page atomically,
run the validators; on any failure put back every page that still holds what the apply
wrote (byte for byte), and clear the journal only at the very end. No symlinked page is
written (`kbkit.curator.confine`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from kbkit.curator.catalog import sha256
from kbkit.curator.confine import read_page, writable_page
from kbkit.curator.errors import (
    KnowledgeConfigurationError,
    KnowledgeCurationError,
    KnowledgeValidatorError,
)
from kbkit.curator.gate import (
    GATE_NO_NEW,
    KB,
    MISSING,
    ValidatorResult,
    ValidatorRun,
    findings_before,
    missing,
    run_validators,
)
from kbkit.curator.journal import JournalPage, clear_journal, undo, write_journal
from kbkit.curator.layout import page_layout
from kbkit.curator.new_page import new_page_layout, skeleton
from kbkit.curator.plan import Insertion, PagePlan, PlanError, plan_index, plan_page
from kbkit.curator.proposals import AcceptedProposal
from kbkit.infra.jsonl import atomic_write_bytes
from kbkit.infra.steps import reached
from kbkit.pages.page import parse_page
from kbkit.policy.model import Policy

# Test seam: pause (seconds) after each page write, so crash tests can land mid-apply.


class PageChange(NamedTuple):
    document_id: str
    base_sha256: str
    new_sha256: str
    insertions: tuple[Insertion, ...]
    updated: tuple[str, str] | None
    sources_added: tuple[str, ...]
    created: bool = False  # a new rule page (base_sha256: of no bytes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "document_id": self.document_id,
            "base_sha256": self.base_sha256,
            "new_sha256": self.new_sha256,
            "insertions": [i.to_dict() for i in self.insertions],
            "updated": list(self.updated) if self.updated else None,
            "sources_added": list(self.sources_added),
            "created": self.created,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PageChange:
        return cls(
            data["document_id"],
            data["base_sha256"],
            data["new_sha256"],
            tuple(Insertion.from_dict(i) for i in data["insertions"]),
            (data["updated"][0], data["updated"][1]) if data["updated"] else None,
            tuple(data["sources_added"]),
            bool(data.get("created", False)),
        )


class KnowledgeApplyResult(NamedTuple):
    changes: tuple[PageChange, ...]
    applied: tuple[str, ...]  # proposal ids, in reply order
    validators: ValidatorResult | None  # None: nothing to apply, or a dry run
    dry_run: bool

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "api_version": 1,
            "dry_run": self.dry_run,
            "changes": [c.to_dict() for c in self.changes],
            "applied": list(self.applied),
            "validators": self.validators.to_dict() if self.validators else None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> KnowledgeApplyResult:
        validators = data["validators"]
        return cls(
            tuple(PageChange.from_dict(c) for c in data["changes"]),
            tuple(data["applied"]),
            ValidatorResult.from_dict(validators) if validators else None,
            bool(data["dry_run"]),
        )


def change_of(plan: PagePlan) -> PageChange:
    return PageChange(
        plan.document_id,
        sha256(b"" if plan.created else plan.base),
        sha256(plan.result),
        plan.insertions,
        plan.updated,
        plan.sources_added,
        plan.created,
    )


def plan_all(
    clone: Path, root: str, accepted: tuple[AcceptedProposal, ...], policy: Policy, today: str
) -> list[PagePlan]:
    """Re-check each target's SHA and plan its bytes (call with the lock held)."""
    by_target: dict[str, list[AcceptedProposal]] = {}
    for proposal in accepted:
        by_target.setdefault(proposal.target, []).append(proposal)
    plans = []
    for target, proposals in by_target.items():
        if proposals[0].new_page is not None:
            plans.extend(_plan_new_page(clone, root, target, proposals, policy, today))
            continue
        writable_page(clone, root, target)  # refuses a path leaving the clone, or a symlink
        try:
            data = read_page(clone, root, target)
        except OSError as exc:
            raise KnowledgeCurationError(f"stale: {target} cannot be read ({exc})") from exc
        bases = {p.base_sha256 for p in proposals}
        if bases != {sha256(data)}:
            raise KnowledgeCurationError(
                f"stale: {target} changed since the proposals were validated "
                f"(expected {sorted(bases)[0][:12]}, found {sha256(data)[:12]}); "
                "build a new catalog and ask again"
            )
        try:
            plans.append(plan_page(target, f"{root}/{target}.md", data, proposals, policy, today))
        except (PlanError, KeyError) as exc:
            raise KnowledgeCurationError(f"integrity: {target}: {exc}") from exc
    return plans


def _plan_new_page(
    clone: Path,
    root: str,
    target: str,
    proposals: list[AcceptedProposal],
    policy: Policy,
    today: str,
) -> list[PagePlan]:
    """A new rule page (its skeleton plus sections) and its owner's index with the new row."""
    creator = proposals[0].new_page
    assert creator is not None
    path = writable_page(clone, root, target)
    if path.exists() or path.is_symlink():
        raise KnowledgeCurationError(
            f"stale: {target} exists now; build a new catalog and ask again"
        )
    writable_page(clone, root, creator.index_page)  # the index gets a row: no symlink either
    try:
        index_data = read_page(clone, root, creator.index_page)
    except OSError as exc:
        raise KnowledgeCurationError(f"stale: {creator.index_page} cannot be read ({exc})") from exc
    if sha256(index_data) != creator.index_sha256:
        raise KnowledgeCurationError(
            f"stale: {creator.index_page} changed since the proposals were validated; "
            "build a new catalog and ask again"
        )
    index_rel = f"{root}/{creator.index_page}.md"
    base = skeleton(creator.title, parse_page(index_rel, index_data), policy, today)
    if isinstance(base, str):
        raise KnowledgeCurationError(f"stale: {target}: {base}")
    rel = f"{root}/{target}.md"
    layout = new_page_layout(page_layout(parse_page(rel, base), policy), proposals[0].group)
    try:
        page = plan_page(target, rel, base, proposals, policy, today, layout)
        index = plan_index(
            creator.index_page, index_rel, index_data, [creator.index_row], policy, today
        )
    except (PlanError, KeyError) as exc:
        raise KnowledgeCurationError(f"integrity: {target}: {exc}") from exc
    return [page._replace(created=True), index]


def _name(command: tuple[str, ...]) -> str:
    return " ".join(command[:2]) if command[0] == KB else command[0]


def check_gate(clone: Path, validators: list[tuple[str, ...]]) -> None:
    """Refuse a gate that cannot run (a policy validator script missing in the clone)."""
    absent = missing(clone, validators)
    if absent:
        run = ValidatorRun(tuple(absent), MISSING, None, f"missing: {', '.join(absent)}", 0.0)
        result = ValidatorResult(MISSING, run.output, False, (run,))
        raise KnowledgeConfigurationError(
            f"validator {absent[0]} (from the policy's validators) is missing in the clone; "
            "nothing was written. Add the script or remove it from the policy",
            result,
        )


def commit_plans(
    clone: Path,
    root: str,
    plans: list[PagePlan],
    validators: list[tuple[str, ...]],
    timeout: float,
    python: str | None,
    policy: list[str] | None = None,
    gate: str = GATE_NO_NEW,
) -> ValidatorResult:
    """Journal, write, validate; roll back on any failure (call with the lock held). In
    no-new-findings mode the built-ins first report the tree as it is, to compare against."""
    check_gate(clone, validators)
    before = None
    if gate == GATE_NO_NEW:
        found = findings_before(clone, validators, timeout, policy)
        if isinstance(found, ValidatorResult):
            raise KnowledgeValidatorError(
                f"validator {_name(found.runs[-1].command)} {found.status} on the tree before "
                "the change; nothing was written",
                found,
            )
        before = found
    # Each page confined to the clone and not a symlink, checked again before the first write.
    paths = {plan.document_id: writable_page(clone, root, plan.document_id) for plan in plans}
    journal = {
        plan.document_id: JournalPage(None if plan.created else plan.base, sha256(plan.result))
        for plan in plans
    }
    write_journal(clone, root, journal)
    try:
        for plan in plans:
            atomic_write_bytes(paths[plan.document_id], plan.result)
            reached("page-written")
        result = run_validators(clone, validators, timeout, python, policy, before)
    except BaseException:
        undo(clone, root, journal, what="the apply that was stopped")
        raise
    if result.status != "passed":
        failed = f"validator {_name(result.runs[-1].command)} {result.status}"
        undo(clone, root, journal, what=f"the apply whose {failed}")
        result = result._replace(rolled_back=True)
        raise KnowledgeValidatorError(f"{failed}; every page was restored byte-for-byte", result)
    clear_journal(clone)
    return result
