"""Outside text on each surface (`kbkit.infra.outward`): one line, nothing that acts, the
words still shown; markdown checked with two real CommonMark renderers."""

from __future__ import annotations

import json
import re

import pyromark
import pytest
from markdown_it import MarkdownIt

from kbkit.infra import outward

BREAKS = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x85", "\u2028", "\u2029", "\x1c", "\x1d", "\x1e"]
PAYLOAD = (
    "![passed](https://img.shields.io/badge/kb-passed-green) [click](https://evil.example) "
    "<img src=x> <a href=https://evil.example>x</a> <https://auto.example> www.evil.example "
    "me@evil.example _https://under.example [ref][1] @someone @org/team owner/repo#12 "
    "`code` *em* | cell $\\color{green}\\text{passed}$"
)


@pytest.mark.parametrize("brk", BREAKS)
def test_no_line_break_survives_on_any_line_surface(brk: str) -> None:
    text = f"a{brk}kbkit check passed"
    for surface in (outward.line, outward.annotation, outward.markdown, outward.sarif):
        shown = surface(text)
        assert shown.splitlines() == [shown], (surface.__name__, shown)
        assert "kbkit check passed" in shown  # the words are still there


def test_line_shows_controls_bidi_and_undecodable_bytes_as_tokens() -> None:
    assert outward.line("a\nb") == "a\\nb"
    assert outward.line("x\x1b[2Ky\u202ez\x9b\x07") == "x<U+001B>[2Ky<U+202E>z<U+009B><U+0007>"
    assert outward.line("caf\udce9.md") == "caf\\xe9.md"  # surrogateescape'd byte 0xe9
    assert outward.line("tab\tstays") == "tab\tstays"


def test_annotation_percent_encodes_what_github_decodes() -> None:
    assert outward.annotation("50% a\r\nb") == "50%25 a%0D%0Ab"
    assert outward.annotation("x\u2028y") == "x<U+2028>y"
    assert outward.annotation_property("a,b:c") == "a%2Cb%3Ac"


def _renderings(markdown: str) -> list[str]:
    options = (
        pyromark.Options.ENABLE_TABLES | pyromark.Options.ENABLE_GFM | pyromark.Options.ENABLE_MATH
    )
    return [
        pyromark.html(markdown, options=options),
        MarkdownIt("commonmark").enable("table").render(markdown),
    ]


def _outside_code(html: str) -> str:
    return re.sub(r"<code>.*?</code>", "", html, flags=re.S)


def test_markdown_renders_no_image_link_html_or_mention() -> None:
    cell = outward.markdown(PAYLOAD)
    document = f"| message |\n|---|\n| {cell} |\n"
    for html in _renderings(document):
        assert "<img" not in html and "<a" not in html, html
        assert html.count("<td>") == 1  # one cell: `|` in the text made no second one
        bare = _outside_code(html)
        # what GitHub would link by itself sits in code spans only (never linked there)
        for address in ("https://", "www.evil", "me@evil.example", "under.example"):
            assert address not in bare, (address, html)
        # the words are shown
        assert "passed" in html and "click" in html and "img src=x" in html
        assert "@\u200bsomeone" in html or "@&#8203;someone" in html
        assert "@someone" not in html and "#12" not in html
        assert "math" not in html and "$\\color{green}" in html  # shown, not typeset


def test_markdown_cannot_start_a_line_or_a_heading() -> None:
    cell = outward.markdown("x\n### kbkit check passed\n<script>")
    assert "\n" not in cell
    for html in _renderings(cell):
        assert "<h3" not in html and "<script" not in html


def test_sarif_message_text_has_no_embedded_link() -> None:
    text = outward.sarif("see [click](https://evil.example) and \\[x\\]\nnext")
    # SARIF 3.11.6: an embedded link is `[text](target)` with unescaped brackets
    assert not re.search(r"(?<!\\)\[[^\]]*(?<!\\)\]\(", text), text
    assert text == "see \\[click\\](https://evil.example) and \\\\\\[x\\\\\\]\\\\nnext"


def test_json_text_keeps_the_values_exact() -> None:
    value = {"path": "a\nb\x1b\x85\u202e\u2028\udce9.md"}
    document = outward.json_text(json.dumps(value, ensure_ascii=False))
    assert not re.search("[\x00-\x1f\x7f-\x9f\u2028\u202e\ud800-\udfff]", document)
    assert json.loads(document) == value
