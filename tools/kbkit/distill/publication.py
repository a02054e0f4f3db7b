"""Publication settings and every outward write: shadow (default) or reviewed PRs on GitHub.

This is the only module of distill that pushes or talks to GitHub (through `kbkit.vcs.git`
and `kbkit.vcs.github`). Review mode needs KBKIT_POST_MODE=review and
KBKIT_KNOWLEDGE_PR_ENABLED=true and KBKIT_KNOWLEDGE_FORK_SLUG; anything less means shadow,
with a one-line explanation. One
`Publisher` performs every outward write: pushes to the fork (the bot's own branches,
replaced with a lease on what was read), PR creation, body edits, comments, closing.

A failure GitHub or the fork reports (a rejected push, a refused PR) is a `PublicationError`:
a failed attempt for the batch's rows. A missing or hanging `gh` or `git`, GitHub's rate
limit or a server error is the environment's (exit 4), and refused credentials are
configuration (exit 2): those pass through untouched and no attempt is counted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from kbkit.infra import settings
from kbkit.infra.errors import KbkitError, UsageError
from kbkit.intake.repo_identity import SLUG, slug_from_remote
from kbkit.vcs import git, github

SHADOW, REVIEW = "shadow", "review"
FORK_REFS = "refs/kbkit/fork/"  # where the work clone keeps the fork's knowledge branches


class PublicationError(KbkitError):
    """Push or PR failed: the commits stay on the day branch, the rows stay pending."""


class RaceLost(PublicationError):
    """Another kbkit run (another repository's workflow on the same cron) pushed the day's
    branch first: no attempt is counted; the run reads the PRs again and retries."""


class Settings(NamedTuple):
    mode: str  # shadow or review
    explanation: str  # one line: why this mode
    fork_slug: str | None
    fork_url: str | None
    upstream_slug: str | None
    base_branch: str


def settings_from_env(env: Mapping[str, str], knowledge_repo: str, base_branch: str) -> Settings:
    """Decide the mode from the environment (`env`: the process environment, or a stand-in); any missing
    switch means shadow. Each variable is read through `kbkit.infra.settings`, so its old
    name (POST_MODE, KBKIT_KNOWLEDGE_PR_ENABLED, ...) still works, with a note."""

    def read(name: str) -> str:
        return (settings.value(name, env) or "").strip()

    mode = read("KBKIT_POST_MODE").lower()
    enabled = read("KBKIT_KNOWLEDGE_PR_ENABLED").lower() == "true"
    fork = read("KBKIT_KNOWLEDGE_FORK_SLUG") or None
    upstream = read("KBKIT_KNOWLEDGE_REPO_SLUG") or slug_from_remote(knowledge_repo)
    fork_url = read("KBKIT_KNOWLEDGE_FORK_URL") or (
        f"https://{github.host()}/{fork}.git" if fork else None
    )

    def shadow(why: str) -> Settings:
        return Settings(SHADOW, why, fork, fork_url, upstream, base_branch)

    if mode != REVIEW:
        return shadow(
            "shadow mode: KBKIT_POST_MODE is not `review` (local commit and artifact only)"
        )
    if not enabled:
        return shadow(
            "shadow mode: KBKIT_POST_MODE=review but KBKIT_KNOWLEDGE_PR_ENABLED is not `true`"
        )
    if not fork or not SLUG.match(fork):
        return shadow(
            "shadow mode: KBKIT_POST_MODE=review but KBKIT_KNOWLEDGE_FORK_SLUG (owner/name) "
            "is unset"
        )
    if not upstream:
        return shadow(
            "shadow mode: cannot tell the knowledge repository's owner/name; set "
            "KBKIT_KNOWLEDGE_REPO_SLUG"
        )
    if fork.lower() == upstream.lower():
        raise UsageError(
            f"KBKIT_KNOWLEDGE_FORK_SLUG is {fork}, the knowledge repository itself; the bot pushes "
            "to a fork it owns and must not hold write access upstream: fork the repository "
            "and name the fork"
        )
    why = f"review mode: PRs from {fork} to {upstream}"
    return Settings(REVIEW, why, fork, fork_url, upstream, base_branch)


class Publisher:
    """Every outward write of a run, and the reads of the fork it needs."""

    def __init__(self, settings: Settings, clone: Path):
        assert settings.mode == REVIEW and settings.fork_url and settings.fork_slug
        assert settings.upstream_slug
        self.settings = settings
        self.clone = clone
        self.upstream: str = settings.upstream_slug
        self.fork_url: str = settings.fork_url
        self.fork_owner = settings.fork_slug.split("/")[0]

    def fork_heads(self, pattern: str, wanted: Callable[[str], bool]) -> dict[str, str]:
        """The fork's branches matching `pattern`: name -> commit; those `wanted` (the open
        PRs' and today's) are fetched into FORK_REFS, the rest only listed."""
        with _outward():
            heads = git.remote_heads(self.clone, self.fork_url, pattern)
            fetch = sorted(name for name in heads if wanted(name))
            git.fetch_refs(
                self.clone, self.fork_url, [f"+refs/heads/{n}:{FORK_REFS}{n}" for n in fetch]
            )
        return {name: heads[name] for name in fetch}

    def push(self, branch: str, rev: str, expect: str | None) -> None:
        """`rev` to the fork's `branch`, replacing only `expect` (None: a new branch); a
        lease another writer broke is RaceLost."""
        try:
            with _outward():
                git.push_lease(self.clone, self.fork_url, rev, branch, expect)
        except PublicationError:
            self.still_at(branch, expect)
            raise

    def still_at(self, branch: str, expect: str | None) -> None:
        """Raise RaceLost when the fork's `branch` is no longer at `expect` (None: absent)."""
        with _outward():
            now = git.remote_heads(self.clone, self.fork_url, branch).get(branch)
        if now != expect:
            was = expect[:12] if expect else "absent"
            raise RaceLost(
                f"another run pushed {branch} first (it is at {now[:12] if now else 'nothing'}, "
                f"this run read {was})"
            )

    def create(self, branch: str, title: str, body: str) -> github.Pull:
        head = f"{self.fork_owner}:{branch}"
        base = self.settings.base_branch
        with _outward():
            return github.create_pull(
                self.upstream, self.clone, head=head, base=base, title=title, body=body
            )

    def edit_body(self, number: int, body: str) -> None:
        with _outward():
            github.update_pull(self.upstream, number, self.clone, body=body)

    def comment(self, number: int, text: str) -> None:
        with _outward():
            github.comment_issue(self.upstream, number, text, self.clone)

    def close(self, number: int, body: str) -> None:
        with _outward():
            github.update_pull(self.upstream, number, self.clone, body=body, state="closed")


@contextmanager
def _outward() -> Iterator[None]:
    """A failure the remote reports becomes a PublicationError (a failed attempt); the
    environment's (exit 4) and configuration's (exit 2) pass through as they are."""
    try:
        yield
    except (git.GitError, github.GitHubError) as exc:
        if exc.exit_code != 1:
            raise
        raise PublicationError(str(exc)) from exc
