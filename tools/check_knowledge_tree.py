#!/usr/bin/env python3
"""Shim with the name other knowledge repositories expect: `kb check-knowledge-tree`."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from kbkit.shims import run_shim  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(run_shim("check-knowledge-tree", __file__))
