"""Every environment variable kbkit reads, declared once: name, meaning, default.

kbkit's own variables are named `KBKIT_*`. The names they had before (`POST_MODE`,
`KB_LESSONS`, `INTAKE_ROOT`, ...) are still read, after the new name, and the first read of
one prints a one-line note on stderr saying which name to set instead (once per process).
Variables of other tools that kbkit also reads (gh's `GH_HOST`, `NO_COLOR`, GitHub Actions'
`GITHUB_EVENT_NAME`, argcomplete's) are listed too, under their owner, and never renamed.
docs/reference/environment.md is generated from this table (`make generate`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import NamedTuple

KBKIT = "kbkit"


class Variable(NamedTuple):
    """One environment variable: what it changes and what holds while it is unset."""

    name: str
    meaning: str
    default: str
    old: tuple[str, ...] = ()  # earlier names, still read (after `name`) with a note
    owner: str = KBKIT  # kbkit, or the tool whose variable kbkit also reads


_VARIABLES = (
    # where things live
    Variable(
        "KBKIT_INTAKE_ROOT",
        "The folder of the intake ledgers, instead of the repository's `intake/`.",
        "`intake/` in the repository",
        old=("INTAKE_ROOT",),
    ),
    Variable(
        "KBKIT_STATE_ROOT",
        "The folder of local state (the work clone, the batch artifacts), instead of the "
        "repository's `state/`.",
        "`state/` in the repository",
    ),
    Variable(
        "KBKIT_STATE_BRANCH",
        "The branch `kb intake sync` keeps the ledgers on (`--branch` wins).",
        "`kbkit/intake-state`",
    ),
    Variable(
        "KBKIT_STATE_REMOTE",
        "The remote `kb intake sync` pulls the state branch from and pushes it to: a remote's "
        "name or a URL; several repositories sharing one state branch name the same URL "
        "(`--remote` wins).",
        "`origin`",
    ),
    Variable(
        "KBKIT_SYNC_PAUSE",
        "Seconds, about, before `kb intake sync --push` merges and sends again after another "
        "writer pushed first (doubled for each later try, with a random spread).",
        "0.25",
    ),
    Variable(
        "KBKIT_DROP_DIR",
        "The drop directory `kb intake drop` writes bugfix records to and `kb intake collect` "
        "reads (`--dir` / `--drops` win).",
        "none: `kb intake drop` writes no file, `kb intake collect` asks for `--drops`",
        old=("KNOWLEDGE_INTAKE_DIR",),
    ),
    Variable(
        "KBKIT_GITLAB_URL",
        "The GitLab instance `kb intake record-prs --source gitlab` reads merge requests "
        "from (https; http only on this machine).",
        "`https://gitlab.com`",
    ),
    Variable(
        "KBKIT_GITLAB_TOKEN",
        "A GitLab token (scope `read_api`) sent with every request to that instance; needed "
        "for a private project.",
        "none: public projects only",
    ),
    # outward writes and publication
    Variable(
        "KBKIT_ALLOW_POST",
        "`1` lets `kb intake drop --mailbox` post the record as an issue comment.",
        "unset: nothing is posted",
        old=("ALLOW_POST",),
    ),
    Variable(
        "KBKIT_KNOWLEDGE_REPO",
        "The knowledge repository `kb distill` clones, a URL or a path (`--knowledge-repo` wins).",
        "`knowledge_repo:` in intake/config.yaml",
        old=("KNOWLEDGE_REPO",),
    ),
    Variable(
        "KBKIT_DISTILL_MODEL",
        "The model `kb distill` asks: `replay:FILE` or `llm:MODEL_ID` (`--model` wins).",
        "none: `kb distill` asks for `--model`",
        old=("KB_DISTILL_MODEL",),
    ),
    Variable(
        "KBKIT_POST_MODE",
        "`review` lets `kb distill` open PRs (with the two variables below); anything else "
        "is shadow mode: a local commit and artifacts only.",
        "shadow",
        old=("POST_MODE",),
    ),
    Variable(
        "KBKIT_KNOWLEDGE_PR_ENABLED",
        "`true` is the second switch of review mode.",
        "shadow",
        old=("KNOWLEDGE_PR_ENABLED",),
    ),
    Variable(
        "KBKIT_KNOWLEDGE_FORK_SLUG",
        "The bot's fork (owner/name) that `kb distill` pushes to in review mode; never the "
        "knowledge repository itself.",
        "none: shadow mode",
        old=("KNOWLEDGE_FORK_SLUG",),
    ),
    Variable(
        "KBKIT_KNOWLEDGE_FORK_URL",
        "The URL the fork is pushed at.",
        "`https://$GH_HOST/<fork>.git`",
        old=("KNOWLEDGE_FORK_URL",),
    ),
    Variable(
        "KBKIT_KNOWLEDGE_REPO_SLUG",
        "The knowledge repository's owner/name, when its remote URL does not tell.",
        "read from the knowledge repository's URL",
        old=("KNOWLEDGE_REPO_SLUG",),
    ),
    # lessons
    Variable(
        "KBKIT_LESSONS",
        "What `kb lessons bundle` and the lessons API do with lessons: `off`, `shadow` "
        "(select and log) or `inject` (also append them to the prompts).",
        "off",
        old=("KB_LESSONS", "ARTEX_RSI_LESSONS"),
    ),
    Variable(
        "KBKIT_LESSONS_SCOPE",
        "Which companies' lessons a task may see: `company`, `company+generic` or `open` "
        "(`--scope` wins).",
        "`company+generic`",
        old=("KB_LESSONS_SCOPE",),
    ),
    # time, deadlines, tracing
    Variable(
        "KBKIT_NOW",
        "Pins kbkit's clock to an ISO-8601 instant (`2026-11-30T08:15:00Z`): every timestamp "
        "written and every 'today' measured against.",
        "the real time, in UTC",
    ),
    Variable(
        "KBKIT_GIT_TIMEOUT",
        "Seconds any one git call may take before its process group is killed.",
        "600",
    ),
    Variable(
        "KBKIT_GH_TIMEOUT",
        "Seconds any one gh call may take before its process group is killed.",
        "120",
    ),
    Variable(
        "KBKIT_GH_RETRY_PAUSE",
        "Seconds before the first retry of a failed GitHub read (doubled for the next).",
        "1",
    ),
    Variable(
        "KBKIT_RACE_PAUSE",
        "Seconds, about, `kb distill` waits before reading the PRs again after another kbkit "
        "run took today's branch first.",
        "2",
    ),
    Variable(
        "KBKIT_TRACE_STEPS",
        "Any value prints each named step of `kb curate apply` and `kb distill` on stderr "
        "(`kbkit: step NAME`), to tell where a killed or hung run got to.",
        "unset: steps are silent",
    ),
    # other tools' variables, read as their owners define them
    Variable(
        "GH_HOST",
        "The GitHub host of gh and of the fork's default push URL.",
        "`github.com`",
        owner="gh",
    ),
    Variable(
        "GITHUB_EVENT_NAME",
        "`schedule` makes `kb distill` a scheduled run (as `--scheduled`).",
        "unset",
        owner="GitHub Actions",
    ),
    Variable(
        "NO_COLOR",
        "Any value turns off colour in the text output.",
        "colour on a terminal",
        owner="no-color.org",
    ),
    Variable(
        "FORCE_COLOR",
        "Any value but `0` or `false` turns colour on even when the output is not a terminal.",
        "colour on a terminal",
        owner="force-color.org",
    ),
    Variable(
        "_ARGCOMPLETE",
        "Set by the completion script: `kb` answers a completion request instead of running.",
        "unset",
        owner="argcomplete",
    ),
    Variable(
        "COMP_LINE",
        "The command line being completed.",
        "empty",
        owner="argcomplete",
    ),
    Variable(
        "COMP_POINT",
        "The cursor's position in COMP_LINE.",
        "the end of the line",
        owner="argcomplete",
    ),
)

# name -> its declaration, in the order the reference lists them
VARIABLES: dict[str, Variable] = {variable.name: variable for variable in _VARIABLES}

_noted: set[str] = set()  # old names already noted in this process


def lookup(name: str, environ: Mapping[str, str] | None = None) -> tuple[str, str] | None:
    """(the name that is set, its value) for the declared variable `name`: `name` itself,
    else the first of its old names set, noted once on stderr; None when none is set (a
    value of only blanks counts as unset). An undeclared name is a bug (KeyError)."""
    variable = VARIABLES[name]
    env = os.environ if environ is None else environ
    for candidate in (name, *variable.old):
        value = env.get(candidate)
        if value is not None and value.strip():
            if candidate != name:
                _note(candidate, name)
            return candidate, value
    return None


def value(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The value of the declared variable `name` (or of an old name of it); None when unset."""
    found = lookup(name, environ)
    return found[1] if found else None


def _note(old: str, new: str) -> None:
    if old in _noted:
        return
    _noted.add(old)
    print(
        f"kb: note: the environment variable {old} is now named {new}; set {new} instead "
        f"({old} is still read for now)",
        file=sys.stderr,
    )
