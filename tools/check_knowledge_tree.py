#!/usr/bin/env python3
"""Shim with the name other knowledge repositories expect: `kb check-knowledge-tree`.

Without `--repo`, it checks the repository this file sits in (its parent's parent).
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
    raise SystemExit(main(["check-knowledge-tree", *args]))
