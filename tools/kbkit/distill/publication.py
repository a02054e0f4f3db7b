"""Publication of committed day branches: shadow (default) or a reviewed PR on GitHub.

This is the only module that pushes or talks to GitHub (through `kbkit.vcs.github`). Review mode
needs POST_MODE=review and KNOWLEDGE_PR_ENABLED=true and KNOWLEDGE_FORK_SLUG; anything less
means shadow, with a one-line explanation. One `Publisher` performs every outward write.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from kbkit.infra.errors import KbkitError, UsageError
from kbkit.infra.steps import reached
from kbkit.intake.repo_identity import SLUG, slug_from_remote
from kbkit.vcs import git, github

SHADOW, REVIEW = "shadow", "review"
BODY_LIMIT = 65_536  # characters: GitHub refuses a longer PR body
REPORT_ROOM = 8_000  # the report keeps this much of an over-long body (its tables are small)
FENCE = "```"


class PublicationError(KbkitError):
    """Push or PR failed: the commits stay on the day branch, the rows stay pending."""


class DeferredError(KbkitError):
    """The automatic cadence allows one PR a day and today's was merged or closed."""


class Settings(NamedTuple):
    mode: str  # shadow or review
    explanation: str  # one line: why this mode
    fork_slug: str | None
    fork_url: str | None
    upstream_slug: str | None
    base_branch: str


class PendingCommit(NamedTuple):
    sha: str
    batch_id: str
    events: tuple[str, ...]  # "kind id" lines
    transcript: str  # the validator transcript of the batch


def settings_from_env(env: Mapping[str, str], knowledge_repo: str, base_branch: str) -> Settings:
    """Decide the mode from the environment; any missing switch means shadow."""
    mode = env.get("POST_MODE", "").strip().lower()
    enabled = env.get("KNOWLEDGE_PR_ENABLED", "").strip().lower() == "true"
    fork = env.get("KNOWLEDGE_FORK_SLUG", "").strip() or None
    upstream = env.get("KNOWLEDGE_REPO_SLUG", "").strip() or slug_from_remote(knowledge_repo)
    fork_url = env.get("KNOWLEDGE_FORK_URL", "").strip() or (
        f"https://github.com/{fork}.git" if fork else None
    )

    def shadow(why: str) -> Settings:
        return Settings(SHADOW, why, fork, fork_url, upstream, base_branch)

    if mode != REVIEW:
        return shadow("shadow mode: POST_MODE is not `review` (local commit and artifact only)")
    if not enabled:
        return shadow("shadow mode: POST_MODE=review but KNOWLEDGE_PR_ENABLED is not `true`")
    if not fork or not SLUG.match(fork):
        return shadow("shadow mode: POST_MODE=review but KNOWLEDGE_FORK_SLUG (owner/name) is unset")
    if not upstream:
        return shadow(
            "shadow mode: cannot tell the knowledge repository's owner/name; set "
            "KNOWLEDGE_REPO_SLUG"
        )
    if fork.lower() == upstream.lower():
        raise UsageError(
            f"KNOWLEDGE_FORK_SLUG is {fork}, the knowledge repository itself; the bot pushes "
            "to a fork it owns and must not hold write access upstream: fork the repository "
            "and name the fork"
        )
    why = f"review mode: PRs from {fork} to {upstream}"
    return Settings(REVIEW, why, fork, fork_url, upstream, base_branch)


def batch_heading(commit: PendingCommit) -> str:
    """The heading a body or comment gives a batch (how a rerun sees it is already there)."""
    return f"## Batch {commit.batch_id} ({commit.sha[:12]})"


def pr_body(
    day: str, commits: list[PendingCommit], follow_up_of: int | None, report: str = ""
) -> str:
    """The PR body (or comment): the batches, then `report`, within BODY_LIMIT."""
    lines = [f"Knowledge intake for {day}, distilled by `kb distill`.", ""]
    if follow_up_of:
        lines += [
            f"Follow-up of #{follow_up_of} (merged or closed): the batches below are new.",
            "",
        ]
    lines += [
        "A model proposed these rule sections; kbkit validated each one mechanically and ran "
        "the validators. Review them like any other change.",
        "",
    ]
    for commit in commits:
        lines += [batch_heading(commit), "", "Source events:"]
        lines += [f"- {event}" for event in commit.events]
        transcript = commit.transcript.strip() or "(none)"
        lines += ["", "Validator transcript:", "", FENCE, transcript, FENCE, ""]
    return fit_body("\n".join(lines) + "\n", report)


def fit_body(main: str, report: str, limit: int = BODY_LIMIT) -> str:
    """`main` then `report` within `limit` characters: the report is cut first, down to
    REPORT_ROOM; past that `main` is cut too. Each cut part ends with a note."""
    report_room = max(limit - len(main), min(len(report), REPORT_ROOM))
    report = cut_text(report, report_room, "the report")
    return cut_text(main, limit - len(report), "the batches") + report


