"""`kb init`: set kbkit up in a repository, idempotently, never replacing a user's file."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from kbkit.infra import clock
from kbkit.infra.errors import UsageError
from kbkit.infra.paths import find_repo_root
from kbkit.policy.scaffold import DEFAULT_ROOT, HOOK_REPO, hook_config, initialize
from kbkit.sites import CONFIGS_SHOWN

# one folder at the top of the repository, a name YAML reads as a plain string
ROOT_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


def _pinnable(repo: str, rev: str) -> bool:
    """Whether the hook can be pinned to `rev` at `repo`; says why not when it cannot."""
    from kbkit.vcs.git import rev_resolves

    if rev_resolves(repo, rev):
        return True
    sys.stderr.write(
        f"kbkit: {rev} does not resolve at {repo} (no such tag or commit, or the repository "
        "cannot be reached): the hook is a local one that pre-commit installs kbkit into "
        f"itself, from where this kbkit came from; once {rev} is published there, "
        f"`kb init --hook-rev {rev}` prints the pinned hook\n"
    )
    return False


def _source(text: str | None) -> str | None:
    """A `--hook-source` that names a folder or a wheel becomes a requirement pip can read
    from anywhere (`kbkit-knowledge @ file:///...`)."""
    if text is None:
        return None
    path = Path(text).expanduser()
    if path.exists():
        from kbkit.policy.scaffold import DISTRIBUTION

        return f"{DISTRIBUTION} @ {path.resolve().as_uri()}"
    return text


def main(argv: Sequence[str] | None = None) -> int:
    """Write the starting tree, policy, git attributes and ignores, and the hook."""
    from kbkit import __version__

    parser = argparse.ArgumentParser(
        prog="kb init",
        description="Set up kbkit in a repository: knowledge/ with a root _index.md, the "
        "general/ and repos/ roots and a policy; union merge for the ledgers in "
        ".gitattributes; .gitignore entries for state, caches and locks; a pre-commit hook "
        "running `kb check --staged` (printed instead when .pre-commit-config.yaml exists). "
        "Only missing files and lines are written: running it again changes nothing.",
    )
    parser.add_argument(
        "--repo",
        metavar="DIR",
        default=None,
        help="the repository to set up (default: the repository around the current "
        "directory, found as every command finds it, else the current directory)",
    )
    parser.add_argument(
        "--hook-repo",
        default=HOOK_REPO,
        metavar="URL|PATH",
        help=f"where pre-commit fetches kbkit's hooks (default: {HOOK_REPO})",
    )
    parser.add_argument(
        "--hook-rev",
        default=f"v{__version__}",
        metavar="REV",
        help=f"the tag or commit the hook pins (default: v{__version__}, this kbkit's tag)",
    )
    parser.add_argument(
        "--local-hook",
        action="store_true",
        help="a `repo: local` hook instead of a hook repository pinned by tag: pre-commit "
        "installs kbkit into the hook's own environment (`language: python`), so it works "
        "from any shell or GUI client without kb on PATH",
    )
    parser.add_argument(
        "--hook-source",
        default=None,
        metavar="REQUIREMENT",
        help="what the local hook installs, as pip reads it (e.g. 'kbkit-knowledge @ "
        "git+https://github.com/kbkit-dev/kbkit@SHA' or a checkout's path; default: where "
        "this kbkit was installed from)",
    )
    parser.add_argument(
        "--root",
        default=None,
        metavar="FOLDER",
        help=f"the knowledge root: a folder at the top of the repository, e.g. docs for a "
        f"docs tree you already have (default: the docs folder of a site generator found "
        f"at the top, {CONFIGS_SHOWN}, else {DEFAULT_ROOT}); its policy.yaml then says "
        f"knowledge_root: FOLDER",
    )
    args = parser.parse_args(argv)
    detect = args.root is None
    root = (args.root if args.root is not None else DEFAULT_ROOT).strip("/")
    if not ROOT_NAME.fullmatch(root):
        raise UsageError(
            f"--root {args.root!r}: name one folder at the top of the repository (e.g. docs); "
            "a deeper knowledge root needs a kbkit.yaml with knowledge_root: (README, Policy)"
        )
    if args.repo is not None:
        repo = Path(args.repo)
        if not repo.is_dir():
            raise UsageError(f"--repo {repo}: not a directory")
    else:
        try:
            repo = find_repo_root(Path.cwd())
        except UsageError:
            repo = Path.cwd()
    local = args.local_hook or not _pinnable(args.hook_repo, args.hook_rev)
    hook = hook_config(args.hook_repo, args.hook_rev, local=local, source=_source(args.hook_source))
    steps = initialize(repo.absolute(), clock.today(), hook, root, detect=detect)
    for step in steps:
        if step.action == "print":
            print(f"exists  {step.path}: add kbkit's hook under `repos:` yourself:\n")
            print(step.detail)
        else:
            detail = f" ({step.detail})" if step.detail else ""
            print(f"{step.action:<7} {step.path}{detail}")
    if any(step.detail and step.action == "created" for step in steps if step.action != "print"):
        print()
        print(first_check(repo.absolute()))
    print("\nnext: review the files, `git add` them, then `pre-commit install` once per clone")
    return 0


def first_check(repo: Path) -> str:
    """What `kb check` says of the tree under the policy just written, in plain words: that
    it passes, or what it leaves for the team, counted by rule."""
    from collections import Counter

    from kbkit.checks.rules import all_rules
    from kbkit.checks.runner import run_validators
    from kbkit.policy.model import load_policy

    policy = load_policy(repo)
    findings, pages = run_validators(repo, policy, ("tree", "lint"), clock.today(), use_cache=False)
    where = f"{policy.knowledge_root}/" if policy.knowledge_root not in ("", ".") else "the tree"
    if not findings:
        return f"kb check passes on {where} ({pages} page(s)) under this policy"
    counts = Counter(finding.rule_id for finding in findings)
    rules = all_rules()
    lines = [
        f"kb check on {where} ({pages} page(s)) leaves {len(findings)} finding(s) for the "
        "team to fix or to settle in the policy:"
    ]
    for rule_id, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        what = rules[rule_id].summary if rule_id in rules else rule_id
        lines.append(f"  {count:>5}  {what} ({rule_id})")
    lines.append("`kb check` lists them; `kb rule RULE-ID` says why each matters and how to fix it")
    return "\n".join(lines)
