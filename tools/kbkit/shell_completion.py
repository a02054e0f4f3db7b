"""Completing a `kb` command line for the shell (bash, zsh, fish) through argcomplete.

The shell runs `kb` with argcomplete's variables set (`_ARGCOMPLETE`, `COMP_LINE`, ...;
`kb completion SHELL` prints the script that does so). `kb` then builds a parser of every
command name, and only for the command being typed its real options: its module's own
parser, taken from its `main` just before it would parse (no command runs). So `kb ch<TAB>`
costs no command's import, `kb check --f<TAB>` only `kb check`'s, and the options always
match this kbkit. Rule ids complete after `kb rule`; PATH arguments complete as file names.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import Any

from kbkit.commands.registry import COMMANDS, command_parser


def typed_command(words: Sequence[str], names: Sequence[str]) -> str | None:
    """The registered command the fully typed words start with (the longest name)."""
    for size in (3, 2, 1):
        name = " ".join(words[:size])
        if len(words) >= size and name in names:
            return name
    return None


def build(words: Sequence[str]) -> argparse.ArgumentParser:
    """A parser of every registered command name (`kbkit.commands.registry`), with the real
    options of the one `words` start with."""
    parser = argparse.ArgumentParser(prog="kb")
    parser.add_argument("-V", "--version", action="store_true", help="print the version")
    top = parser.add_subparsers(dest="command")
    groups: dict[str, Any] = {}
    current = typed_command(words, list(COMMANDS))
    for name, row in sorted(COMMANDS.items()):
        summary = row.summary.replace("%", "%%")  # argparse formats help strings with %
        *group, last = name.split()
        target = top
        if group:
            if group[0] not in groups:
                groups[group[0]] = top.add_parser(
                    group[0], help=f"{group[0]} commands"
                ).add_subparsers()
            target = groups[group[0]]
        real = command_parser(row.module) if name == current else None
        if real is None:
            target.add_parser(last, help=summary)
            continue
        sub = target.add_parser(last, help=summary, parents=[real], add_help=False)
        if name == "rule":
            _complete_rule_ids(sub)
    helper = top.add_parser("help", help="the options of one command")
    helper.add_argument("topic", nargs="*", choices=sorted({n.split()[0] for n in COMMANDS}))
    return parser


def _complete_rule_ids(parser: argparse.ArgumentParser) -> None:
    from kbkit.checks.rules import all_rules

    for action in parser._actions:
        if action.dest == "rule_id":
            action.completer = lambda **_: sorted(all_rules())  # type: ignore[attr-defined]


def complete() -> None:
    """Answer the shell's completion request and exit (argcomplete writes the answer)."""
    import argcomplete

    from kbkit.infra import settings

    line = settings.value("COMP_LINE") or ""
    point = int(settings.value("COMP_POINT") or len(line))
    words = line[:point].split()[1:]
    typed = words if line[:point].endswith(" ") else words[:-1]
    argcomplete.autocomplete(build(typed), always_complete_options=False)
    os._exit(0)  # not a completion request after all (autocomplete returned)