def cut_text(text: str, limit: int, what: str) -> str:
    """`text` itself when it fits in `limit` characters; else cut at a line end, an open
    code fence closed, and a note saying what was cut."""
    if len(text) <= limit:
        return text
    note = (
        f"\n_{what.capitalize()} cut here: the PR body would pass GitHub's {BODY_LIMIT:,} "
        "characters. The batch artifacts (`state/artifacts/knowledge-intake/`) and "
        "`kb report --format markdown` have everything._\n\n"
    )
    head = text[: max(0, limit - len(note) - len(FENCE) - 1)]
    head = head[: head.rfind("\n") + 1]  # whole lines only ("" when there is no line end)
    if sum(line.startswith(FENCE) for line in head.splitlines()) % 2:
        head += FENCE + "\n"
    return head + note


class Publisher:
    """Performs every outward write of a run: push, PR create, PR comment."""

    def __init__(
        self,
        settings: Settings,
        clone: Path,
        scheduled: bool = False,
        today: str | None = None,
        report: Callable[[str], str] | None = None,
    ):
        self.settings = settings
        self.clone = clone
        self.scheduled = scheduled
        self.today = today
        self.report = report  # day -> the markdown report for the day's PR body

    def body(self, day: str, commits: list[PendingCommit], follow_up_of: int | None) -> str:
        """The day's PR body: the batches and the day's report (what a shadow run keeps)."""
        return pr_body(day, commits, follow_up_of, self.report(day) if self.report else "")

    def publish(
        self,
        branch: str,
        day: str,
        commits: list[PendingCommit],
        listed: list[PendingCommit] | None = None,
    ) -> str | None:
        """Shadow: None. Review: the URL of the PR that now carries every commit; its body
        lists `listed` (every batch on the branch; default `commits`)."""
        if self.settings.mode != REVIEW:
            return None
        s = self.settings
        assert s.fork_url and s.fork_slug and s.upstream_slug
        try:
            git.push(self.clone, s.fork_url, branch)
        except git.GitError as exc:
            raise PublicationError(f"push of {branch} to {s.fork_slug} rejected: {exc}") from exc
        reached("push")
        owner = s.fork_slug.split("/")[0]
        try:
            prs = [
                pr
                for pr in github.list_prs(s.upstream_slug, branch, self.clone)
                if _owner(pr).lower() == owner.lower()
            ]
            return self._pr_for(branch, day, commits, prs, listed or commits)
        except github.GitHubError as exc:
            raise PublicationError(str(exc)) from exc

    def _pr_for(
        self,
        branch: str,
        day: str,
        commits: list[PendingCommit],
        prs: list[dict[str, Any]],
        listed: list[PendingCommit],
    ) -> str:
        s = self.settings
        assert s.upstream_slug and s.fork_slug
        for pr in prs:  # a PR whose head already holds every commit carries them
            head = str(pr.get("headRefOid") or "")
            if pr.get("state") != "OPEN" and head and self._contains(head, commits):
                return str(pr["url"])
        open_pr = next((pr for pr in prs if pr.get("state") == "OPEN"), None)
        if open_pr is not None:
            number = int(open_pr["number"])
            texts = github.pr_texts(s.upstream_slug, number, self.clone)
            missing = [c for c in commits if not any(batch_heading(c) in t for t in texts)]
            if missing:
                # the body lists every batch on the branch (and the day's report, rebuilt);
                # the comment says what is new
                everything = listed + [c for c in commits if c not in listed]
                with _body_file(self.body(day, everything, None)) as body:
                    github.edit_pr_body(s.upstream_slug, number, body, self.clone)
                with _body_file(pr_body(day, missing, None)) as body:
                    github.comment_pr(s.upstream_slug, number, body, self.clone)
            return str(open_pr["url"])
        follow_up_of = int(prs[0]["number"]) if prs else None
        # The cadence limits today's branch (distill publishes no earlier day's branch: its
        # rows are distilled afresh today, so one scheduled day opens at most one PR).
        if follow_up_of is not None and self.scheduled and day == self.today:
            raise DeferredError(
                f"today's PR #{follow_up_of} is {str(prs[0].get('state')).lower()}; the "
                "automatic cadence opens at most one PR a day, so the new commits wait on "
                f"{branch}; run `kb distill` by hand to open a follow-up PR"
            )
        title = f"Knowledge intake {day}" + (" (follow-up)" if follow_up_of else "")
        shown = commits if follow_up_of else listed + [c for c in commits if c not in listed]
        head = f"{s.fork_slug.split('/')[0]}:{branch}"
        with _body_file(self.body(day, shown, follow_up_of)) as body:
            url = github.create_pr(s.upstream_slug, head, s.base_branch, title, body, self.clone)
        reached("pr")
        return url

    def _contains(self, head: str, commits: list[PendingCommit]) -> bool:
        if git.rev_parse(self.clone, head) is None:
            return False
        return all(git.is_ancestor(self.clone, c.sha, head) for c in commits)


@contextmanager
def _body_file(text: str) -> Iterator[Path]:
    """A temporary file for gh's --body-file, removed afterwards."""
    with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False, encoding="utf-8") as out:
        out.write(text)
    path = Path(out.name)
    try:
        yield path
    finally:
        path.unlink(missing_ok=True)


def _owner(pr: dict[str, Any]) -> str:
    owner = pr.get("headRepositoryOwner")
    return str(owner.get("login", "")) if isinstance(owner, dict) else ""
