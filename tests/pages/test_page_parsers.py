"""The native page parser (pulldown-cmark) against markdown-it-py, the fallback and oracle.

Each page body is parsed by both; headings, links (destination, line, kind), code blocks and
HTML comments must agree on the fuzz corpus, the real corpus and a synthetic tree, except
for the readings of the spec listed in NOTES.md ("Native parsers compared"): the inputs
that can reach one are skipped by `known_difference`, and each is pinned below.
Footnotes are checked against mdit-py-plugins' footnote plugin, heading anchors against its
anchors plugin.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from benchmarks.gen_tree import generate
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.footnote import footnote_plugin

from kbkit.pages import anchors, native, page
from kbkit.pages.frontmatter import split_frontmatter
from kbkit.pages.link import AUTOLINK, EMBED, INLINE, REFERENCE, WIKILINK, Footnote
from tests.conftest import CORPUS
from tests.reads_alike import joined

FRAGMENTS = (
    "---", "\n", "\n\n", "```", "````", "~~~", "    ", "  ", " ", "`", "[", "]", "(", ")",
    "<", ">", "![", "](x.md", ' "t")', "[r]: ", "#", "## ", "- ", "1. ", "* ", "|", "---|---",
    "<!-- c -->", "<!-- kb-disable-next-line x: y -->", "\\", "\\*", "中文", "a", "b.md", "_",
    "*", "&amp;", "%20", "=", "<http://a.b/c>", "<a@b.c>", "[a](b.md)", "[r]", "[[P]]",
)  # fmt: skip

bodies = st.lists(st.sampled_from(FRAGMENTS), max_size=50).map("".join)


def known_difference(body: str) -> bool:
    """Whether a body can reach one of the documented differences (NOTES.md)."""
    return bool(
        # 1. markdown-it lets a backslash escape a space, tab or line end in a destination
        re.search(r"\\[ \t\n]", body)
        # 2. markdown-it ends a reference definition's paragraph at an indented line
        or ("]:" in body and re.search(r"\n( {4}|\t)", body))
        # 3. a one-column "table" without a pipe in its delimiter row vs a setext heading
        or re.search(r"\|[^\n]*\n[ ]{0,3}[-=:| ]+[ ]*(\n|$)", body)
        # 4. tabs: pulldown-cmark keeps a tab after an ATX heading's closing sequence, and
        #    markdown-it drops a whitespace-only last line of an unclosed fence
        or "\t" in body
        # 5. markdown-it drops a last line of only spaces (no line end) from an open fence
        or re.search(r"\n[ ]+$", body)
        # 6. kbkit's markdown-it path reads `<!--` as a comment even inside a link's
        #    `<destination>`; pulldown-cmark sees the destination
        or re.search(r"\]\(\s*<!--", body)
        # 7. `[r]` followed by `[[...]]`: markdown-it drops the shortcut reference
        or "][[" in body
    )


def view(parts: Any) -> tuple[Any, ...]:
    headings, links, code, comments = (tuple(part) for part in parts[:4])
    return (
        tuple((h.level, h.text, h.line) for h in headings),
        links,
        code,
        comments,
    )


def assert_same(body: str, first_line: int = 1) -> None:
    got = view(native.parse(body, first_line))
    want = view(page._parse_body_markdown_it(body, first_line))
    assert got == want, body


@pytest.mark.slow
@settings(
    max_examples=400,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(bodies)
def test_native_parser_agrees_with_markdown_it_on_fuzzed_pages(body: str) -> None:
    assume(not known_difference(body))
    assert_same(body, 3)


def _bodies(paths: list[Path]) -> list[tuple[str, int]]:
    out = []
    for path in paths:
        text = path.read_text("utf-8").lstrip("\ufeff").replace("\r\n", "\n")
        front = split_frontmatter(text)
        out.append((text[front.body_offset :], 1 + text.count("\n", 0, front.body_offset)))
    return out


@pytest.mark.slow
def test_native_parser_agrees_with_markdown_it_on_a_synthetic_tree() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp), 150)
        for body, first in _bodies(sorted(Path(tmp).rglob("*.md"))):
            assert_same(body, first)


@pytest.mark.slow
@pytest.mark.corpus
def test_native_parser_agrees_with_markdown_it_on_the_corpus() -> None:
    if not CORPUS.is_dir():
        pytest.skip("corpus absent")
    pages = sorted(CORPUS.rglob("*.md"))
    assert pages
    for body, first in _bodies(pages):
        assert_same(body, first)


# -- the documented differences, each pinned with the reading that is right --------------


def _links(body: str) -> tuple[list[str], list[str]]:
    native_links = [link.target for link in native.parse(body, 1)[1]]
    fallback_links = [link.target for link in page._parse_body_markdown_it(body, 1)[1]]
    return native_links, fallback_links


def test_difference_backslash_before_a_space_in_a_destination() -> None:
    # CommonMark escapes only ASCII punctuation: `\ ` is a backslash, and the space ends the
    # destination, so this is a link with a title (pulldown-cmark, commonmark.js agree).
    native_links, fallback_links = _links('[a](x.md\\ "t")\n')
    assert native_links == ["x.md\\"]
    assert fallback_links == []


def test_difference_indented_line_after_a_reference_definition() -> None:
    # A definition is part of a paragraph; an indented line is its lazy continuation, not
    # code (spec 4.7: definitions are parsed from paragraphs). pulldown-cmark is right.
    body = "[r]: x.md\n    [l](y.md)\n"
    assert [c.fenced for c in native.parse(body, 1)[2]] == []
    assert [c.fenced for c in page._parse_body_markdown_it(body, 1)[2]] == [False]


def test_difference_one_column_table_without_a_pipe_in_the_delimiter_row() -> None:
    # GFM's table extension does not say whether `a|` over `---` is a table; markdown-it
    # reads a table, pulldown-cmark a setext heading. Rare on real pages, left as is.
    body = "a|\n---\n"
    assert [h.text for h in native.parse(body, 1)[0]] == ["a|"]
    assert page._parse_body_markdown_it(body, 1)[0] == ()


def test_difference_footnote_reference_inside_a_link_text() -> None:
    # pulldown-cmark, like cmark-gfm (GitHub), treats a footnote reference as a link, and
    # links cannot contain links: the outer image is text. The footnote plugin keeps it.
    body = "![a [^n] b](x.md)\n\n[^n]: t\n"
    native_links, fallback_links = _links(body)
    assert native_links == []
    assert fallback_links == ["x.md"]


def test_difference_shortcut_reference_followed_by_an_invalid_label() -> None:
    # `[[P]]` is no valid label (brackets), so `[r]` is a shortcut reference followed by
    # text: cmark (the spec's reference implementation) and pulldown-cmark give the link,
    # markdown-it-py gives none.
    native_links, fallback_links = _links("[r][[P]]\n\n[r]: x.md\n")
    assert native_links == ["x.md"]
    assert fallback_links == []


def test_difference_comment_inside_a_pointy_destination() -> None:
    # `<!-- c -->` in `[t](<!-- c -->)` is the link's destination; kbkit's markdown-it path
    # scans comments apart from links and also reports it as a comment.
    body = "[t](<!-- c -->)\n"
    assert native.parse(body, 1)[3] == []
    assert [c.text for c in page._parse_body_markdown_it(body, 1)[3]] == ["c"]


# -- footnotes, wikilinks, kinds, anchors -------------------------------------------------

# The tail rule would move definitions to the end and drop the ones never referenced.
FOOTNOTE_ORACLE = MarkdownIt("commonmark").enable("table").use(footnote_plugin)
FOOTNOTE_ORACLE.disable("footnote_tail")
FOOTNOTE_FRAGMENTS = ("[^n]", "[^n]: ", "[^long note]", "[^2]: x", "\n", "\n\n", "a ", "    ", "[r]: x.md\n", "[r]", "`")  # fmt: skip


def oracle_footnotes(body: str) -> tuple[list[str], list[str]]:
    """(definition labels, reference labels) by mdit-py-plugins' footnote plugin."""
    definitions: list[str] = []
    references: list[str] = []
    env: dict[str, Any] = {}
    for token in FOOTNOTE_ORACLE.parse(body, env):
        if token.type == "footnote_reference_open":
            definitions.append(token.meta["label"])
        for child in token.children or []:
            if child.type == "footnote_ref":
                references.append(child.meta["label"])
    return sorted(definitions), sorted(references)


