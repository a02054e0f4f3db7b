"""The shell blocks of the documentation, and how the doc-tests run them.

A ```sh block is a command a reader runs, and a test runs it too. A block that needs
something a test cannot have (GitHub, a model, kbkit's own checkout) says so on the line
before it: `<!-- doc-test: skip: REASON -->`; the comment is invisible on the site and on
GitHub. Fences without a language that hold commands are not allowed: they would escape.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import NamedTuple

PROJECT = Path(__file__).resolve().parents[1]
# Where kbkit is cloned from in the docs; the tests clone this checkout instead.
FORGE_URL = "https://github.com/kbkit-dev/kbkit"
SKIP = re.compile(r"^\s*<!-- doc-test: skip: (?P<reason>\S.*?) -->\s*$")
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>[^`\n]*)$")
# first words that make an untagged fence a shell block in disguise
COMMAND_WORDS = ("kb ", "make ", "git ", "pip ", "pipx ", "pre-commit ", "python ", "python3 ")


class Block(NamedTuple):
    page: str  # repo-relative
    line: int  # 1-based line of the opening fence
    info: str  # the fence's language ("sh", "" ...)
    text: str  # the block's lines, without the fences or their indent
    skip: str | None  # the reason, when the block is marked to skip


def pages() -> list[Path]:
    """Every page a reader sees: the README, CONTRIBUTING and docs/ (the generated reference
    shows examples, not commands to run, and is held equal to the code by other tests)."""
    docs = sorted(p for p in (PROJECT / "docs").rglob("*.md") if "reference" not in p.parts)
    return [PROJECT / "README.md", PROJECT / "CONTRIBUTING.md", *docs]


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of one page, with the skip reason written above each."""
    found: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent, fence = opening["indent"], opening["fence"]
        end = index + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            end += 1
        body = [line[len(indent) :] for line in lines[index + 1 : end]]
        above = next((lines[i] for i in range(index - 1, -1, -1) if lines[i].strip()), "")
        marker = SKIP.match(above)
        found.append(
            Block(
                page=_name(path),
                line=index + 1,
                info=opening["info"].strip(),
                text="\n".join(body) + "\n",
                skip=marker["reason"] if marker else None,
            )
        )
        index = end + 1
    return found


def _name(path: Path) -> str:
    return path.relative_to(PROJECT).as_posix() if path.is_relative_to(PROJECT) else path.name


def shell_blocks(path: Path) -> list[Block]:
    return [block for block in blocks(path) if block.info in ("sh", "bash", "console")]


def disguised(block: Block) -> bool:
    """An untagged fence whose first line is a command."""
    first = block.text.lstrip().splitlines()[0] if block.text.strip() else ""
    return block.info == "" and first.startswith(COMMAND_WORDS)


def script(block_list: list[Block], clone_from: Path = PROJECT) -> str:
    """One bash script of the runnable blocks, in page order, failing at the first error,
    with kbkit cloned from `clone_from` instead of the forge."""
    parts = ["set -euo pipefail"]
    for block in block_list:
        if block.skip is None:
            parts.append(f"# {block.page}:{block.line}")
            parts.append(block.text.rstrip("\n").replace(FORGE_URL, str(clone_from)))
    return "\n".join(parts) + "\n"


def plain_env(home: Path, *extra_path: Path) -> dict[str, str]:
    """A reader's shell: a fresh HOME, no virtual environment, no kbkit on PATH but what
    `extra_path` adds; git and python3 from the system."""
    keep = ("LANG", "LC_ALL", "TERM", "TMPDIR", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL")
    env = {name: os.environ[name] for name in keep if name in os.environ}
    system = [part for part in os.environ.get("PATH", "").split(os.pathsep) if part]
    system = [part for part in system if not part.startswith(str(PROJECT)) and ".venv" not in part]
    env.update(
        HOME=str(home),
        PATH=os.pathsep.join([*(str(p) for p in extra_path), *system]),
        PRE_COMMIT_HOME=str(home / ".cache" / "pre-commit"),
        GIT_AUTHOR_NAME="Doc Reader",
        GIT_AUTHOR_EMAIL="reader@example.com",
        GIT_COMMITTER_NAME="Doc Reader",
        GIT_COMMITTER_EMAIL="reader@example.com",
        KBKIT_NOW="2026-11-30T12:00:00Z",
    )
    return env


def new_repository(path: Path, env: dict[str, str]) -> Path:
    """A reader's own repository: one commit of a README."""
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True, env=env)
    (path / "README.md").write_text("# Our service\n\nWhat it does.\n")
    subprocess.run(["git", "add", "README.md"], cwd=path, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "start"], cwd=path, check=True, env=env)
    return path


def run(script_text: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", script_text], cwd=cwd, env=env, capture_output=True, text=True,
        timeout=900,
    )  # fmt: skip
