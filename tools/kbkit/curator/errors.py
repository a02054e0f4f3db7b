"""The curator's three errors: bad request, refused curation, failed validator gate."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbkit.infra.errors import KbkitError, UsageError

if TYPE_CHECKING:
    from kbkit.curator.gate import ValidatorResult


class InvalidRequestError(KbkitError):
    """A malformed request: a bad event field, an empty or oversized batch, bad JSON."""

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field


class KnowledgeCurationError(KbkitError):
    """The curator refuses: unknown catalog page, integrity failure or a stale base (SHA)."""


class KnowledgeValidatorError(KbkitError):
    """A validator failed, timed out, could not launch or is missing; `.result` says which."""

    def __init__(self, message: str, result: ValidatorResult):
        super().__init__(message)
        self.result = result


class KnowledgeConfigurationError(KnowledgeValidatorError, UsageError):
    """The gate cannot run as configured (a policy validator command is missing): exit code
    2, raised before any write; a caller must not count it as a failed attempt."""
