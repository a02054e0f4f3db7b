"""The dedicated work clone under `state/clone/` and its day branches.

Never the user's checkout and never the installed package: a clone of the configured
knowledge repository. Same-day runs build on the day branch; it is never reset.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import NamedTuple

from kbkit.infra import inert
from kbkit.infra.errors import UsageError
from kbkit.infra.state_folder import make_state_folder
from kbkit.vcs import git

BRANCH_PREFIX = "knowledge/intake-"
TRAILER_BATCH = "Kbkit-Batch: "
TRAILER_DAY = "Kbkit-Day: "
TRAILER_SOURCE = "Kbkit-Source: "


class WorkClone(NamedTuple):
    path: Path
    branch: str
    base_branch: str
    discarded: tuple[str, ...]  # uncommitted leftovers of an interrupted run


class CommittedBatch(NamedTuple):
    sha: str
    batch_id: str
    day: str
    sources: tuple[tuple[str, str], ...]  # (source_kind, source_id)


def day_branch(day: str) -> str:
    return f"{BRANCH_PREFIX}{day}"


def _source_url(source: str) -> str:
    path = Path(source)
    return str(path.absolute()) if "://" not in source and path.exists() else source


def prepare(
    clone_dir: Path,
    source: str,
    day: str,
    base_branch: str | None,
    *,
    dry_run: bool = False,
    seed_url: str | None = None,
) -> WorkClone:
    """Clone or fetch, drop uncommitted leftovers, and check out the day branch.

    A missing day branch starts from the fork's copy when `seed_url` (review mode) has one,
    so a wiped work clone still builds on what was published; else from the base branch.
    A dry run creates no day branch (it looks at the base) and keeps leftovers as they are.
    """
    url = _source_url(source)
    for stale in clone_dir.parent.glob(f"{clone_dir.name}.partial-*"):
        shutil.rmtree(stale, ignore_errors=True)  # a clone killed half way
    if not (clone_dir / ".git").is_dir():
        if clone_dir.exists():
            raise UsageError(f"{clone_dir}: exists but is not a git clone; remove it and rerun")
        # state/ never shows up in the checkout that holds it
        make_state_folder(clone_dir.parent, "kb distill's work clone and batch artifacts")
        partial = clone_dir.with_name(f"{clone_dir.name}.partial-{os.getpid()}")
        git.clone(url, partial)
        os.replace(partial, clone_dir)  # a killed clone never leaves a half clone in place
    else:
        origin = git.remote_url(clone_dir)
        if origin != url:
            raise UsageError(
                f"{clone_dir}: cloned from {origin}, but the knowledge repository is {url}; "
                "remove the work clone (nothing unpublished is lost: rerun republishes) or "
                "pass the same --knowledge-repo"
            )
        # The caller holds the distill lock, so no git of ours runs here: an index lock
        # is what a crash mid-commit left behind, and would block every later run.
        (clone_dir / ".git" / "index.lock").unlink(missing_ok=True)
        git.fetch(clone_dir)
    base = base_branch or git.remote_head(clone_dir)
    discarded = () if dry_run else tuple(git.discard_changes(clone_dir))
    branch = day_branch(day)
    if git.rev_parse(clone_dir, f"refs/heads/{branch}"):
        git.checkout(clone_dir, branch)
    elif dry_run:
        git.checkout(clone_dir, f"origin/{base}", detach=True)
    elif seed_url and git.fetch_branch(clone_dir, seed_url, branch):
        git.checkout(clone_dir, branch, "FETCH_HEAD")
    else:
        git.checkout(clone_dir, branch, f"origin/{base}")
    return WorkClone(clone_dir, branch, base, discarded)


def commit_message(
    batch_id: str, day: str, sources: list[tuple[str, str]], titles: list[str]
) -> str:
    lines = [f"knowledge: {len(titles)} rule(s) from intake batch {batch_id}", ""]
    lines += [f"- {inert.plain(title)}" for title in titles]  # model-written: no live @x or #N
    lines += ["", f"{TRAILER_BATCH}{batch_id}", f"{TRAILER_DAY}{day}"]
    lines += [f"{TRAILER_SOURCE}{kind} {source_id}" for kind, source_id in sources]
    return "\n".join(lines) + "\n"


def committed_batches(clone_dir: Path) -> list[CommittedBatch]:
    """Every distill commit on any local day branch (parsed from its trailers), oldest first."""
    if not git.local_branches(clone_dir, f"{BRANCH_PREFIX}*"):
        return []
    # one history walk over every day branch at once: git lists each commit once
    found = git.commit_messages(clone_dir, f"--branches={BRANCH_PREFIX}*", TRAILER_BATCH)
    batches = [batch for sha, message in found if (batch := parse_trailers(sha, message))]
    return sorted(batches, key=lambda c: c.batch_id)


def parse_trailers(sha: str, message: str) -> CommittedBatch | None:
    """The batch a distill commit message describes, or None for any other commit."""
    batch_id = day = ""
    sources: list[tuple[str, str]] = []
    for line in message.splitlines():
        if line.startswith(TRAILER_BATCH):
            batch_id = line[len(TRAILER_BATCH) :].strip()
        elif line.startswith(TRAILER_DAY):
            day = line[len(TRAILER_DAY) :].strip()
        elif line.startswith(TRAILER_SOURCE):
            kind, _, source_id = line[len(TRAILER_SOURCE) :].strip().partition(" ")
            sources.append((kind, source_id))
    return CommittedBatch(sha, batch_id, day, tuple(sources)) if batch_id and day else None
