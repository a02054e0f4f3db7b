"""The dedicated work clone under `state/clone/` and its day branches.

Never the user's checkout and never the installed package: a clone of the configured
knowledge repository. A day branch builds on what it was published on (its PR's head) or on
main; each batch is one commit whose trailers name the batch, the day and every source.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

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
    clone_dir: Path, source: str, base_branch: str | None, *, dry_run: bool = False
) -> WorkClone:
    """Clone or fetch, and drop what an interrupted run left uncommitted (not in a dry run,
    which keeps leftovers as they are). The day branch is the caller's (`checkout_day`)."""
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
        if base_branch is None:  # follow a renamed default branch (master -> main)
            git.refresh_remote_head(clone_dir)
    base = base_branch or git.remote_head(clone_dir)
    if git.rev_parse(clone_dir, f"origin/{base}") is None:
        raise UsageError(
            f"the knowledge repository {source} has no branch {base!r}"
            + (" (--base-branch)" if base_branch else " (its default branch, as last seen)")
            + "; pass --base-branch with the branch knowledge PRs go to"
        )
    discarded: tuple[str, ...] = ()
    if not dry_run:
        # tracked pages an interrupted apply changed, then untracked files it left (a new
        # rule page written before its commit): both would enter the next catalog and commit
        discarded = (*git.discard_changes(clone_dir), *git.clean_untracked(clone_dir, "."))
    return WorkClone(clone_dir, base, discarded)


def commit_batch(
    clone: Path,
    root: str,
    changes: Sequence[Any],
    batch_id: str,
    day: str,
    sources: Sequence[tuple[str, str]],
    titles: list[str],
) -> str:
    """Commit the pages an apply changed (`changes`: its PageChange rows) as one batch."""
    paths = sorted({f"{root}/{c.document_id}.md".lstrip("/") for c in changes})
    return git.commit_paths(clone, paths, commit_message(batch_id, day, list(sources), titles))


def checkout_day(clone: Path, branch: str, base: str, *, dry_run: bool = False) -> list[str]:
    """Check out `branch` building on `base`: kept when it already does (its own commits on
    top are unpublished batches), else started at `base`. A dry run only looks: `base`,
    detached. Returns the commits dropped (a branch that no longer builds on `base`)."""
    if dry_run:
        git.checkout(clone, base, detach=True)
        return []
    tip = git.rev_parse(clone, f"refs/heads/{branch}")
    if tip is not None and git.is_ancestor(clone, base, tip):
        git.checkout(clone, branch)
        return []
    dropped = [] if tip is None else [c.sha for c in batches_between(clone, base, tip)]
    git.reset_branch(clone, branch, base)
    return dropped


def commit_message(
    batch_id: str, day: str, sources: list[tuple[str, str]], titles: list[str]
) -> str:
    lines = [f"knowledge: {len(titles)} rule(s) from intake batch {batch_id}", ""]
    lines += [f"- {inert.plain(title)}" for title in titles]  # model-written: no live @x or #N
    lines += ["", f"{TRAILER_BATCH}{batch_id}", f"{TRAILER_DAY}{day}"]
    # a pushed commit that says owner/repo#12 leaves "referenced" on that PR: inert, and
    # read back without the zero-width space
    lines += [f"{TRAILER_SOURCE}{kind} {inert.plain(source_id)}" for kind, source_id in sources]
    return "\n".join(lines) + "\n"


def batches_between(clone_dir: Path, base: str, tip: str) -> list[CommittedBatch]:
    """The distill commits `tip` has and `base` lacks, oldest first."""
    found = git.commit_messages(clone_dir, f"{base}..{tip}", TRAILER_BATCH)
    batches = [batch for sha, message in found if (batch := parse_trailers(sha, message))]
    return batches[::-1]


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
            sources.append((kind, source_id.replace(inert.ZWSP, "")))
    return CommittedBatch(sha, batch_id, day, tuple(sources)) if batch_id and day else None