@pytest.mark.slow
@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.lists(st.sampled_from(FOOTNOTE_FRAGMENTS), max_size=20).map("".join))
def test_footnotes_agree_with_the_footnote_plugin(body: str) -> None:
    # Skipped (NOTES.md): indented continuation lines, whose reading differs with the
    # plugin, and `[^n]` directly followed by `[` or `(`, which pulldown-cmark tries as a
    # link first (as cmark-gfm does).
    assume("    " not in body and not re.search(r"\[\^[^\]]*\][\[(]", body))
    notes = native.parse(body, 1)[4]
    definitions = sorted(n.label for n in notes if n.definition)
    references = sorted(n.label for n in notes if not n.definition)
    want_definitions, want_references = oracle_footnotes(body)
    assert definitions == want_definitions, body
    assert references == want_references, body


def test_a_footnote_definition_is_not_a_link_reference_definition() -> None:
    data = b"# T\n\nSee the note[^note] and [^note].\n\n[^note]: missing.md\n"
    parsed = page.parse_page("p.md", data)
    assert parsed.links == ()
    assert parsed.footnotes == (
        Footnote("note", 3, False),
        Footnote("note", 3, False),
        Footnote("note", 5, True),
    )


def test_wikilinks_with_alias_heading_and_embed() -> None:
    data = (
        b"# T\n\n[[Page]] and [[Other page|alias]]\n[[Guide#Setup]] ![[embed.png]]\n\n"
        b"`[[in code]]`\n\n```\n[[in fence]]\n```\n"
    )
    parsed = page.parse_page("p.md", data)
    found = [(w.target, w.path_part, w.line, w.image, w.kind) for w in parsed.wikilinks]
    assert found == [
        ("Page", "Page", 3, False, WIKILINK),
        ("Other page", "Other page", 3, False, WIKILINK),
        ("Guide#Setup", "Guide", 4, False, WIKILINK),
        ("embed.png", "embed.png", 4, True, EMBED),
    ]
    assert parsed.links == ()  # wikilinks never count as CommonMark links


