#!/usr/bin/env python3
"""Shim for the local pre-commit hook: `kb intake check` (every ledger line against its schema)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from kbkit.shims import run_shim  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(run_shim("intake check", __file__))
