"""Every `kb` command, declared once: name, group, summary and one example.

`kb --help` (grouped), `kb help CMD` (the example after the options), the shell completion
and docs/reference/commands.md all read this table. A command's code is the module named
after it (`intake record-prs` -> `kbkit.commands.intake_record_prs`), imported only when it
runs. A new command is one module under `kbkit/commands/`, one row here, its README row and
its tests.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence
from typing import Any, NamedTuple

# The groups of `kb --help`, in the order it prints them.
CHECK, INTAKE, CURATOR, LESSONS, SETUP, EDITOR = (
    "Check the tree",
    "Intake",
    "Curator",
    "Lessons",
    "Set up and report",
    "Editor and shell",
)
GROUPS = (CHECK, INTAKE, CURATOR, LESSONS, SETUP, EDITOR)


class Command(NamedTuple):
    """One `kb` command: what `kb --help` lists and `kb help NAME` shows after the options."""

    name: str  # the words typed after `kb` (`intake record-prs`)
    group: str  # one of GROUPS
    summary: str  # one line
    example: str  # one command line, starting `kb NAME`

    @property
    def module(self) -> str:
        """The module whose `main(argv) -> int` runs the command."""
        return "kbkit.commands." + self.name.replace(" ", "_").replace("-", "_")


_ROWS = (
    Command(
        "check",
        CHECK,
        "Run both validators on the tree in one pass",
        "kb check --staged --format github",
    ),
    Command(
        "fix",
        CHECK,
        "Apply the mechanical fixes, re-checked; every byte put back if one does not hold",
        "kb fix knowledge/general --diff",
    ),
    Command(
        "check-knowledge-tree",
        CHECK,
        "Check structure, indexes, links, sizes, sensitive and dangerous text",
        "kb check-knowledge-tree --repo ../team-repo",
    ),
    Command(
        "check-wiki-lint",
        CHECK,
        "Check frontmatter, tags, dates, staleness, orphans, adapter manifests",
        "kb check-wiki-lint --today 2026-12-01",
    ),
    Command(
        "rules",
        CHECK,
        "List every rule with its default severity",
        "kb rules --format json",
    ),
    Command(
        "rule",
        CHECK,
        "Explain a rule: what, why, how to fix, how to suppress",
        "kb rule tree/link-broken",
    ),
    Command(
        "intake record-prs",
        INTAKE,
        "Record merged PRs from GitHub's REST pulls JSON (arrays or concatenated pages)",
        "kb intake record-prs --repo acme/app --dry-run",
    ),
    Command(
        "intake record-git",
        INTAKE,
        "Record merged PRs from a local git history, with diff excerpts (offline)",
        "kb intake record-git --branch main",
    ),
    Command(
        "intake drop",
        INTAKE,
        "Write a landed bugfix run's drop record",
        "kb intake drop --run run.json --dir /shared/drops",
    ),
    Command(
        "intake collect",
        INTAKE,
        "Import drop files; quarantine bad ones",
        "kb intake collect --drops /shared/drops",
    ),
    Command(
        "intake mailbox",
        INTAKE,
        "Record bugfix drop records posted as collaborator issue comments",
        "kb intake mailbox --issue acme/app#7",
    ),
    Command(
        "intake status",
        INTAKE,
        "Counts by state and kind, oldest pending",
        "kb intake status --format json",
    ),
    Command(
        "intake check",
        INTAKE,
        "Validate every ledger line (JSON Schema)",
        "kb intake check intake/events.jsonl",
    ),
    Command(
        "intake compact",
        INTAKE,
        "Rewrite ledgers, duplicates folded",
        "kb intake compact --check",
    ),
    Command(
        "intake requeue",
        INTAKE,
        "Return failed rows to pending",
        "kb intake requeue --all-failed --reason 'model outage fixed'",
    ),
    Command(
        "intake sync",
        INTAKE,
        "Pull or push the ledgers' state branch",
        "kb intake sync --push --message 'intake: record 2026-12-01'",
    ),
    Command(
        "distill",
        CURATOR,
        "Pending events -> model -> curator -> commit on the day branch -> shadow or PR",
        "kb distill --model replay:replies.jsonl --dry-run",
    ),
    Command(
        "curate prompt",
        CURATOR,
        "Curator: the model prompt for an evidence batch (catalog + fenced evidence)",
        "kb curate prompt --batch batch.json --text",
    ),
    Command(
        "curate schema",
        CURATOR,
        "Curator: the strict JSON Schema a model reply must follow",
        "kb curate schema > reply.schema.json",
    ),
    Command(
        "curate validate",
        CURATOR,
        "Curator: accept or reject each proposed rule section with a reason code",
        "kb curate validate --batch batch.json --proposals reply.json",
    ),
    Command(
        "curate apply",
        CURATOR,
        "Curator: insert accepted sections, run the validators, roll back on failure",
        "kb curate apply --batch batch.json --proposals reply.json --dry-run",
    ),
    Command(
        "curate recover",
        CURATOR,
        "Curator: restore the pages of an interrupted apply",
        "kb curate recover --repo state/clone",
    ),
    Command(
        "lessons extract",
        LESSONS,
        "Extract lessons from closed tasks",
        "kb lessons extract --from tasks.jsonl",
    ),
    Command(
        "lessons show",
        LESSONS,
        "Preview the lessons a task would see",
        "kb lessons show task.json",
    ),
    Command(
        "lessons bundle",
        LESSONS,
        "Prompts per KBKIT_LESSONS mode",
        "kb lessons bundle --task task.json --planner p.md --worker w.md --out prompts/",
    ),
    Command(
        "lessons outcome",
        LESSONS,
        "Outcome card of one task",
        "kb lessons outcome task.json",
    ),
    Command(
        "lessons report",
        LESSONS,
        "Tasks with vs without lessons, 95% CIs",
        "kb lessons report --format json",
    ),
    Command(
        "lessons lint",
        LESSONS,
        "Duplicates, conflicts, dangling evidence",
        "kb lessons lint --tasks tasks.jsonl",
    ),
    Command(
        "lessons forget",
        LESSONS,
        "Tombstone a source's evidence",
        "kb lessons forget --source finding:T7/F1 --reason 'wrong'",
    ),
    Command(
        "lessons promote",
        LESSONS,
        "Supported lessons -> intake events",
        "kb lessons promote --min-support 3 --dry-run",
    ),
    Command(
        "lessons audit",
        LESSONS,
        "Lessons shown across a company boundary",
        "kb lessons audit --format json",
    ),
    Command(
        "lessons adopt",
        LESSONS,
        "Lessons carried by a published rule",
        "kb lessons adopt --reason 'rule TEAM-1b merged in #42'",
    ),
    Command(
        "lessons retire",
        LESSONS,
        "Withdraw lessons, with a reason",
        "kb lessons retire L17caca8cd97ddada --reason 'the API was removed'",
    ),
    Command(
        "lessons replay",
        LESSONS,
        "FPs/duplicates earlier lessons warned of",
        "kb lessons replay --scope company --format json",
    ),
    Command(
        "lessons list",
        LESSONS,
        "What agents are told now, by scope",
        "kb lessons list --format json",
    ),
    Command(
        "lessons why",
        LESSONS,
        "One lesson's evidence and conflicts",
        "kb lessons why L17caca8cd97ddada",
    ),
    Command(
        "init",
        SETUP,
        "Set up kbkit in a repository (knowledge/, hooks, ignores)",
        "kb init",
    ),
    Command(
        "report",
        SETUP,
        "One report: tree health, intake, curator, lessons",
        "kb report --since 2026-11-01 --out report.html",
    ),
    Command(
        "lsp",
        EDITOR,
        "Language server for editors (stdio): diagnostics, fixes, rule docs",
        "kb lsp --stdio",
    ),
    Command(
        "completion",
        EDITOR,
        "Print the shell completion script for bash, zsh or fish",
        "kb completion bash > ~/.local/share/bash-completion/completions/kb",
    ),
)

# command name (words separated by spaces) -> its row, in the order `kb --help` lists them
COMMANDS: dict[str, Command] = {row.name: row for row in _ROWS}


def find_command(argv: Sequence[str]) -> tuple[str, list[str]] | None:
    """Match the longest registered command name at the start of argv."""
    for size in (3, 2, 1):
        name = " ".join(argv[:size])
        if len(argv) >= size and name in COMMANDS:
            return name, list(argv[size:])
    return None


def grouped() -> list[tuple[str, list[Command]]]:
    """The commands by group, in GROUPS order, each group in declaration order."""
    return [(group, [row for row in COMMANDS.values() if row.group == group]) for group in GROUPS]


class _Captured(Exception):
    def __init__(self, parser: argparse.ArgumentParser) -> None:
        super().__init__("parser captured")
        self.parser = parser


def command_parser(module_name: str) -> argparse.ArgumentParser | None:
    """The parser a command's `main` builds, taken when it starts parsing (nothing runs):
    what the shell completion and the reference page read a command's options from."""
    module = importlib.import_module(module_name)
    original = argparse.ArgumentParser.parse_known_args

    def capture(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> Any:
        raise _Captured(self)

    argparse.ArgumentParser.parse_known_args = capture  # type: ignore[method-assign]
    try:
        module.main([])
    except _Captured as captured:
        return captured.parser
    except BaseException:  # a command that parses nothing: complete its name only
        return None
    finally:
        argparse.ArgumentParser.parse_known_args = original  # type: ignore[method-assign]
    return None
