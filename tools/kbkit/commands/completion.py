"""`kb completion SHELL`: the script that makes a shell complete `kb` (bash, zsh, fish)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

SHELLS = ("bash", "zsh", "fish")


def main(argv: Sequence[str] | None = None) -> int:
    """Print the completion script for one shell."""
    parser = argparse.ArgumentParser(
        prog="kb completion",
        description="Print the script that makes your shell complete kb's commands, options "
        "and rule ids (argcomplete). Load it from your shell's startup file: bash: "
        '`eval "$(kb completion bash)"` in ~/.bashrc; zsh: `eval "$(kb completion zsh)"` in '
        "~/.zshrc (after compinit); fish: `kb completion fish > "
        "~/.config/fish/completions/kb.fish`.",
    )
    parser.add_argument("shell", choices=SHELLS)
    args = parser.parse_args(argv)
    from argcomplete.shell_integration import shellcode

    print(shellcode(["kb", "kbkit"], shell=args.shell), end="")
    return 0
