"""Model gateways behind one small interface: `complete(prompt, schema) -> str`.

- `replay:FILE`: recorded replies in JSONL, keyed by a hash of the request (standard library
  only; tests and the demo use it). A miss is a clear error naming the key.
- `llm:MODEL_ID`: any model of the `llm` library (`pip install '.[llm]'`), with the proposal
  schema passed through llm's schema support. The reply is never trusted: distill validates
  it locally whatever the provider promises.

Truncated output, refusals, timeouts and provider errors raise `ModelCallError`: a failed
attempt for the rows of the batch.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any, Protocol

from kbkit.infra.errors import InputError, KbkitError, UsageError
from kbkit.infra.jsonl import append_rows, read_jsonl

DEFAULT_TIMEOUT = 300.0
# Finish reasons providers use for a reply cut short or withheld (OpenAI, Anthropic, Gemini).
_TRUNCATED = {"length", "max_tokens", "MAX_TOKENS"}
_REFUSED = {"content_filter", "refusal", "SAFETY", "RECITATION"}


class ModelCallError(KbkitError):
    """The model call failed (timeout, refusal, truncation, provider error): a failed attempt."""


class ReplayMissError(KbkitError):
    """A replay file holds no reply for this request: the prompt changed or was never recorded."""


class Gateway(Protocol):
    name: str

    def complete(self, prompt: str, schema: dict[str, Any]) -> str: ...


def request_hash(prompt: str, schema: dict[str, Any]) -> str:
    """The stable key of a request: SHA-256 of the canonical JSON of prompt and schema."""
    canonical = json.dumps({"prompt": prompt, "schema": schema}, sort_keys=True, ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ReplayGateway:
    """Replies recorded earlier (`kb distill --record FILE`), looked up by request hash."""

    def __init__(self, path: Path):
        self.path = path
        self.name = f"replay:{path}"
        if not path.is_file():
            raise UsageError(f"{path}: no such replay file; record one with `kb distill --record`")
        contents = read_jsonl(path)
        if contents.problems:
            problem = contents.problems[0]
            raise InputError(problem.message, path=str(path), line=problem.line)
        self.replies: dict[str, str] = {}
        for row in contents.rows:
            key, reply = row.data.get("key"), row.data.get("reply")
            if not isinstance(key, str) or not isinstance(reply, str):
                raise InputError(
                    'each line needs string fields "key" and "reply"',
                    path=str(path),
                    line=row.line,
                )
            self.replies[key] = reply  # the last recording of a key wins

    def complete(self, prompt: str, schema: dict[str, Any]) -> str:
        key = request_hash(prompt, schema)
        try:
            return self.replies[key]
        except KeyError:
            raise ReplayMissError(
                f"{self.path}: no recorded reply for request {key} "
                f"({len(self.replies)} recorded); the prompt or schema changed, so record "
                "a new reply with `kb distill --model llm:MODEL --record FILE`"
            ) from None


class LlmGateway:
    """A model of the `llm` library, resolved by id or alias (plugins register them)."""

    def __init__(self, model_id: str, timeout: float = DEFAULT_TIMEOUT):
        try:
            import llm  # optional extra: pip install '.[llm]'
        except ModuleNotFoundError as exc:
            raise UsageError(
                "--model llm:...: the `llm` library is not installed; run "
                "`pip install 'kbkit-knowledge[llm]'` (or `pip install llm` in kbkit's Python) and its plugin "
                "for your provider"
            ) from exc
        try:
            self.model = llm.get_model(model_id)
        except llm.UnknownModelError as exc:
            raise UsageError(
                f"--model llm:{model_id}: unknown to llm; run `llm models` to list the models "
                "your installed plugins provide"
            ) from exc
        self.name = f"llm:{model_id}"
        self.timeout = timeout

    def _call(self, prompt: str, schema: dict[str, Any]) -> tuple[str, Any]:
        kwargs: dict[str, Any] = {"stream": False}
        if getattr(self.model, "supports_schema", False):
            kwargs["schema"] = schema
        response = self.model.prompt(prompt, **kwargs)
        text = response.text()
        return text, getattr(response, "response_json", None)

    def complete(self, prompt: str, schema: dict[str, Any]) -> str:
        # A daemon thread gives the call a deadline: a hung provider cannot hang distill
        # (an executor's worker would still be joined at interpreter exit).
        outcome: list[Any] = []

        def call() -> None:
            try:
                outcome.append(("ok", self._call(prompt, schema)))
            except Exception as exc:  # handed to the caller below
                outcome.append(("error", exc))

        worker = threading.Thread(target=call, name=f"kbkit-model-{self.name}", daemon=True)
        worker.start()
        worker.join(self.timeout)
        if not outcome:
            raise ModelCallError(f"{self.name}: no reply within {self.timeout:g}s (timeout)")
        status, value = outcome[0]
        if status == "error":
            exc = value
            if type(exc).__name__ == "NeedsKeyException":  # configuration, not a bad reply
                raise UsageError(
                    f"{self.name}: {exc}; set the key (`llm keys set ...` or the provider's "
                    "environment variable) and rerun"
                ) from exc
            raise ModelCallError(f"{self.name}: {exc.__class__.__name__}: {exc}") from exc
        text, details = value
        check_finish(self.name, details)
        if not text.strip():
            raise ModelCallError(f"{self.name}: empty reply (refused or cut off)")
        return text


def check_finish(name: str, details: Any) -> None:
    """Raise ModelCallError when the provider says the reply was cut short or refused."""
    if not isinstance(details, dict):
        return
    reasons: list[Any] = [details.get("finish_reason"), details.get("stop_reason")]
    for choice in details.get("choices") or []:
        if isinstance(choice, dict):
            reasons.append(choice.get("finish_reason"))
    if details.get("refusal"):
        raise ModelCallError(f"{name}: the model refused: {str(details['refusal'])[:200]}")
    for reason in reasons:
        if reason in _TRUNCATED:
            raise ModelCallError(f"{name}: the reply was truncated (finish reason {reason!r})")
        if reason in _REFUSED:
            raise ModelCallError(f"{name}: the model refused (finish reason {reason!r})")


class RecordingGateway:
    """Wraps a gateway and appends each successful reply to a replay file."""

    def __init__(self, inner: Gateway, path: Path):
        self.inner = inner
        self.path = path
        self.name = inner.name

    def complete(self, prompt: str, schema: dict[str, Any]) -> str:
        reply = self.inner.complete(prompt, schema)
        row = {"key": request_hash(prompt, schema), "model": self.inner.name, "reply": reply}
        append_rows(self.path, [row])
        return reply


def open_gateway(spec: str, *, timeout: float = DEFAULT_TIMEOUT) -> Gateway:
    """`replay:FILE` or `llm:MODEL_ID` (any other id, e.g. `llama3.2:latest`, means llm)."""
    kind, sep, rest = spec.partition(":")
    if sep and kind == "replay" and rest:
        return ReplayGateway(Path(rest))
    if sep and kind == "llm" and rest:
        return LlmGateway(rest, timeout)
    if spec and kind not in ("replay", "llm"):
        return LlmGateway(spec, timeout)
    raise UsageError(f"--model {spec!r}: use replay:FILE or llm:MODEL_ID")
