"""`kb lsp` stays inside the repository (`kbkit.infra.boundary`): a workspace whose knowledge
root leads outside (`knowledge_root: ../victim`, or a `knowledge/` that is a symlink out)
is refused with one error message and serves nothing; a real LSP client over stdio."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.kbtree import make_tree
from tests.outside import SECRET, fingerprint, victim


@pytest.fixture(params=["dotdot", "symlink"])
def repo(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    made = make_tree(tmp_path / "team", {"api": "Some text."})
    out = victim(tmp_path)
    if request.param == "dotdot":
        policy = made / "knowledge/policy.yaml"
        policy.write_text(policy.read_text() + "knowledge_root: ../victim\n")
    else:
        os.rename(made / "knowledge/policy.yaml", made / "kbkit.yaml")
        os.rename(made / "knowledge", tmp_path / "moved")
        os.symlink(out, made / "knowledge")
    return made


@pytest.mark.asyncio
async def test_a_knowledge_root_outside_is_refused_and_nothing_is_served(
    client: LanguageClient, repo: Path, tmp_path: Path
) -> None:
    out = tmp_path / "victim"
    before = fingerprint(out)
    for _ in range(50):  # the tree is loaded on `initialized`: wait for its verdict
        if client.messages:
            break
        await asyncio.sleep(0.1)
    said = [m.message for m in client.messages]
    assert len(said) == 1 and "leads outside the repository" in said[0], said
    assert client.messages[0].type == types.MessageType.Error
    for uri in ((out / "general/page.md").as_uri(), (repo / "knowledge/secret.md").as_uri()):
        text = (out / "general/page.md").read_text()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "markdown", 1, text))
        )
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(uri),
                types.Range(types.Position(0, 0), types.Position(12, 0)),
                types.CodeActionContext(diagnostics=[]),
            )
        )
        assert not actions
    # the server answered the requests after each open: any diagnostics would be here now
    assert client.diagnostics == {}
    assert all(SECRET not in m.message for m in client.messages)
    assert all(SECRET not in m.message for m in client.log_messages)
    assert fingerprint(out) == before
