"""The options every `kb intake` command shares, and how they resolve to folders."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path

from kbkit.infra.paths import REPO_HELP, intake_root, repo_root
from kbkit.intake.ledger import LedgerProblem
from kbkit.intake.repo_identity import RepoIdentity, load_identity


def add_repo(
    parser: argparse.ArgumentParser, *, identity: bool = False, many: bool = False
) -> None:
    """`--repo DIR` (ledgers at DIR/intake/ or $INTAKE_ROOT), plus `--slug`/`--alias`
    (`many`: --slug may be given more than once, a list)."""
    parser.add_argument(
        "--repo",
        metavar="DIR",
        default=None,
        help=REPO_HELP,
    )
    if identity:
        parser.add_argument(
            "--slug",
            metavar="OWNER/NAME",
            default=None,
            action="append" if many else "store",
            help="the watched repository (default: `repo:` in intake/config.yaml)"
            + (
                "; repeat it to scan several repositories into one ledger (default then: "
                "`repos:` in intake/config.yaml)"
                if many
                else ""
            ),
        )
        parser.add_argument(
            "--alias",
            metavar="OLD=NEW",
            action="append",
            default=[],
            help="normalize slug OLD to NEW (repeatable; adds to `aliases:` in intake/config.yaml)",
        )


def intake_dir(args: argparse.Namespace) -> Path:
    return intake_root(repo_root(args.repo))


def identity(args: argparse.Namespace) -> RepoIdentity:
    return load_identity(intake_dir(args), args.slug, args.alias)


def warn(problems: Iterable[LedgerProblem]) -> None:
    """Report unreadable ledger lines on stderr; they never stop a command."""
    for problem in problems:
        print(f"kb: warning: {problem.path}:{problem.line}: {problem.message}", file=sys.stderr)
