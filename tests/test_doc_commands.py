"""Every command shown in the README and the docs runs (#42).

The fast tests hold the pages to the convention of tests/doc_blocks.py: commands stand in
```sh blocks, and a block a test cannot run says why. The slow test runs each page's
blocks, in order, in a new git repository, from a reader's shell: a fresh HOME, no
virtual environment, and the kb of this checkout on PATH (README.md, which installs kbkit
itself, runs in tests/test_e2e_adoption.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.doc_blocks import (
    PROJECT,
    blocks,
    disguised,
    new_repository,
    pages,
    plain_env,
    run,
    script,
    shell_blocks,
)

# Pages whose blocks another test runs, and which.
RUN_ELSEWHERE = {"README.md": "tests/test_e2e_adoption.py"}


def runnable_pages() -> list[str]:
    return [
        path.relative_to(PROJECT).as_posix()
        for path in pages()
        if path.relative_to(PROJECT).as_posix() not in RUN_ELSEWHERE
        and any(block.skip is None for block in shell_blocks(path))
    ]


def test_the_pages_show_commands_to_run() -> None:
    shown = [block for path in pages() for block in shell_blocks(path)]
    assert len(shown) >= 8
    assert {"README.md", "docs/getting-started.md"} <= {block.page for block in shown}
    assert "docs/getting-started.md" in runnable_pages()


def test_no_command_hides_in_an_untagged_fence() -> None:
    hidden = [f"{b.page}:{b.line}" for path in pages() for b in blocks(path) if disguised(b)]
    assert hidden == [], "write commands in ```sh blocks (or mark them, tests/doc_blocks.py)"


def test_every_skipped_block_says_why() -> None:
    for path in pages():
        for block in shell_blocks(path):
            assert block.skip is None or len(block.skip.split()) >= 3, block


def test_a_skip_marker_is_read(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# x\n\n<!-- doc-test: skip: needs GitHub and a token -->\n\n```sh\nkb distill\n```\n"
        "\n```sh\nkb check\n```\n\n```\nkb rules\n```\n"
    )
    sh = [block for block in blocks(page) if block.info == "sh"]
    assert [block.skip for block in sh] == ["needs GitHub and a token", None]
    assert disguised(blocks(page)[-1])
    assert script(sh).splitlines()[-1] == "kb check"


@pytest.mark.slow
@pytest.mark.parametrize("page", runnable_pages())
def test_the_commands_of_a_page_run(page: str, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    kb = bin_dir / "kb"  # this checkout's kb, as an installed one would run it
    kb.write_text(
        f'#!/bin/sh\nPYTHONPATH="{PROJECT / "tools"}" exec "{sys.executable}" -m kbkit "$@"\n'
    )
    kb.chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    env = plain_env(home, bin_dir)
    repo = new_repository(tmp_path / "our-service", env)
    done = run(script(shell_blocks(PROJECT / page)), repo, env)
    assert done.returncode == 0, f"{page}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
