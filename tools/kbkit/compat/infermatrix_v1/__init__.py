"""kbkit as a drop-in provider for the InferMatrixCopilot SDK v1 knowledge contract.

A host switches by changing one import:

    from kbkit.compat.infermatrix_v1 import KnowledgeCurator, KnowledgeEvidenceBatch, ...

The facade translates the SDK's names, wire shapes, results and reason texts onto kbkit's
curator (`kbkit.curator`), which keeps catalog, validation and apply; the rule shape comes
from the built-in policy profile `infermatrix-sdk`.
"""

from __future__ import annotations

from kbkit.compat.infermatrix_v1.curator import PROFILE, KnowledgeCurator
from kbkit.compat.infermatrix_v1.models import (
    InvalidRequestError,
    KnowledgeApplyResult,
    KnowledgeCurationError,
    KnowledgeEvidenceBatch,
    KnowledgeEvidenceEvent,
    KnowledgeProposalRejection,
    KnowledgeProposalValidation,
    KnowledgeRuleProposal,
    KnowledgeValidatorError,
    KnowledgeValidatorResult,
    RepositoryRef,
)

__all__ = [
    "PROFILE",
    "InvalidRequestError",
    "KnowledgeApplyResult",
    "KnowledgeCurationError",
    "KnowledgeCurator",
    "KnowledgeEvidenceBatch",
    "KnowledgeEvidenceEvent",
    "KnowledgeProposalRejection",
    "KnowledgeProposalValidation",
    "KnowledgeRuleProposal",
    "KnowledgeValidatorError",
    "KnowledgeValidatorResult",
    "RepositoryRef",
]