def test_link_kinds() -> None:
    body = "[a](a.md) [b][r] [r] <http://x.y> <m@x.y> ![i](i.png)\n\n[r]: r.md\n"
    for parts in (native.parse(body, 1), page._parse_body_markdown_it(body, 1)):
        kinds = [(link.target, link.kind) for link in parts[1]]
        assert kinds == [
            ("a.md", INLINE),
            ("r.md", REFERENCE),
            ("r.md", REFERENCE),
            ("http://x.y", AUTOLINK),
            ("mailto:m@x.y", AUTOLINK),
            ("i.png", INLINE),
        ]


ANCHOR_ORACLE = MarkdownIt("commonmark").use(anchors_plugin, max_level=6)


def test_heading_anchors_agree_with_the_anchors_plugin() -> None:
    body = (
        "# Hello, World!\n\n## `code` and [a link](x.md)\n\n## Hello, World!\n\n"
        "### Ünïcode 中文 — dash\n\nSetext\n---\n\n## snake_case & 3.14\n"
    )
    want = [
        token.attrGet("id") for token in ANCHOR_ORACLE.parse(body) if token.type == "heading_open"
    ]
    for parts in (native.parse(body, 1), page._parse_body_markdown_it(body, 1)):
        assert list(anchors.page_anchors(h.plain for h in parts[0])) == want


def test_a_page_lists_its_anchors() -> None:
    parsed = page.parse_page("p.md", b"---\ntitle: x\n---\n# Setup\n\n## Setup\n\n## `kb check`\n")
    assert parsed.anchors() == ("setup", "setup-1", "kb-check")


