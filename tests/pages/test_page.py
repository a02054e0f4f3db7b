"""The page model: one parse, file line numbers, CommonMark code, comments, bad bytes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbkit.pages.page import page_from_plain, page_to_plain, parse_page


def test_headings_code_and_lines_are_file_lines() -> None:
    text = (
        "---\ntitle: t\n---\n# Title\n\nIntro.\n\n## Group\n\n````md\n```\n# not a heading\n```\n"
        "````\n\n    indented code\n\n### REV-1a — rule\n"
    )
    page = parse_page("knowledge/x.md", text.encode())
    assert [(h.level, h.text, h.line) for h in page.headings] == [
        (1, "Title", 4),
        (2, "Group", 8),
        (3, "REV-1a — rule", 18),
    ]
    fenced, indented = page.code_blocks
    assert fenced.fenced and fenced.info == "md" and fenced.first_line == 11
    assert fenced.lines()[1] == (12, "# not a heading")
    assert not indented.fenced and indented.lines() == [(16, "indented code")]
    assert page.line_count == 18 and page.nonempty_lines == 13


def test_comments_inside_code_spans_are_text() -> None:
    page = parse_page(
        "x.md",
        b"See `<!-- kb-disable-next-line x: y -->` and <!-- real: one -->.\n\n<!-- block -->\n",
    )
    assert [(c.text, c.line) for c in page.comments] == [("real: one", 1), ("block", 3)]


def test_bom_and_crlf() -> None:
    page = parse_page("x.md", "\ufeff---\r\ntitle: t\r\n---\r\n# H\r\n[a](a.md)\r\n".encode())
    assert page.bom and page.error is None
    assert page.meta == {"title": "t"}
    assert [(link.target, link.line) for link in page.links] == [("a.md", 5)]


def test_bad_bytes_are_page_errors_not_exceptions() -> None:
    assert "UTF-8" in (parse_page("x.md", b"ok\n\xff\xfe\n").error or "")
    assert "line 2" in (parse_page("x.md", b"ok\n\xff\xfe\n").error or "")
    assert "binary" in (parse_page("x.md", b"\x89PNG\r\n\x00\x00").error or "")
    empty = parse_page("x.md", b"")
    assert empty.error is None and empty.line_count == 0 and not empty.frontmatter.present


def test_unclosed_fence_runs_to_the_end() -> None:
    page = parse_page("x.md", b"# A\n\n```\n[no](link.md)\n# no heading\n")
    assert page.links == () and [h.text for h in page.headings] == ["A"]


def test_plain_round_trip_is_lossless() -> None:
    page = parse_page("x.md", b"---\ntitle: t\ntags: [a]\n---\n# H\n\n[a](b.md)\n<!-- c -->\n")
    assert page_from_plain(page_to_plain(page)) == page


@given(st.text(alphabet=st.sampled_from("a \t\n\r\x0b\x0c\x1c\x85\xa0\u2028\u3000é"), max_size=40))
def test_lines_and_non_empty_lines_are_counted_as_stripping_each_line_would(text: str) -> None:
    from kbkit.pages.page import _counts

    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    assert _counts(text) == (len(lines), sum(1 for line in lines if line.strip()))
