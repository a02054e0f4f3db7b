"""A small knowledge tree that passes both validators, for command tests: `kb init`'s own
starting tree plus pages written with valid frontmatter and registered in their index."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

DAY = "2026-11-30"  # KBKIT_NOW's date in the tests (tests/conftest.py)


def page_text(title: str, body: str, *, kind: str = "guide", updated: str = DAY) -> str:
    return (
        f'---\ntitle: "{title}"\ncreated: {DAY}\nupdated: {updated}\ntype: {kind}\n'
        f"tags: [general]\nsources: []\n---\n\n# {title}\n\n{body}\n"
    )


def make_tree(repo: Path, pages: dict[str, str] | None = None, policy: str = "") -> Path:
    """`kb init` in `repo`, then each `general/NAME.md` page (name -> body) written and
    linked from `general/_index.md`; `policy` is appended to the policy file."""
    repo.mkdir(parents=True, exist_ok=True)
    kb(repo, "init", "--local-hook", "--repo", str(repo))
    if policy:
        with (repo / "knowledge/policy.yaml").open("a") as handle:
            handle.write(policy)
    index = repo / "knowledge/general/_index.md"
    rows = []
    for name, body in (pages or {}).items():
        (repo / "knowledge/general" / f"{name}.md").write_text(page_text(name.title(), body))
        rows.append(f"- [{name}]({name}.md)")
    if rows:
        index.write_text(index.read_text() + "\n" + "\n".join(rows) + "\n")
    return repo


def kb(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -m kbkit ARGS` in `cwd`, as a user runs `kb` (a real process)."""
    return subprocess.run(
        [sys.executable, "-m", "kbkit", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1", **(env or {})},
    )
