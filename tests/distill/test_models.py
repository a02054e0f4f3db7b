"""Model gateways: replay files, and the llm path through a model registered as a plugin."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import llm
import pytest

from kbkit.distill.models import (
    LlmGateway,
    ModelCallError,
    RecordingGateway,
    ReplayGateway,
    ReplayMissError,
    open_gateway,
    request_hash,
)
from kbkit.infra.errors import InputError, UsageError

SCHEMA = {"type": "object", "properties": {"proposals": {"type": "array"}}}
SEEN: list[dict[str, Any]] = []
RELEASE = threading.Event()  # a "hung" provider call waits for it


class ScriptedModel(llm.Model):
    """A model whose reply is chosen by the prompt; it records what llm handed it."""

    model_id = "kbkit-scripted"
    supports_schema = True

    def execute(self, prompt, stream, response, conversation):  # type: ignore[no-untyped-def]
        SEEN.append({"prompt": prompt.prompt, "schema": prompt.schema})
        text = prompt.prompt
        if text == "hang":
            RELEASE.wait(10)
        if text == "truncated":
            response.response_json = {"finish_reason": "length"}
            yield '{"proposals": ['
            return
        if text == "refused":
            response.response_json = {"stop_reason": "refusal"}
            yield ""
            return
        if text == "nokey":
            raise llm.errors.NeedsKeyException("No key found - add one using 'llm keys set x'")
        if text == "boom":
            raise RuntimeError("provider returned 529 overloaded")
        yield json.dumps({"proposals": [], "echo": text})


class ScriptedPlugin:
    """Registered with llm's own plugin manager, the way an installed plugin is."""

    @llm.hookimpl
    def register_models(self, register):  # type: ignore[no-untyped-def]
        register(ScriptedModel(), aliases=("scripted",))


@pytest.fixture
def scripted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from llm.plugins import pm

    monkeypatch.setenv("LLM_USER_PATH", str(tmp_path / "llm-home"))  # never the real ~/.config
    plugin = ScriptedPlugin()
    pm.register(plugin, name="kbkit-test-scripted")
    SEEN.clear()
    try:
        yield
    finally:
        pm.unregister(name="kbkit-test-scripted")


def test_request_hash_is_stable_and_sensitive() -> None:
    first = request_hash("p", SCHEMA)
    assert first == request_hash("p", json.loads(json.dumps(SCHEMA)))
    assert first.startswith("sha256:") and len(first) == 7 + 64
    assert request_hash("p ", SCHEMA) != first
    assert request_hash("p", {**SCHEMA, "x": 1}) != first


def test_llm_gateway_passes_prompt_and_schema_through_a_plugin(scripted: None) -> None:
    gateway = open_gateway("llm:kbkit-scripted")
    assert isinstance(gateway, LlmGateway)
    reply = gateway.complete("hello", SCHEMA)
    assert json.loads(reply) == {"proposals": [], "echo": "hello"}
    assert SEEN == [{"prompt": "hello", "schema": SCHEMA}]
    assert open_gateway("scripted").complete("alias", SCHEMA)  # aliases resolve too


@pytest.mark.parametrize(
    ("prompt", "message"),
    [
        ("truncated", "truncated"),
        ("refused", "refused"),
        ("boom", "RuntimeError: provider returned 529 overloaded"),
    ],
)
def test_llm_failures_are_failed_attempts(scripted: None, prompt: str, message: str) -> None:
    with pytest.raises(ModelCallError, match=message):
        LlmGateway("kbkit-scripted").complete(prompt, SCHEMA)


def test_llm_timeout_is_a_failed_attempt(scripted: None) -> None:
    RELEASE.clear()
    started = time.monotonic()
    try:
        with pytest.raises(ModelCallError, match="timeout"):
            LlmGateway("kbkit-scripted", timeout=0.2).complete("hang", SCHEMA)
        assert time.monotonic() - started < 1.5
    finally:
        RELEASE.set()


def test_unknown_llm_model_is_a_usage_error(scripted: None) -> None:
    with pytest.raises(UsageError, match="llm models"):
        open_gateway("llm:no-such-model")


def test_record_then_replay_round_trip(scripted: None, tmp_path: Path) -> None:
    replay = tmp_path / "replies.jsonl"
    recorder = RecordingGateway(open_gateway("llm:kbkit-scripted"), replay)
    reply = recorder.complete("remember me", SCHEMA)
    row = json.loads(replay.read_text())
    assert row == {
        "key": request_hash("remember me", SCHEMA),
        "model": "llm:kbkit-scripted",
        "reply": reply,
    }
    assert ReplayGateway(replay).complete("remember me", SCHEMA) == reply


def test_replay_miss_names_the_key(tmp_path: Path) -> None:
    replay = tmp_path / "r.jsonl"
    replay.write_text(json.dumps({"key": request_hash("a", SCHEMA), "reply": "{}"}) + "\n")
    gateway = open_gateway(f"replay:{replay}")
    assert gateway.complete("a", SCHEMA) == "{}"
    with pytest.raises(ReplayMissError) as caught:
        gateway.complete("b", SCHEMA)
    assert request_hash("b", SCHEMA) in str(caught.value)
    assert str(replay) in str(caught.value)


def test_bad_replay_files_are_named(tmp_path: Path) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"key": "k", "reply": "r"}\nnot json\n')
    with pytest.raises(InputError, match=r"broken\.jsonl:2:"):
        ReplayGateway(broken)
    shape = tmp_path / "shape.jsonl"
    shape.write_text('{"key": "k"}\n')
    with pytest.raises(InputError, match=r"shape\.jsonl:1: .*\"reply\""):
        ReplayGateway(shape)
    with pytest.raises(UsageError, match="no such replay file"):
        ReplayGateway(tmp_path / "absent.jsonl")
    with pytest.raises(UsageError, match="replay:FILE or llm:MODEL_ID"):
        open_gateway("replay:")


def test_a_missing_key_is_configuration_not_a_failed_attempt(scripted: None) -> None:
    with pytest.raises(UsageError, match="No key found.*rerun"):
        LlmGateway("kbkit-scripted").complete("nokey", SCHEMA)
