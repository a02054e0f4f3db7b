"""Help beyond argparse, read from the command registry: `kb --help` by group, the example
after a command's options, and the nearest name for a typo.

`python -m kbkit.help --write-reference` writes docs/reference/commands.md and
environment.md from the two tables (`kbkit.commands.registry`, `kbkit.infra.settings`);
tests/test_help.py fails when the committed pages differ from what it writes.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from kbkit.commands.registry import COMMANDS, grouped


def usage(version: str) -> str:
    """`kb --help`: every command under its group, each with its one-line summary."""
    width = max(len(name) for name in COMMANDS)
    lines = [f"usage: kb COMMAND [options]   (kbkit {version})"]
    for group, rows in grouped():
        lines += ["", f"{group}:"]
        lines += [f"  {row.name:<{width}}  {row.summary}" for row in rows]
    lines += ["", "Run `kb help COMMAND` (or `kb COMMAND --help`) for the options of one command."]
    return "\n".join(lines)


def example(name: str) -> str:
    """The example block printed after a command's options (empty when there is none)."""
    row = COMMANDS.get(name)
    return f"\nexample:\n  {row.example}\n" if row and row.example else ""


def nearest(word: str, names: Iterable[str]) -> str | None:
    """The registered command closest to what was typed, if any is close enough."""
    names = list(names)
    firsts = sorted({name.split()[0] for name in names})
    found = difflib.get_close_matches(word, [*names, *firsts], n=1, cutoff=0.6)
    return found[0] if found else None
