"""The SDK v1 value types: frozen dataclasses with the SDK's field names and `to_dict()`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kbkit.curator import AcceptedProposal, InvalidRequestError, KnowledgeCurationError

__all__ = [
    "InvalidRequestError",
    "KnowledgeApplyResult",
    "KnowledgeCurationError",
    "KnowledgeEvidenceBatch",
    "KnowledgeEvidenceEvent",
    "KnowledgeProposalRejection",
    "KnowledgeProposalValidation",
    "KnowledgeRuleProposal",
    "KnowledgeValidatorError",
    "KnowledgeValidatorResult",
    "RepositoryRef",
]


@dataclass(frozen=True)
class RepositoryRef:
    """The repository a batch is about: `alias` is its folder under knowledge/repos/."""

    alias: str
    full_name: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The reference as JSON-ready data."""
        return {"alias": self.alias, "full_name": self.full_name}


@dataclass(frozen=True)
class KnowledgeEvidenceEvent:
    """One piece of evidence; `source_reference` is what a rule cites (`^[PR #7]`)."""

    event_id: str
    source_kind: str
    source_reference: str
    title: str
    summary: str = ""
    changed_paths: tuple[str, ...] = ()
    attributes: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The event as JSON-ready data."""
        return {
            "event_id": self.event_id,
            "source_kind": self.source_kind,
            "source_reference": self.source_reference,
            "title": self.title,
            "summary": self.summary,
            "changed_paths": list(self.changed_paths),
            "attributes": dict(self.attributes),
        }


@dataclass(frozen=True)
class KnowledgeEvidenceBatch:
    """The events of one model call for one repository, and how many rules may come back."""

    batch_id: str
    repository: RepositoryRef
    events: tuple[KnowledgeEvidenceEvent, ...]
    max_rules: int = 8

    def to_dict(self) -> dict[str, Any]:
        """The batch as JSON-ready data."""
        return {
            "batch_id": self.batch_id,
            "repository": self.repository.to_dict(),
            "events": [event.to_dict() for event in self.events],
            "max_rules": self.max_rules,
        }


@dataclass(frozen=True)
class KnowledgeRuleProposal:
    """An accepted proposal; `proposal_id` addresses its content and its page's bytes."""

    proposal_id: str
    input_index: int
    page_document_id: str
    rule_id: str
    section_markdown: str
    sources: tuple[str, ...]
    page_sha256: str
    # kbkit's own accepted row, checked against the fields above before apply uses it.
    kbkit: AcceptedProposal | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The proposal as JSON-ready data (kbkit's row is not part of the wire shape)."""
        return {
            "proposal_id": self.proposal_id,
            "input_index": self.input_index,
            "page_document_id": self.page_document_id,
            "rule_id": self.rule_id,
            "section_markdown": self.section_markdown,
            "sources": list(self.sources),
            "page_sha256": self.page_sha256,
        }


@dataclass(frozen=True)
class KnowledgeProposalRejection:
    """A rejected row: its index in the model output and one fixed reason text."""

    index: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """The rejection as JSON-ready data."""
        return {"index": self.index, "reason": self.reason}


@dataclass(frozen=True)
class KnowledgeProposalValidation:
    """What `validate_proposals` accepted and rejected for one batch."""

    batch_id: str
    repository: RepositoryRef
    accepted: tuple[KnowledgeRuleProposal, ...]
    rejected: tuple[KnowledgeProposalRejection, ...]

    def to_dict(self) -> dict[str, Any]:
        """The validation as JSON-ready data."""
        return {
            "batch_id": self.batch_id,
            "repository": self.repository.to_dict(),
            "accepted": [item.to_dict() for item in self.accepted],
            "rejected": [item.to_dict() for item in self.rejected],
        }


@dataclass(frozen=True)
class KnowledgeValidatorResult:
    """One validator of the gate: ready, passed, failed, timeout, error or missing."""

    validator_id: str
    passed: bool
    status: str
    returncode: int | None
    output: str

    def to_dict(self) -> dict[str, Any]:
        """The validator result as JSON-ready data."""
        return {
            "validator_id": self.validator_id,
            "passed": self.passed,
            "status": self.status,
            "returncode": self.returncode,
            "output": self.output,
        }


@dataclass(frozen=True)
class KnowledgeApplyResult:
    """What apply did: counts, input indexes, pages, validators, and whether it rolled back."""

    batch_id: str
    success: bool
    attempted: int
    applied: int
    accepted_indexes: tuple[int, ...]
    rejected_indexes: tuple[int, ...]
    updated_document_ids: tuple[str, ...]
    updated_on: str
    validators: tuple[KnowledgeValidatorResult, ...]
    rolled_back: bool

    def to_dict(self) -> dict[str, Any]:
        """The apply result as JSON-ready data."""
        return {
            "batch_id": self.batch_id,
            "success": self.success,
            "attempted": self.attempted,
            "applied": self.applied,
            "accepted_indexes": list(self.accepted_indexes),
            "rejected_indexes": list(self.rejected_indexes),
            "updated_document_ids": list(self.updated_document_ids),
            "updated_on": self.updated_on,
            "validators": [item.to_dict() for item in self.validators],
            "rolled_back": self.rolled_back,
        }


class KnowledgeValidatorError(KnowledgeCurationError):
    """The validator gate failed (or a validator is missing); `.result` says which."""

    def __init__(self, message: str, result: KnowledgeApplyResult):
        super().__init__(message)
        self.result = result
