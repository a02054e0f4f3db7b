"""The `kb` command: a registry of commands and the one error handler.

Each command lives in its own module under `kbkit.commands` and exposes
`main(argv: list[str] | None) -> int`. Modules are imported only when their command runs,
so `kb check` never pays for the curator's or the lessons' imports.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from kbkit import __version__
from kbkit.infra.errors import KbkitError, environment_failure, is_environment

# command name (words separated by spaces) -> (module, one-line summary)
COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("kbkit.commands.check", "Run both validators on the tree in one pass"),
    "fix": (
        "kbkit.commands.fix",
        "Apply the mechanical fixes, re-checked; every byte put back if one does not hold",
    ),
    "completion": (
        "kbkit.commands.completion",
        "Print the shell completion script for bash, zsh or fish",
    ),
    "lsp": (
        "kbkit.commands.lsp",
        "Language server for editors (stdio): diagnostics, fixes, rule docs",
    ),
    "check-knowledge-tree": (
        "kbkit.commands.check_knowledge_tree",
        "Check structure, indexes, links, sizes, sensitive and dangerous text",
    ),
    "check-wiki-lint": (
        "kbkit.commands.check_wiki_lint",
        "Check frontmatter, tags, dates, staleness, orphans, adapter manifests",
    ),
    "curate prompt": (
        "kbkit.commands.curate_prompt",
        "Curator: the model prompt for an evidence batch (catalog + fenced evidence)",
    ),
    "curate schema": (
        "kbkit.commands.curate_schema",
        "Curator: the strict JSON Schema a model reply must follow",
    ),
    "curate validate": (
        "kbkit.commands.curate_validate",
        "Curator: accept or reject each proposed rule section with a reason code",
    ),
    "curate apply": (
        "kbkit.commands.curate_apply",
        "Curator: insert accepted sections, run the validators, roll back on failure",
    ),
    "curate recover": (
        "kbkit.commands.curate_recover",
        "Curator: restore the pages of an interrupted apply",
    ),
    "intake record-prs": (
        "kbkit.commands.intake_record_prs",
        "Record merged PRs from GitHub's REST pulls JSON (arrays or concatenated pages)",
    ),
    "intake record-git": (
        "kbkit.commands.intake_record_git",
        "Record merged PRs from a local git history, with diff excerpts (offline)",
    ),
    "intake drop": ("kbkit.commands.intake_drop", "Write a landed bugfix run's drop record"),
    "intake collect": ("kbkit.commands.intake_collect", "Import drop files; quarantine bad ones"),
    "intake mailbox": (
        "kbkit.commands.intake_mailbox",
        "Record bugfix drop records posted as collaborator issue comments",
    ),
    "intake status": ("kbkit.commands.intake_status", "Counts by state and kind, oldest pending"),
    "intake check": ("kbkit.commands.intake_check", "Validate every ledger line (JSON Schema)"),
    "intake compact": ("kbkit.commands.intake_compact", "Rewrite ledgers, duplicates folded"),
    "intake requeue": ("kbkit.commands.intake_requeue", "Return failed rows to pending"),
    "intake sync": ("kbkit.commands.intake_sync", "Pull or push the ledgers' state branch"),
    "distill": (
        "kbkit.commands.distill",
        "Pending events -> model -> curator -> commit on the day branch -> shadow or PR",
    ),
    "lessons extract": ("kbkit.commands.lessons_extract", "Extract lessons from closed tasks"),
    "lessons show": ("kbkit.commands.lessons_show", "Preview the lessons a task would see"),
    "lessons bundle": ("kbkit.commands.lessons_bundle", "Prompts per KB_LESSONS mode"),
    "lessons outcome": ("kbkit.commands.lessons_outcome", "Outcome card of one task"),
    "lessons report": ("kbkit.commands.lessons_report", "Tasks with vs without lessons, 95% CIs"),
    "lessons lint": ("kbkit.commands.lessons_lint", "Duplicates, conflicts, dangling evidence"),
    "lessons forget": ("kbkit.commands.lessons_forget", "Tombstone a source's evidence"),
    "lessons promote": ("kbkit.commands.lessons_promote", "Supported lessons -> intake events"),
    "rule": ("kbkit.commands.rule", "Explain a rule: what, why, how to fix, how to suppress"),
    "rules": ("kbkit.commands.rules", "List every rule with its default severity"),
    "init": ("kbkit.commands.init", "Set up kbkit in a repository (knowledge/, hooks, ignores)"),
    "lessons audit": ("kbkit.commands.lessons_audit", "Lessons shown across a company boundary"),
    "report": ("kbkit.commands.report", "One report: tree health, intake, curator, lessons"),
    "lessons adopt": ("kbkit.commands.lessons_adopt", "Lessons carried by a published rule"),
    "lessons retire": ("kbkit.commands.lessons_retire", "Withdraw lessons, with a reason"),
    "lessons replay": ("kbkit.commands.lessons_replay", "FPs/duplicates earlier lessons warned of"),
    "lessons list": ("kbkit.commands.lessons_list", "What agents are told now, by scope"),
    "lessons why": ("kbkit.commands.lessons_why", "One lesson's evidence and conflicts"),
}

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_UNEXPECTED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_ENVIRONMENT = 4


def _usage() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = [f"usage: kb COMMAND [options]   (kbkit {__version__})", "", "commands:"]
    lines += [f"  {name:<{width}}  {summary}" for name, (_, summary) in sorted(COMMANDS.items())]
    lines += ["", "Run `kb help COMMAND` (or `kb COMMAND --help`) for the options of one command."]
    return "\n".join(lines)


def find_command(argv: Sequence[str]) -> tuple[str, list[str]] | None:
    """Match the longest registered command name at the start of argv."""
    for size in (3, 2, 1):
        name = " ".join(argv[:size])
        if len(argv) >= size and name in COMMANDS:
            return name, list(argv[size:])
    return None


def _unknown(argv: Sequence[str]) -> int:
    from kbkit.help import nearest

    subcommands = sorted(name for name in COMMANDS if name.startswith(argv[0] + " "))
    typed = " ".join(argv[:2]) if subcommands else argv[0]
    if subcommands:
        guess = nearest(typed, subcommands)
        hint = f" (one of: {', '.join(subcommands)})"
    else:
        guess = nearest(argv[0], COMMANDS)
        hint = ""
    print(f"kb: error: unknown command '{typed}'{hint}", file=sys.stderr)
    if guess in COMMANDS:
        print(f"Did you mean `kb {guess}`?", file=sys.stderr)
    elif guess:
        group = sorted(name for name in COMMANDS if name.startswith(guess + " "))
        print(f"Did you mean one of: {', '.join(group)}?", file=sys.stderr)
    print("Run `kb --help` for the list of commands.", file=sys.stderr)
    return EXIT_USAGE


def _help(name: str) -> int:
    """The command's own options (argparse), then one example; exits as argparse does."""
    from kbkit.help import example

    module = importlib.import_module(COMMANDS[name][0])
    try:
        module.main(["--help"])
    except SystemExit:
        sys.stdout.write(example(name))
        raise
    sys.stdout.write(example(name))
    return EXIT_OK


