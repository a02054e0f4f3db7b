"""Merged pull requests read from a local git history, which works offline.

On the first-parent line of a branch, a merge commit "Merge pull request #N from ..." or a
squash merge "Title (#N)" is one merged PR; its diff against the first parent becomes the
row's `diff_excerpt`.
"""

from __future__ import annotations

import re
from collections.abc import Container
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from kbkit.infra.errors import UsageError
from kbkit.intake.diff_excerpt import build_excerpt
from kbkit.intake.ledger import Row, same_source, timestamp
from kbkit.intake.merged_prs import SUMMARY_CHARS, conform
from kbkit.intake.repo_identity import parse_slug
from kbkit.vcs import git

# A PR number is positive (GitHub's are; `(#0)` is not a merged PR, and no row says so).
MERGE_SUBJECT = re.compile(r"^Merge pull request #([1-9]\d*) from (\S+)")
SQUASH_SUBJECT = re.compile(r"^(.*\S)\s+\(#([1-9]\d*)\)$")
_FORMAT = "%H%x1f%P%x1f%an%x1f%cI%x1f%B"
NAME = "git"
VIA = "git"
KIND = "merged_pr"


class MergedCommit(NamedTuple):
    sha: str
    parents: list[str]
    number: int
    title: str
    author: str
    merged_at: str
    summary: str


def repo_id(text: str) -> str | None:
    """The GitHub `owner/name` whose PR numbers the merge subjects carry (see `parse_slug`)."""
    return parse_slug(text)


def change_id(repo: str, key: str) -> str:
    """The merged PR `key` of `repo`, as GitHub would name it: `owner/name#N`."""
    return f"{repo}#{key}"


def parse_commit(record: str) -> MergedCommit | None:
    """One `git log -z` record, or None when the commit is not a merged PR."""
    fields = record.split("\x1f", 4)
    if len(fields) != 5:
        return None
    sha, parents, author, committed, message = fields
    lines = message.strip("\n").splitlines()
    subject = lines[0].strip() if lines else ""
    rest = [line for line in lines[1:]]
    moment = timestamp(datetime.fromisoformat(committed.strip()))
    merge = MERGE_SUBJECT.match(subject)
    if merge and len(parents.split()) >= 2:
        body = "\n".join(rest).strip("\n").splitlines()
        title = body[0].strip() if body and body[0].strip() else subject
        summary = "\n".join(body[1:]).strip()
        return MergedCommit(
            sha,
            parents.split(),
            int(merge.group(1)),
            title,
            author,
            moment,
            summary[:SUMMARY_CHARS],
        )
    squash = SQUASH_SUBJECT.match(subject)
    if squash:
        summary = "\n".join(rest).strip()
        return MergedCommit(
            sha,
            parents.split(),
            int(squash.group(2)),
            squash.group(1),
            author,
            moment,
            summary[:SUMMARY_CHARS],
        )
    return None


def merged_commits(repo: Path, branch: str) -> list[MergedCommit]:
    """Every merged PR on the first-parent history of `branch`, oldest first."""
    if not git.is_repository(repo):
        raise UsageError(f"{repo}: not a git repository; pass --git (or --repo) a clone")
    if not git.run_git(
        repo, "rev-parse", "--verify", "--quiet", f"{branch}^{{commit}}", check=False
    ).strip():
        raise UsageError(f"{repo}: no branch or commit {branch!r}; pass --branch NAME")
    out = git.run_git(
        repo, "log", "-z", "--first-parent", "--reverse", f"--format={_FORMAT}", branch, "--"
    )
    found = (parse_commit(record.lstrip("\n")) for record in out.split("\x00") if record)
    return [commit for commit in found if commit is not None]


def commit_diff(repo: Path, commit: MergedCommit) -> str:
    """What the PR brought to the branch: the diff against the first parent."""
    if commit.parents:
        return git.run_git(
            repo, "diff", "--no-color", "--no-ext-diff", commit.parents[0], commit.sha, "--"
        )
    return git.run_git(repo, "diff-tree", "-p", "--root", "--no-color", commit.sha, "--")


class GitScan(NamedTuple):
    rows: list[Row]
    already: int  # merged PRs of the branch that were recorded before


def git_rows(repo: Path, branch: str, slug: str, known: Container[tuple[str, str]]) -> GitScan:
    """Rows for the merged PRs not recorded yet (only those pay for a diff); `known` holds
    what `ledger.known_sources` makes of the recorded events."""
    recorded_at = timestamp()
    rows: list[Row] = []
    seen: set[str] = set()
    already = 0
    for commit in merged_commits(repo, branch):
        source_id = change_id(slug, str(commit.number))
        if same_source("merged_pr", source_id) in known:
            already += 1
            continue
        if source_id in seen:
            continue
        seen.add(source_id)
        rows.append(
            conform(
                {
                    "source_kind": "merged_pr",
                    "source_id": source_id,
                    "repo": slug,
                    "number": commit.number,
                    "title": commit.title,
                    "url": f"https://github.com/{slug}/pull/{commit.number}",
                    "author": commit.author,
                    "merged_at": commit.merged_at,
                    "labels": [],
                    "draft": False,
                    "summary": commit.summary,
                    "diff_excerpt": build_excerpt(commit_diff(repo, commit)),
                    "merge_commit": commit.sha,
                    "via": "git",
                    "recorded_at": recorded_at,
                }
            )
        )
    return GitScan(rows, already)
