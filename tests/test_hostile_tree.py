"""Acceptance (issue #10): `kb check` on a tree with a FIFO page, a page linked to /dev/zero,
a 50 MB page and pages shaped to make a pattern read them again and again (tags and comments
never closed, runs of JWT starts, attribute lists, thousands of equal headings:
`benchmarks/bench_hostile.py`) costs at most 2 s more than the same tree without them and
stays under 100 MB of peak RSS, cold and warm; measured on the real `kb` in its own
process."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from benchmarks.bench_hostile import EXTRA_SECONDS, RSS_LIMIT_MB, measure

pytestmark = pytest.mark.slow  # make test-all: times and measures a generated hostile tree


def test_a_hostile_tree_is_checked_in_bounded_time_and_memory(tmp_path: Path) -> None:
    figures = measure(tmp_path, 150, [sys.executable, "-m", "kbkit"])
    for mode, (clean_s, hostile_s, rss_mb) in figures.items():
        assert hostile_s - clean_s <= EXTRA_SECONDS, (mode, clean_s, hostile_s)
        assert rss_mb <= RSS_LIMIT_MB, (mode, rss_mb)
