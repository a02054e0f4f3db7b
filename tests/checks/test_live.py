"""The in-memory tree an editor keeps (`kbkit.checks.live`), held to the whole-tree check:
after every edit its findings equal those of `kb check` on the same texts written to disk
(at once when the edit is exact, after `refresh()` otherwise)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from tests.kbtree import make_tree, page_text

from kbkit.checks.live import LiveTree
from kbkit.checks.runner import run_validators
from kbkit.policy.model import load_policy

TODAY = date(2026, 11, 30)
BODY = "A paragraph long enough to count as a page body for the duplicate check. " * 4


def _on_disk(repo: Path) -> list:
    findings, _ = run_validators(repo, load_policy(repo, None), ("tree", "lint"), TODAY, False)
    return findings


def test_every_edit_matches_the_whole_tree_check(tmp_path: Path) -> None:
    repo = make_tree(tmp_path / "team", {"a": BODY, "b": "Other text.", "c": "See [a](a.md)."})
    live = LiveTree(repo, load_policy(repo, None), TODAY)
    assert live.findings == _on_disk(repo) == []
    b = repo / "knowledge/general/b.md"
    edits = [
        ("b.md", page_text("B", "Other text, edited."), True),  # a paragraph: exact at once
        ("b.md", page_text("B", BODY), True),  # now a copy of a.md: a duplicate, at once
        ("b.md", page_text("B", "Different again."), True),  # no longer a duplicate
        ("c.md", page_text("C", "See [a](a.md) and [gone](gone.md)."), False),  # a link
        ("b.md", page_text("B", "<!-- kb-disable-next-line tree/link-broken: x -->\nText."), False),
        ("c.md", page_text("C", "See [a](a.md#nowhere)."), False),
    ]
    for name, text, exact in edits:
        page = repo / "knowledge/general" / name
        update = live.update(f"general/{name}", text)
        page.write_text(text)
        assert update.exact is exact, name
        if not exact:
            live.refresh()
        assert live.findings == _on_disk(repo), text
    assert b.read_text().startswith("---")
    rules = sorted(f.rule_id for f in live.findings)
    assert rules == ["kb/suppression-unused"]  # (anchors are off by default)
