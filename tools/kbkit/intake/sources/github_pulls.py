"""Merged pull requests from GitHub's REST `pulls` JSON, checked field by field.

Every merged PR counts (drafts and PRs no tool tracked too); closed-unmerged ones never do.
The whole input is checked before anything is recorded, so a bad page touches nothing.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from kbkit.infra.jsonl import gc_paused
from kbkit.intake.json_pages import Page, page_items
from kbkit.intake.ledger import Row, timestamp
from kbkit.intake.merged_prs import SUMMARY_CHARS, conform, latest_plausible, parse_time
from kbkit.intake.repo_identity import SLUG, RepoIdentity
from kbkit.intake.sources.base import refuse, typed_field

MAX_BODY = 65536  # GitHub's own limit on a PR body; anything longer did not come from GitHub
MAX_TITLE = 1024


class PullScan(NamedTuple):
    rows: list[Row]
    unmerged: int
    newest: dict[str, str]  # repo -> newest updated_at seen in this input


_refuse = refuse


def _field(item: dict[str, Any], field: str, kind: type, where: str, label: str) -> Any:
    return typed_field(item, field, kind, where, label, "GitHub's pulls JSON")


def _repo_of(item: dict[str, Any], where: str, label: str) -> str:
    base = item.get("base")
    repo = base.get("repo") if isinstance(base, dict) else None
    name = repo.get("full_name") if isinstance(repo, dict) else None
    if not isinstance(name, str) or not SLUG.match(name):
        _refuse(where, label, "missing `base.repo.full_name` (owner/name)")
    return name


def _watched_repo(name: str, identity: RepoIdentity, where: str, label: str) -> str:
    repo = identity.normalize(name)
    if not identity.watches(repo):
        _refuse(
            where,
            label,
            f"PR of {repo}, but the watched repository is {identity.slug}; "
            f"add --alias {repo}={identity.slug} if it was renamed",
        )
    return repo


def pr_row(
    item: dict[str, Any],
    where: str,
    label: str,
    repo: str,
    recorded_at: str,
    latest: str | None = None,
) -> Row | None:
    """The event row of one PR object of `repo`, None when it was closed without merging."""
    number = _field(item, "number", int, where, label)
    where = f"{where} (PR #{number})"
    if number < 1:
        _refuse(where, label, "`number` must be positive")
    if "merged_at" not in item:
        _refuse(where, label, "missing `merged_at`; cannot tell whether it merged")
    title = _field(item, "title", str, where, label)
    body = item.get("body") or ""
    if type(body) is not str:
        _refuse(where, label, "`body` must be a string or null")
    if len(body) > MAX_BODY or len(title) > MAX_TITLE:
        _refuse(where, label, f"body or title longer than GitHub allows ({len(body)} chars)")
    merged_at = item["merged_at"]
    if merged_at is None:
        return None
    labels = item.get("labels") or []
    if type(labels) is not list:
        _refuse(where, label, "`labels` must be a list of label objects")
    try:
        names = [str(x["name"]) for x in labels]
    except (TypeError, KeyError):
        _refuse(where, label, "`labels` must be a list of label objects with a `name`")
    user = item.get("user")
    author = user.get("login") if type(user) is dict else None
    sha = item.get("merge_commit_sha")
    return conform(
        {
            "source_kind": "merged_pr",
            "source_id": f"{repo}#{number}",
            "repo": repo,
            "number": number,
            "title": title,
            "url": str(item.get("html_url") or f"https://github.com/{repo}/pull/{number}"),
            "author": str(author or "ghost"),
            "merged_at": parse_time(merged_at, "merged_at", where, label, latest),
            "labels": names,
            "draft": item.get("draft") is True,
            "summary": body[:SUMMARY_CHARS],
            "diff_excerpt": "",
            "merge_commit": sha if type(sha) is str and sha else None,
            "via": "github",
            "recorded_at": recorded_at,
        }
    )


def parse_pulls(
    label: str, pages: list[Page], identity: RepoIdentity, *, since: str | None = None
) -> PullScan:
    """Check every PR object of the input, then return the rows of the merged ones; with
    `since`, PRs last updated before it are checked but left out (a scan's stop)."""
    rows: list[Row] = []
    unmerged = 0
    newest: dict[str, str] = {}
    repos: dict[str, str] = {}  # base.repo.full_name -> watched spelling, checked once
    recorded_at = timestamp()
    latest = latest_plausible()
    with gc_paused():
        for where, item in page_items(label, pages, "pull request"):
            name = _repo_of(item, where, label)
            repo = repos.get(name) or repos.setdefault(
                name, _watched_repo(name, identity, where, label)
            )
            row = pr_row(item, where, label, repo, recorded_at, latest)
            updated = item.get("updated_at")
            if updated is not None:
                updated = parse_time(
                    updated, "updated_at", f"{where} (PR #{item['number']})", label, latest
                )
                if since is not None and updated < since:
                    continue  # before where this scan stops: read, not recorded
                if updated > newest.get(repo, ""):
                    newest[repo] = updated
            if row is None:
                unmerged += 1
            else:
                rows.append(row)
    return PullScan(rows, unmerged, newest)
