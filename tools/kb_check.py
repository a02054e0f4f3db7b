#!/usr/bin/env python3
"""Shim for `kb check` (both validators, one process, one parse) that runs from a checkout.

It needs only kbkit's runtime dependencies, not an installed kbkit: the pre-commit hook of
this repository calls it. Without `--repo`, it checks the repository this file sits in.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from kbkit.__main__ import main  # noqa: E402

if __name__ == "__main__":
    args = sys.argv[1:]
    if not any(a == "--repo" or a.startswith("--repo=") for a in args):
        args = ["--repo", os.path.dirname(HERE), *args]
    raise SystemExit(main(["check", *args]))
