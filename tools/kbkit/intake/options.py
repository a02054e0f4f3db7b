"""The options every `kb intake` command shares, and how they resolve to folders."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from kbkit.infra.paths import REPO_HELP, intake_root, repo_root
from kbkit.intake.ledger import LedgerProblem
from kbkit.intake.repo_identity import RepoIdentity, load_identity


def add_repo(
    parser: argparse.ArgumentParser, *, identity: bool = False, many: bool = False
) -> None:
    """`--repo DIR` (ledgers at DIR/intake/ or $KBKIT_INTAKE_ROOT), plus `--slug`/`--alias`
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


def intake_dir(repo: str | None) -> Path:
    """The ledger folder of the repository `--repo` names (None: found from here)."""
    return intake_root(repo_root(repo))


def identity(repo: str | None, slug: str | None, aliases: Sequence[str]) -> RepoIdentity:
    """The watched repository: `--slug` or config.yaml's, with `--alias OLD=NEW` added."""
    return load_identity(intake_dir(repo), slug, aliases)


def warn(problems: Iterable[LedgerProblem]) -> None:
    """Report unreadable ledger lines on stderr; they never stop a command."""
    for problem in problems:
        print(f"kb: warning: {problem.path}:{problem.line}: {problem.message}", file=sys.stderr)
