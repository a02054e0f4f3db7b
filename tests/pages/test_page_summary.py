"""Page summaries: what cross-page checks read once a page's text is released."""

from __future__ import annotations

from kbkit.pages.page import parse_page
from kbkit.pages.page_summary import is_absolute, summarize


def test_relative_links_are_resolved_against_the_page_folder() -> None:
    page = parse_page(
        "knowledge/general/a/x.md",
        b"# X\n\n[i](_index.md) [up](../b/y.md#part) [web](https://e.org/z.md)\n"
        b"[abs](/etc/passwd) [frag](#top) [dot](./) [enc](a%23b.md) `[code](no.md)`\n",
    )
    summary = summarize("general/a/x.md", page)
    assert summary.error is None
    assert summary.links == (
        ("general/a/_index.md", 3, "_index.md"),
        ("general/b/y.md", 3, "../b/y.md#part"),
        ("general/a", 4, "./"),
        ("general/a/a#b.md", 4, "a#b.md"),
    )


def test_only_relative_paths_are_kept_whatever_the_target_starts_with() -> None:
    # external (a scheme, `//host`), absolute (`/`, `\\`, a drive letter), template code
    # and a colon later in a path: the first characters decide which tests a target needs
    page = parse_page(
        "knowledge/a/x.md",
        b"[s](mailto:a@b.org) [p](//host/x.md) [w](C:/x.md) [b](\\\\x.md) [r](/x.md)\n"
        b"[t]({{ site.url }}/x.md) [h](x{{ v }}.md) [c](dir/x:y.md) [k](y.md?v=1) [z](a{b}.md)\n",
    )
    assert summarize("a/x.md", page).links == (
        ("a/dir/x:y.md", 2, "dir/x:y.md"),
        ("a/y.md", 2, "y.md?v=1"),
        ("a/a{b}.md", 2, "a{b}.md"),
    )


def test_suppressions_carry_the_line_they_cover() -> None:
    page = parse_page(
        "knowledge/general/x.md",
        b"# X\n\n<!-- kb-disable-next-line tree/secret-ip: a documented example -->\n\n"
        b"10.1.2.3\n\n<!-- kb-disable-next-line -->\ntext\n",
    )
    assert summarize("general/x.md", page).suppressions == (
        (3, 5, "tree/secret-ip", "a documented example"),
        (7, 8, "", ""),
    )


def test_an_unreadable_page_keeps_only_its_error() -> None:
    page = parse_page("knowledge/general/x.md", b"\xff\xfe[a](b.md)")
    summary = summarize("general/x.md", page)
    assert summary.error is not None
    assert summary.links == () and summary.suppressions == ()


def test_absolute_targets() -> None:
    assert is_absolute("/x.md") and is_absolute("\\x.md") and is_absolute("C:/x.md")
    assert not is_absolute("//host/x.md") and not is_absolute("x.md") and not is_absolute("C:")
