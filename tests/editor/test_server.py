"""`kb lsp` end to end: a real LSP client (pytest-lsp) drives the server over stdio."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.kbtree import make_tree, page_text

pytestmark = pytest.mark.slow  # make test-all: a real LSP client drives `kb lsp`

PAGES = {
    "api": "See [the setup](setup.md#install).",
    "setup": "## Install\n\nRun it.",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_tree(tmp_path / "team", PAGES, policy="links:\n  anchors: true\n")


def _uri(repo: Path, name: str) -> str:
    return (repo / "knowledge/general" / name).as_uri()


async def _open(client: LanguageClient, repo: Path, name: str, text: str | None = None) -> str:
    uri = _uri(repo, name)
    text = text if text is not None else (repo / "knowledge/general" / name).read_text()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "markdown", 1, text))
    )
    await _diagnostics_of(client, uri)
    return uri


async def _diagnostics_of(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    """Wait for the next diagnostics of `uri`."""
    for _ in range(50):
        client.diagnostics.pop(uri, None)
        await asyncio.wait_for(
            client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), 20
        )
        if uri in client.diagnostics:
            return list(client.diagnostics[uri])
    raise AssertionError(f"no diagnostics for {uri}")


def _change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version, uri),
            [types.TextDocumentContentChangeWholeDocument(text)],
        )
    )


def _codes(diagnostics: Sequence[types.Diagnostic]) -> list[tuple[str, int, int]]:
    return [(str(d.code), d.range.start.line, d.range.start.character) for d in diagnostics]


@pytest.mark.asyncio
async def test_open_and_change_publish_the_pages_findings(client: LanguageClient, repo: Path):
    uri = await _open(client, repo, "api.md")
    assert list(client.diagnostics[uri]) == []
    text = (repo / "knowledge/general/api.md").read_text()
    _change(client, uri, 2, text + "\nSee [gone](gone.md) and 10.20.30.40 too.\n")
    found = await _diagnostics_of(client, uri)
    assert _codes(found) == [("tree/link-broken", 13, 11), ("tree/secret-ip", 13, 24)]
    broken = found[0]
    assert broken.severity == types.DiagnosticSeverity.Error and broken.source == "kbkit"
    assert "broken link 'gone.md'" in broken.message
    _change(client, uri, 3, text)  # fixed in the buffer, never saved
    assert await _diagnostics_of(client, uri) == []


@pytest.mark.asyncio
async def test_cross_page_findings_follow_an_edit_of_another_page(
    client: LanguageClient, repo: Path
):
    api = await _open(client, repo, "api.md")
    setup = await _open(client, repo, "setup.md")
    text = (repo / "knowledge/general/setup.md").read_text()
    _change(client, setup, 2, text.replace("## Install", "## Installation"))
    await _diagnostics_of(client, setup)
    # api.md's link to #install is broken now: its diagnostics come with the refresh
    found = await _diagnostics_of(client, api)
    assert _codes(found) == [("tree/link-anchor", 11, 16)]
    _change(client, setup, 3, text)
    await _diagnostics_of(client, setup)
    assert await _diagnostics_of(client, api) == []


@pytest.mark.asyncio
async def test_hover_shows_the_rule_and_a_code_action_fixes(client: LanguageClient, repo: Path):
    text = page_text("Api", "Words.").replace('title: "Api"', "title: Api")
    uri = await _open(client, repo, "api.md", text)
    assert ("lint/title-unquoted", 1, 0) in _codes(client.diagnostics[uri])
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(1, 2))
    )
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    assert "**lint/title-unquoted** (error)" in hover.contents.value
    assert "kb-disable-next-line lint/title-unquoted" in hover.contents.value
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri),
            types.Range(types.Position(1, 0), types.Position(1, 0)),
            types.CodeActionContext(diagnostics=[]),
        )
    )
    assert actions is not None and len(actions) == 1
    action = actions[0]
    assert isinstance(action, types.CodeAction) and action.edit and action.edit.changes
    (edit,) = action.edit.changes[uri]
    assert edit.new_text == 'title: "Api"\n'
    assert (edit.range.start.line, edit.range.end.line) == (1, 2)


@pytest.mark.asyncio
async def test_a_saved_new_page_joins_the_tree(client: LanguageClient, repo: Path):
    path = repo / "knowledge/general/new.md"
    path.write_text(page_text("New", "Text."))
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri, "markdown", 1, path.read_text())
        )
    )
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri))
    )
    found = await _diagnostics_of(client, uri)
    assert sorted(str(d.code) for d in found) == ["lint/orphan", "tree/page-unregistered"]
