"""The `kb` command: dispatch through the command registry, and the one error handler.

Each command is one row of `kbkit.commands.registry.COMMANDS` and lives in its own module
under `kbkit.commands`, which exposes `main(argv: list[str] | None) -> int`. Modules are
imported only when their command runs, so `kb check` never pays for the curator's or the
lessons' imports.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from kbkit import __version__
from kbkit.commands.registry import COMMANDS, find_command
from kbkit.infra.errors import KbkitError, environment_failure, is_environment

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_UNEXPECTED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_ENVIRONMENT = 4


def _usage() -> str:
    from kbkit.help import usage

    return usage(__version__)


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

    module = importlib.import_module(COMMANDS[name].module)
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
            print("\n".join(f"  {n:<{width}}  {COMMANDS[n].summary}" for n in group))
            return EXIT_OK
    if match is None:
        return _unknown(words)
    name, rest = match
    if wants_help or "-h" in rest or "--help" in rest:
        return _help(name)
    module = importlib.import_module(COMMANDS[name].module)
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
    from kbkit.infra import settings

    if settings.value("_ARGCOMPLETE"):  # the shell asks for completions (`kb completion SHELL`)
        from kbkit.shell_completion import complete

        complete()
    if sys.argv[1:2] and sys.argv[1] in FAST_EXIT:
        # No cyclic collection in a check's process: the validators pause it anyway
        # (`kbkit.checks.runner`), and before them it only re-scans the modules being imported
        # (~5% of the fixed cost of a check on a small tree).
        gc.disable()
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
