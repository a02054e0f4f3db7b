"""The diff excerpt's file paths: read without their line end, so a file is classified by
its real name and the excerpt shows each path on one line."""

from __future__ import annotations

from kbkit.intake.diff_excerpt import DOCS, SOURCE, build_excerpt, split_hunks


def _diff(path: str, line: str) -> str:
    return f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n{line}\n"


def test_a_markdown_file_ranks_as_docs_after_source() -> None:
    diff = _diff("CHANGELOG.md", "+a note") + _diff("tools/x.py", "+x = 1")
    hunks = {h.path: h for h in split_hunks(diff)}
    assert set(hunks) == {"CHANGELOG.md", "tools/x.py"}  # no line end in the path
    assert (hunks["CHANGELOG.md"].rank, hunks["tools/x.py"].rank) == (DOCS, SOURCE)
    excerpt = build_excerpt(diff)
    assert excerpt.index("tools/x.py") < excerpt.index("CHANGELOG.md")
    assert "--- tools/x.py\n@@ -1 +1 @@\n+x = 1\n" in excerpt  # no blank line after the path


def test_crlf_headers_too() -> None:
    diff = _diff("docs/a.txt", "+x").replace("\n", "\r\n")
    assert [h.path for h in split_hunks(diff)] == ["docs/a.txt"]
