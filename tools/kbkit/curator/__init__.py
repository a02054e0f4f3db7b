"""kbkit's public curator API, version 1. Everything else in kbkit is private.

curator = KnowledgeCurator(clone_path)
batch = KnowledgeEvidenceBatch(events=[KnowledgeEvidenceEvent(...)], max_rules=N)
prompt = curator.build_prompt(batch)
schema = curator.proposal_schema(max_rules=batch.max_rules, batch=batch)
validation = curator.validate_proposals(model_json, batch)
result = curator.apply(validation)

May import: `kbkit.checks` and every layer below it; never `kbkit.lessons`.
"""

from __future__ import annotations

from kbkit.curator.apply import KnowledgeApplyResult, PageChange
from kbkit.curator.catalog import Catalog, CatalogPage
from kbkit.curator.curator import KnowledgeCurator
from kbkit.curator.errors import (
    InvalidRequestError,
    KnowledgeConfigurationError,
    KnowledgeCurationError,
    KnowledgeValidatorError,
)
from kbkit.curator.events import KnowledgeEvidenceBatch, KnowledgeEvidenceEvent
from kbkit.curator.gate import ValidatorResult, ValidatorRun
from kbkit.curator.journal import RecoveryConflict, RecoveryResult
from kbkit.curator.plan import Insertion
from kbkit.curator.prompt import KnowledgePrompt
from kbkit.curator.proposals import (
    REASONS,
    AcceptedProposal,
    KnowledgeProposalValidation,
    RejectedProposal,
)
from kbkit.curator.review_notes import ReviewNote

API_VERSION = 1

__all__ = [
    "API_VERSION",
    "REASONS",
    "AcceptedProposal",
    "Catalog",
    "CatalogPage",
    "Insertion",
    "InvalidRequestError",
    "KnowledgeApplyResult",
    "KnowledgeConfigurationError",
    "KnowledgeCurationError",
    "KnowledgeCurator",
    "KnowledgeEvidenceBatch",
    "KnowledgeEvidenceEvent",
    "KnowledgePrompt",
    "KnowledgeProposalValidation",
    "KnowledgeValidatorError",
    "PageChange",
    "RecoveryConflict",
    "RecoveryResult",
    "RejectedProposal",
    "ReviewNote",
    "ValidatorResult",
    "ValidatorRun",
]