def test_the_fallback_parses_when_the_native_wheel_cannot_be_imported(tmp_path: Path) -> None:
    data = (
        "---\ntitle: x\n---\n# T [l](a.md)\n\n[[W]] [^n]\n\n[^n]: note\n\n"
        "```sh\nrm -rf /\n```\n<!-- kb-disable-next-line x: y -->\n"
    )
    (tmp_path / "p.md").write_text(data)
    script = (
        "import sys; sys.modules['pyromark'] = None\n"
        "from kbkit.pages import page\n"
        "assert page.native_parser() is None\n"
        f"print(repr(page.parse_page('p.md', open({str(tmp_path / 'p.md')!r}, 'rb').read())))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert page.native_parser() is not None
    assert done.stdout.strip() == repr(page.parse_page("p.md", data.encode()))


def test_the_policy_has_the_wikilinks_switch_off_by_default() -> None:
    from kbkit.policy.model import builtin_policy

    assert builtin_policy("default").data["links"]["wikilinks"] is False


class FakePanic(BaseException):
    """Stands in for pyo3's PanicException, which a Rust panic raises (no input is known
    that makes pulldown-cmark panic, so the boundary is faked)."""


def test_a_page_the_native_parser_panics_on_is_parsed_by_markdown_it(monkeypatch) -> None:
    def panic(body: str, first: int) -> Any:
        raise FakePanic("index out of bounds")

    monkeypatch.setattr(page, "native_parser", lambda: panic)
    parsed = page.parse_page("p.md", b"# T\n\n[a](a.md)\n")
    assert [link.target for link in parsed.links] == ["a.md"]


@pytest.mark.parametrize("native_wheel", [True, False])
def test_footnotes_give_no_relative_links_to_check(monkeypatch, native_wheel: bool) -> None:
    # issue #12: `[^note]: missing.md` was read as a link reference definition, so each
    # `[^note]` became a broken link (tree/link-broken); now neither is a link.
    from kbkit.pages.page_summary import summarize

    if not native_wheel:
        monkeypatch.setattr(page, "native_parser", lambda: None)
    data = b"# T\n\nA claim[^note] and [a](a.md).\n\n[^note]: missing.md\n"
    summary = summarize("knowledge/p.md", page.parse_page("knowledge/p.md", data))
    assert [target for target, _, _ in summary.links] == ["knowledge/a.md"]


def test_external_destinations_are_normalized_as_markdown_it_does() -> None:
    body = "<HTTP://Example.COM/A> [b](http://ä.de/x) [c](http://a.b/c%20d) [j](javascript:x)\n"
    got = [link.target for link in native.parse(body, 1)[1]]
    assert got == [link.target for link in page._parse_body_markdown_it(body, 1)[1]]
    assert got == ["HTTP://Example.COM/A", "http://xn--4ca.de/x", "http://a.b/c d"]


def test_string_events_inside_headings_code_and_links_change_nothing() -> None:
    # kbkit.pages.native lets SoftBreak, HardBreak and Rule (string events) fall through its
    # key tests untyped: inside a setext heading, a link text, a table and after a fence
    # they must leave every part as markdown-it reads it.
    body = (
        "Title line one\nline two  \nline three\n===\n\n"
        "***\n\n[link\ntext](a.md) and ![alt\\\ntext](b.png)\n\n"
        "| a | b |\n|---|---|\n| [c](c.md) | `d` |\n\n"
        "```sh\nrm x\n```\n\n---\n\n## Code `x` and text\n\n<!-- note -->\n"
    )
    assert_same(body)
    assert_same(body, 7)


# -- wikilinks read in the same pass ------------------------------------------------------

_PIECES = (
    "[[A]]",
    "[[B|b]]",
    "![[i.png]]",
    "[[C#h]]",
    "[x](u.md)",
    "[x]",
    "[[x]]",
    "[y][x]",
    "[x]: r.md",
    "## H",
    "# T",
    "===",
    "---",
    "`c`",
    "`",
    "```",
    "> ",
    "- ",
    "    ",
    "[",
    "]",
    "(",
    ")",
    "*",
    "_",
    "[^1]",
    "[^1]: n",
    "<a>",
    "<!-- c -->",
    "text",
    " ",
    "\\",
    "<https://x.org>",
    "[[a <!-- c --> b]]",
    "[[A",
    "B]]",
    "[[a|b]]",
)


def _two_passes(body: str, line: int) -> Any:
    parts = native._parse(body, line, native._OPTIONS)
    if "[[" in body:
        parts[5].extend(native._wikilinks(body, body.encode("utf-8"), line))
    return parts


@given(
    st.lists(
        st.lists(st.sampled_from(_PIECES), max_size=6).map("".join), min_size=1, max_size=8
    ).map("\n".join)
)
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_wikilinks_read_in_one_pass_change_nothing(body: str) -> None:
    """A page whose wikilinks are read in the CommonMark pass (`_wikilinks_apart` false)
    has exactly the parts of two passes: a heading's text, its links and its wikilinks."""
    one = native.parse(body, 3)
    assert [tuple(part) for part in one] == [tuple(part) for part in _two_passes(body, 3)]


def test_most_vault_pages_are_read_once() -> None:
    assert not native._wikilinks_apart("See [[A]] and ![[i.png]].\n\n- [[B|b]]\n\n[x](y.md)\n")
    # a heading above a line of wikilinks, a link beside them
    assert not native._wikilinks_apart("## Section\nSee [[A]].\n")
    assert not native._wikilinks_apart("See [[A]] and [x](y.md), [y](u[1]).\n")
    assert not native._wikilinks_apart("Two views of [[Properties|properties]]:\n\n- [[A]]\n")
    for apart in ("## [[A]]\n", "[[A]](u)\n", "[see [[A]]](u)\n", "[x]: u\n\n[[x]]\n", "[[A\n"):
        assert native._wikilinks_apart(apart), apart
    # a `]` that may close the wikilink's own bracket; brackets a code span may hide
    for apart in ("![[i.png]]y](u)\n", "[[A]] x] [y](u)\n", "[`]` [[A]]](u)\n", "[[A]][y](u)\n"):
        assert native._wikilinks_apart(apart), apart
    assert native._wikilinks_apart("Title [[A]]\n===\n")


_BRACKET_PIECES = (
    "[[a]]", "[[b|c]]", "![[i.png]]", "[[d#h]]", "[x](u)", "[y](v.md)", "![i](p.png)", "[",
    "]", "(", ")", "[[", "]]", "!", "x", " ", "](", "](w)", "[z]", "*", "[^1]", "\n", "- ",
    "> ", "|", "a]", "[b", "((", "))", "[[a]]:", "]:", "\n[a]: v\n",
)  # fmt: skip


_SOME = st.lists(st.sampled_from(_BRACKET_PIECES), max_size=5).map("".join)


@given(_SOME, _SOME, _SOME, st.booleans())
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_wikilinks_beside_links_read_in_one_pass_change_nothing(
    before: str, between: str, after: str, link_first: bool
) -> None:
    """Where a paragraph holds both links and wikilinks, one pass reads what two do whenever
    `_in_or_before_a_link` lets it (300,000 generated bodies and every page with `[[` of 40
    public trees agreed when it was written)."""
    first, second = ("[x](u)", "[[a]]") if link_first else ("[[a]]", "[x](u)")
    body = before + first + between + second + after
    one = native.parse(body, 3)
    assert [tuple(part) for part in one] == [tuple(part) for part in _two_passes(body, 3)]


def test_brackets_in_code_blocks_need_no_wikilink_pass() -> None:
    body = "Syntax:\n\n```\nGet-Thing [[-Name] <String>]\n```\n\n    [[-Path] <String>]\n"
    assert native._only_in_code(body, 1, list(native._parse(body, 1, native._OPTIONS)[2]))
    assert native.parse(body, 1)[5] == []
    outside = body + "\nSee [[Page]] and [x](y.md).\n"
    assert not native._only_in_code(outside, 1, list(native._parse(outside, 1, native._OPTIONS)[2]))
    assert [link.target for link in native.parse(outside, 1)[5]] == ["Page"]


_HOSTS = ("example.com", "ä.de", "user@example.com", "ü@example.com", "a%b@ä.de", "x;y@ä.de",
          "example.com:8080", "ä.de:8080", "a'ä.de", "EXAMPLE.com")  # fmt: skip
_TAILS = ("", "/", "/ä/b", "/a?q=ü", "/a#ü", "\\ä", "/%C3%A4ü", "?ü", "#frag")


@pytest.mark.parametrize("scheme", ["http://", "HTTPS://", "mailto:", "ftp://"])
def test_non_ascii_web_addresses_are_normalized_as_markdown_it_does(scheme: str) -> None:
    # markdown-it is asked only for a host that is not ASCII: every other address keeps
    # its text, which the link's decoding makes what markdown-it's percent-encoding gives
    body = "".join(f"[x](<{scheme}{host}{tail}>)\n\n" for host in _HOSTS for tail in _TAILS)
    got = [(link.target, link.path_part) for link in native.parse(body, 1)[1]]
    want = [(link.target, link.path_part) for link in page._parse_body_markdown_it(body, 1)[1]]
    assert got == want


def test_a_non_ascii_path_on_an_ascii_host_leaves_markdown_it_unimported() -> None:
    code = (
        "import sys\nfrom kbkit.pages import native\n"
        "links = native.parse('[x](https://example.com/Załączniki/a.jpg)\\n', 1)[1]\n"
        "assert links[0].target == 'https://example.com/Załączniki/a.jpg', links\n"
        "print('markdown_it' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


_UNDERLINE_PIECES = ("=", "-", "==", "--", " ", "\t", ">", "\n", "x", "[[a]]", "]:", "]]:", "]")


@given(joined(_UNDERLINE_PIECES, 12))
@settings(max_examples=800, deadline=None)
def test_underline_and_definition_ends_are_found_as_their_patterns_find_them(text: str) -> None:
    """`_has_underline` and `_definition_end` answer as the `(?m)^` and lookbehind
    patterns they replace."""
    underline = re.search(r"(?m)^[ \t>]*(?:=+|-+)[ \t]*$", text) is not None
    assert native._has_underline(text) is underline, text
    assert native._definition_end(text) is (re.search(r"(?<!\])\]:", text) is not None), text
