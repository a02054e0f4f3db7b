"""What the script shims in `tools/` run: one kb command on the repository they sit in."""

from __future__ import annotations

import os
import sys

from kbkit.__main__ import main


def run_shim(command: str, shim_file: str) -> int:
    """Run `kb COMMAND` with the shim's arguments; without `--repo`, check the repository
    that holds the shim (its folder's parent), whatever the current directory is."""
    args = sys.argv[1:]
    if not any(a == "--repo" or a.startswith("--repo=") for a in args):
        repo = os.path.dirname(os.path.dirname(os.path.abspath(shim_file)))
        args = ["--repo", repo, *args]
    return main([*command.split(), *args])
