"""`kb intake sync`: bring the intake ledgers in from the bot's state branch, or put them back."""

from __future__ import annotations

import argparse

from kbkit.infra import settings
from kbkit.infra.errors import UsageError
from kbkit.infra.paths import repo_root
from kbkit.intake import options
from kbkit.intake.state_branch import BRANCH, pull, push
from kbkit.vcs import git

BRANCH_VARIABLE = "KBKIT_STATE_BRANCH"
REMOTE_VARIABLE = "KBKIT_STATE_REMOTE"


def main(argv: list[str] | None = None) -> int:
    """Pull: union the branch's ledgers into intake/. Push: the same, then commit the union on
    the branch and push it (merge and retry when another writer pushed first)."""
    parser = argparse.ArgumentParser(
        prog="kb intake sync",
        description="Keep the intake ledgers (events.jsonl, status.jsonl, batches.jsonl, "
        "cursor.json, mailbox-refused.json) on a branch the bot owns, so a fresh runner starts from "
        "yesterday's state and no run has to push the team's main. --pull unions the "
        "branch's ledgers into intake/ (nothing to do while the branch does not exist); "
        "--push does the same, commits the union on top of the branch and pushes it with a "
        f"lease on its tip, merging again and retrying when another writer pushed first. "
        f"The branch is {BRANCH} (or ${BRANCH_VARIABLE}, or --branch) on the remote "
        f"`origin` (or ${REMOTE_VARIABLE}, or --remote: a remote's name or a URL); the "
        "repository is the one holding intake/. Several repositories may share one state "
        "branch (an organization feeding one knowledge tree): name the same URL in each; "
        "concurrent pushes are merged and retried.",
    )
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--pull", action="store_true", help="merge the branch into intake/")
    mode.add_argument("--push", action="store_true", help="merge, commit and push the branch")
    parser.add_argument(
        "--branch", default=None, help=f"the state branch (default ${BRANCH_VARIABLE} or {BRANCH})"
    )
    parser.add_argument(
        "--remote",
        default=None,
        help=f"the git remote's name or URL (default ${REMOTE_VARIABLE}, else origin)",
    )
    parser.add_argument(
        "--message", default="intake: kb intake sync", help="the commit message of a push"
    )
    options.add_repo(parser)
    args = parser.parse_args(argv)
    repo = repo_root(args.repo)
    if not git.is_repository(repo):
        raise UsageError(f"{repo}: not a git work tree; sync needs the repository's clone")
    branch = args.branch or (settings.value(BRANCH_VARIABLE) or "").strip() or BRANCH
    folder = options.intake_dir(args.repo)
    args.remote = args.remote or (settings.value(REMOTE_VARIABLE) or "").strip() or "origin"
    if args.pull:
        result = pull(repo, folder, args.remote, branch)
        if result.tip is None:
            print(f"{args.remote} has no {branch} yet: nothing to pull (the first --push creates it)")  # fmt: skip
            return 0
        print(f"pulled {branch} ({result.tip[:12]}): {_gained(result.merged)}")
        return 0
    result = push(repo, folder, args.remote, branch, args.message)
    if not result.pushed:
        print(f"{branch} already holds every record; nothing pushed")
    else:
        tries = f" after {result.tries} tries" if result.tries > 1 else ""
        print(f"pushed {branch} ({(result.tip or '')[:12]}){tries}; merged from it: {_gained(result.merged)}")  # fmt: skip
    return 0


def _gained(merged: dict[str, int]) -> str:
    return ", ".join(f"{name} +{count}" for name, count in sorted(merged.items())) or "nothing new"


if __name__ == "__main__":
    raise SystemExit(main())
