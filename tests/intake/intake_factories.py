"""Factories for intake tests: GitHub-shaped PR objects, `gh api --paginate` pages on disk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SLUG = "kbkit-dev/kbkit"


def make_pr(
    number: int,
    *,
    merged: bool = True,
    draft: bool = False,
    updated_at: str = "2026-11-29T10:00:00Z",
    repo: str = SLUG,
    body: str | None = "Fix a validator edge case.",
) -> dict[str, Any]:
    """A PR object with the fields GitHub's REST pulls API returns (trimmed)."""
    return {
        "number": number,
        "title": f"Validators: fix edge case {number}",
        "html_url": f"https://github.com/{repo}/pull/{number}",
        "state": "closed",
        "user": {"login": f"dev{number % 7}"},
        "body": body,
        "created_at": "2026-11-01T00:00:00Z",
        "updated_at": updated_at,
        "merged_at": updated_at if merged else None,
        "merge_commit_sha": f"{number:040x}" if merged else None,
        "labels": [{"name": "bug"}],
        "draft": draft,
        "base": {"ref": "main", "repo": {"full_name": repo}},
    }


def write_pages(path: Path, pages: list[list[dict[str, Any]]]) -> Path:
    """Concatenated pages, the way `gh api --paginate` prints them."""
    path.write_text("".join(json.dumps(page, indent=1) + "\n" for page in pages))
    return path