def run(argv: Sequence[str]) -> int:
    if not argv or argv[0] in ("-h", "--help") or argv == ["help"]:
        print(_usage())
        return EXIT_OK if argv else EXIT_USAGE
    if argv[0] in ("-V", "--version"):
        print(f"kbkit {__version__}")
        return EXIT_OK
    wants_help = argv[0] == "help"
    words = argv[1:] if wants_help else argv
    match = find_command(words)
    if match is None and words:
        group = sorted(name for name in COMMANDS if name.startswith(words[0] + " "))
        if group and (wants_help or words[1:2] in (["-h"], ["--help"])):
            width = max(len(name) for name in group)  # `kb lessons --help`: the group
            print(f"usage: kb {words[0]} COMMAND [options]\n\ncommands:")
            print("\n".join(f"  {n:<{width}}  {COMMANDS[n][1]}" for n in group))
            return EXIT_OK
    if match is None:
        return _unknown(words)
    name, rest = match
    if wants_help or "-h" in rest or "--help" in rest:
        return _help(name)
    module = importlib.import_module(COMMANDS[name][0])
    return int(module.main(rest))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `kb`; turns expected errors into one line and an exit code. Output is
    safe under any locale and messages show no raw control characters (kbkit.infra.streams)."""
    from kbkit.infra.streams import safe_streams

    with safe_streams():
        return _main(list(sys.argv[1:] if argv is None else argv))


def _main(args: list[str]) -> int:
    try:
        return run(args)
    except KbkitError as exc:  # one line: a file name in it cannot start a line of its own
        from kbkit.infra.outward import line

        print(f"kb: error: {line(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("kb: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:
        if not is_environment(exc):
            return _unexpected()
        # a full disk or a read-only folder that no writer wrapped: still one line, exit 4
        from kbkit.infra.outward import line

        message = line(str(environment_failure(exc, action="failed")))
        print(f"kb: error: {message}", file=sys.stderr)
        return EXIT_ENVIRONMENT
    except ModuleNotFoundError as exc:
        if (exc.name or "").startswith("kbkit"):
            raise
        print(
            f"kb: error: the dependency {exc.name!r} is not installed in this Python "
            f"({sys.executable}); run `make setup` and use .venv/bin/kb",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except Exception:
        return _unexpected()


def _unexpected() -> int:
    """Print the traceback of the exception being handled: a bug in kbkit (exit 3)."""
    import traceback

    traceback.print_exc()
    print(
        "kb: unexpected error (a bug in kbkit): please report it with the traceback above",
        file=sys.stderr,
    )
    return EXIT_UNEXPECTED


# Commands that hold a large heap and leave nothing for exit-time cleanup (no threads, no
# temporary folders, every file closed): they skip the interpreter's teardown, which frees
# the whole heap object by object (about 13 ms of a 10k-page `kb check`).
FAST_EXIT = frozenset({"check", "check-knowledge-tree", "check-wiki-lint"})
# `kb lessons extract` holds the store's fold (a million evidence rows at scale: ~1 s to
# free); `show` and `bundle` run once per agent task.
FAST_EXIT_LESSONS = frozenset({"extract", "show", "bundle"})


def console() -> NoReturn:
    """The `kb` console script: `main`, then exit (without teardown after a check)."""
    if "_ARGCOMPLETE" in os.environ:  # the shell asks for completions (`kb completion SHELL`)
        from kbkit.shell_completion import complete

        complete(COMMANDS)
    code = main()
    if (
        sys.argv[1:2]
        and sys.argv[1] in FAST_EXIT
        or (sys.argv[1:2] == ["lessons"] and sys.argv[2:3] and sys.argv[2] in FAST_EXIT_LESSONS)
    ):
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BrokenPipeError:
            pass
        os._exit(code)
    raise SystemExit(code)


if __name__ == "__main__":
    console()
