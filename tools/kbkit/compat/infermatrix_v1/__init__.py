"""kbkit as a drop-in provider for the InferMatrixCopilot SDK v1 knowledge contract.

A host switches by changing one import:

    from kbkit.compat.infermatrix_v1 import KnowledgeCurator, KnowledgeEvidenceBatch, ...

The facade translates the SDK's names, wire shapes, results and reason texts onto kbkit's
curator (`kbkit.curator`), which keeps catalog, validation and apply; the rule shape comes
from the built-in policy profile `infermatrix-sdk`.
"""

from __future__ import annotations

from kbkit.compat.infermatrix_v1 import models
from kbkit.compat.infermatrix_v1.curator import PROFILE, KnowledgeCurator
from kbkit.compat.infermatrix_v1.models import *  # noqa: F403  (the SDK's value types: models.__all__)

__all__ = ["PROFILE", "KnowledgeCurator"]
__all__ += models.__all__
