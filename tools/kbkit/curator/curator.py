"""`KnowledgeCurator`: the v1 facade over catalog, prompt, schema, validation and apply.

Every public call first takes the clone's lock long enough to restore an interrupted apply.
The curator never clones, calls a model, touches the ledger, commits, pushes or schedules.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kbkit.curator.apply import (
    KnowledgeApplyResult,
    change_of,
    check_gate,
    commit_plans,
    plan_all,
)
from kbkit.curator.catalog import Catalog, load_catalog, with_taken
from kbkit.curator.confine import ESCAPE
from kbkit.curator.errors import InvalidRequestError, KnowledgeCurationError
from kbkit.curator.events import KnowledgeEvidenceBatch
from kbkit.curator.gate import commands, gate_mode, policy_arguments
from kbkit.curator.journal import RESOLUTIONS, RecoveryResult, lock_target, recover
from kbkit.curator.prompt import KnowledgePrompt, build_prompt
from kbkit.curator.proposals import KnowledgeProposalValidation, revalidate, validate_reply
from kbkit.curator.schema import wire_schema
from kbkit.infra import clock
from kbkit.infra.boundary import OutsideRepository
from kbkit.infra.file_lock import locked
from kbkit.policy.model import Policy, load_policy


def _require(value: Any, kind: type, name: str) -> None:
    if not isinstance(value, kind):
        raise InvalidRequestError(
            f"expected a {kind.__name__}, got {type(value).__name__}", field=name
        )


class KnowledgeCurator:
    """The curator of one dedicated work clone of a knowledge repository."""

    def __init__(
        self,
        clone_path: str | Path,
        *,
        policy: Policy | str | None = None,
        today: str | datetime.date | None = None,
        python: str | None = None,
        lock_timeout: float = 60.0,
        gate: Sequence[Sequence[str]] | None = None,
        taken: Mapping[str, tuple[str, str]] | None = None,
    ):
        self.clone = Path(clone_path).absolute()
        if not self.clone.is_dir():
            raise KnowledgeCurationError(f"{clone_path}: the clone is not a directory")
        try:
            self.policy = policy if isinstance(policy, Policy) else load_policy(self.clone, policy)
        except OutsideRepository as exc:  # the curator's stable reason for it
            raise KnowledgeCurationError(f"{ESCAPE}: {exc}") from exc
        self.today = str(today) if today else clock.today().isoformat()
        self.python = python  # the interpreter validators run with (default: this one)
        self.lock_timeout = lock_timeout
        # The gate is the caller's choice, never a policy's: None means kbkit's built-in
        # validators, then the policy's extra commands; a host with its own fixed gate (the
        # compat facade) names every command, and an empty gate is refused.
        if gate is not None and not [c for c in gate if c]:
            raise InvalidRequestError("the gate needs at least one command", field="gate")
        self._gate = None if gate is None else [tuple(map(str, c)) for c in gate if c]
        # rule ID -> (target, where): IDs held elsewhere (open pull requests) that the
        # catalog treats as defined, so neither the prompt nor validation offers them
        self.taken = dict(taken or {})
        self._catalog: Catalog | None = None
        self._source_ids: tuple[str, ...] = ()  # citable ids of the last prompt's batch

    @property
    def root(self) -> str:
        return self.policy.knowledge_root

    def recover(self, resolve: str | None = None) -> RecoveryResult:
        """Undo an interrupted apply (no-op without a journal): every page that holds what
        the apply wrote goes back to its base bytes. A page that changed since is left as it
        is and raises RecoveryConflict, until a person decides with `resolve`:
        "keep-current" (keep such pages as they are) or "restore-base" (put them back)."""
        if resolve is not None and resolve not in RESOLUTIONS:
            raise InvalidRequestError(f"one of {', '.join(RESOLUTIONS)}", field="resolve")
        with locked(lock_target(self.clone), self.lock_timeout):
            return recover(self.clone, resolve)

    def catalog(self) -> Catalog:
        """The rule pages that may receive rules, read now."""
        self.recover()
        self._catalog = with_taken(load_catalog(self.clone, self.policy), self.taken)
        if not self._catalog.pages and not self._catalog.new_pages:
            raise KnowledgeCurationError(
                f"{self.clone.name}: no rule pages (file names matching the policy's "
                f"rules.page_name {self.policy.data['rules'].get('page_name')!r}, with "
                f"type: {self.policy.data['rules']['page_type']}) under the roots, and no "
                "owner folder whose index has a table to register a first one"
            )
        return self._catalog

    def build_prompt(self, batch: KnowledgeEvidenceBatch) -> KnowledgePrompt:
        _require(batch, KnowledgeEvidenceBatch, "batch")
        prompt = build_prompt(self.catalog(), batch, self.policy)
        self._source_ids = batch.citable_ids
        return prompt

    def proposal_schema(
        self, max_rules: int, batch: KnowledgeEvidenceBatch | None = None
    ) -> dict[str, Any]:
        """The portable wire schema with this clone's targets (and what the batch's rules may
        cite: its source IDs and review note ids)."""
        catalog = self._catalog or self.catalog()
        targets = catalog.targets()  # the same enum validation checks against
        sources = list(batch.citable_ids if batch else self._source_ids)
        return wire_schema(targets, sources, max_rules)

    def validate_proposals(
        self, model_json: Any, batch: KnowledgeEvidenceBatch, catalog: Catalog | None = None
    ) -> KnowledgeProposalValidation:
        """Check every row; the catalog defaults to the one the prompt was built from."""
        _require(batch, KnowledgeEvidenceBatch, "batch")
        if catalog is None and self._catalog is None:
            catalog = self.catalog()  # recovers first
        else:
            self.recover()
            catalog = catalog or self._catalog
        assert catalog is not None
        return validate_reply(model_json, batch, catalog, self.clone, self.policy)

    def revalidate(self, validation: KnowledgeProposalValidation) -> None:
        """Check the accepted rows again instead of trusting them (a validation may come from
        a file): raises KnowledgeCurationError ("tampered: ..." or "stale: ...")."""
        _require(validation, KnowledgeProposalValidation, "validation")
        if validation.accepted:
            catalog = self._catalog or self.catalog()
            revalidate(validation, catalog, self.clone, self.policy)

    def plan(self, validation: KnowledgeProposalValidation) -> KnowledgeApplyResult:
        """What apply would write (a dry run: nothing is written)."""
        self.revalidate(validation)
        with locked(lock_target(self.clone), self.lock_timeout):
            recover(self.clone)
            plans = plan_all(self.clone, self.root, validation.accepted, self.policy, self.today)
        return KnowledgeApplyResult(
            tuple(change_of(p) for p in plans), tuple(p.id for p in validation.accepted), None, True
        )

    def check_validators(self) -> None:
        """Raise KnowledgeConfigurationError (exit 2) when the gate cannot run as configured:
        callers check before spending a model call or an attempt."""
        check_gate(self.clone, self._gate_commands())

    def _gate_commands(self) -> list[tuple[str, ...]]:
        if self._gate is not None:
            return list(self._gate)
        return commands(self.policy.data.get("validators"))

    def apply(self, validation: KnowledgeProposalValidation) -> KnowledgeApplyResult:
        """Insert every accepted section, bump dates and sources, gate on the validators
        (kbkit's built-in validators always, then the policy's extra commands)."""
        self.check_validators()
        self.revalidate(validation)
        validators = self._gate_commands()
        timeout = float(self.policy.data.get("validator_timeout") or 120)
        with locked(lock_target(self.clone), self.lock_timeout):
            recover(self.clone)
            plans = plan_all(self.clone, self.root, validation.accepted, self.policy, self.today)
            if not plans:
                return KnowledgeApplyResult((), (), None, False)
            result = commit_plans(
                self.clone,
                self.root,
                plans,
                validators,
                timeout,
                self.python,
                policy_arguments(self.policy.source),
                gate_mode(self.policy.data),
            )
        return KnowledgeApplyResult(
            tuple(change_of(p) for p in plans),
            tuple(p.id for p in validation.accepted),
            result,
            False,
        )
