"""Display and inline math blanked before the markdown parse: link syntax in TeX is no link;
prose, prices, code and an unclosed `$$` keep theirs (the real Sphinx with dollarmath judges
the fixture site: tests/sites/test_sphinx.py)."""

from __future__ import annotations

from kbkit.pages.math import blank_display_math
from kbkit.pages.page import parse_page


def targets(text: str) -> list[tuple[str, int]]:
    page = parse_page("p.md", text.encode())
    return [(link.target, link.line) for link in page.links]


def test_link_syntax_in_display_math_is_no_link() -> None:
    text = "# T\n\n$$\n[Q_t f](x) = 1\n$$\n\nAfter: [real](y.md)\n"
    assert targets(text) == [("y.md", 7)]  # line numbers stay


def test_a_one_line_block_and_inline_math_with_link_syntax() -> None:
    text = "$$ [a](x) $$\n\nSee $\\mathbb{E}[y](\\omega)$ and [z](z.md).\n"
    assert targets(text) == [("z.md", 3)]


def test_prices_code_and_an_unclosed_block_keep_their_links() -> None:
    prices = "It costs $5 and [a](a.md) costs $10.\n"
    assert targets(prices) == [("a.md", 1)]
    fenced = "```\n$$\n```\n\n[b](b.md)\n\n$$ no end\n\n[c](c.md)\n"
    assert targets(fenced) == [("b.md", 5), ("c.md", 9)]
    assert blank_display_math("$$\n[a](x)\n") == "$$\n[a](x)\n"  # no closing line
