"""The one LSP client of the editor tests: pytest-lsp starts the real `kb lsp` over stdio
and opens a session on the test module's `repo` fixture (its workspace folder)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

ANSWER_S = 10  # far more than `shutdown` takes; a blocked server never answers


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "kbkit", "lsp", "--stdio"])
)
async def client(lsp_client: LanguageClient, repo: Path):
    params = types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        root_uri=repo.as_uri(),
        workspace_folders=[types.WorkspaceFolder(repo.as_uri(), "team")],
    )
    await lsp_client.initialize_session(params)
    yield
    try:
        await asyncio.wait_for(lsp_client.shutdown_session(), ANSWER_S)
    except TimeoutError:
        server = lsp_client._server
        if server is not None:
            server.kill()  # a blocked server: the test fails, the run never hangs
        raise
