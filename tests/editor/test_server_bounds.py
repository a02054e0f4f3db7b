"""`kb lsp` stays responsive whatever a client sends: a range to line 2^31-1, the closing of a
FIFO page's buffer. A real LSP client (pytest-lsp) drives the real server over stdio; each
request must be answered, and `shutdown` too, within a generous timeout (a blocked server
fails the test instead of hanging it)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.editor.conftest import ANSWER_S  # a blocked server never answers
from tests.kbtree import make_tree, page_text

LAST_LINE = 2**31 - 1


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = make_tree(tmp_path / "team", {"api": "Words."})
    os.mkfifo(repo / "knowledge/general/pipe.md")  # a page in the tree nobody writes to
    return repo


async def _diagnostics_of(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    for _ in range(50):
        client.diagnostics.pop(uri, None)
        await asyncio.wait_for(
            client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), 20
        )
        if uri in client.diagnostics:
            return list(client.diagnostics[uri])
    raise AssertionError(f"no diagnostics for {uri}")


async def _open(client: LanguageClient, uri: str, text: str) -> list[types.Diagnostic]:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "markdown", 1, text))
    )
    return await _diagnostics_of(client, uri)


@pytest.mark.asyncio
async def test_a_code_action_to_line_2_31_is_answered_and_so_is_shutdown(
    client: LanguageClient, repo: Path
):
    """The server stepped through every line of the asked range: one million lines took
    91 s, this range about 54 hours, and `shutdown` waited behind it."""
    uri = (repo / "knowledge/general/api.md").as_uri()
    text = page_text("Api", "Words.").replace('title: "Api"', "title: Api")
    found = await _open(client, uri, text)
    assert ("lint/title-unquoted", 1) in [(str(d.code), d.range.start.line) for d in found]
    everything = types.Range(types.Position(0, 0), types.Position(LAST_LINE, 0))
    actions = await asyncio.wait_for(
        client.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(uri),
                everything,
                types.CodeActionContext(diagnostics=[]),
            )
        ),
        ANSWER_S,
    )
    assert actions is not None
    assert [a.title for a in actions if isinstance(a, types.CodeAction)] == [
        "kbkit: fix lint/title-unquoted"
    ]
    # a range past the page's end keeps nothing beyond it, and a range after it finds none
    after = types.Range(types.Position(LAST_LINE - 1, 0), types.Position(LAST_LINE, 0))
    none = await asyncio.wait_for(
        client.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(uri), after, types.CodeActionContext(diagnostics=[])
            )
        ),
        ANSWER_S,
    )
    assert not none


@pytest.mark.asyncio
async def test_closing_the_buffer_of_a_fifo_page_does_not_block_the_server(
    client: LanguageClient, repo: Path
):
    """On close the server goes back to the page's text on disk: reading a FIFO there
    waited for a writer forever, and every later request with it."""
    pipe = (repo / "knowledge/general/pipe.md").as_uri()
    await _open(client, pipe, page_text("Pipe", "Typed in the editor."))
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(pipe))
    )
    api = (repo / "knowledge/general/api.md").as_uri()
    hover = await asyncio.wait_for(
        client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(api), types.Position(0, 0))
        ),
        ANSWER_S,
    )
    assert hover is None  # answered: api.md has no finding on its first line
    found = await asyncio.wait_for(
        _open(client, api, (repo / "knowledge/general/api.md").read_text()), ANSWER_S
    )
    assert found == []
