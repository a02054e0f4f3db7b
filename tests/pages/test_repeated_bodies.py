"""kbkit.pages.repeated_bodies: a body parsed before takes its first parse's parts, and so do
a page's bytes read before; the memo stays bounded and turns itself off where nothing
repeats."""

from __future__ import annotations

from collections.abc import Callable

from kbkit.pages.page import parse_page
from kbkit.pages.repeated_bodies import RepeatedBodies

Parse = Callable[[str, int], tuple[str, int]]


def _counting() -> tuple[list[tuple[str, int]], Parse]:
    calls: list[tuple[str, int]] = []

    def parse(body: str, line: int) -> tuple[str, int]:
        calls.append((body, line))
        return (body.upper(), line)

    return calls, parse


def test_a_repeated_body_is_parsed_once_and_a_new_line_is_a_new_body() -> None:
    calls, parse = _counting()
    memo = RepeatedBodies()
    first = memo.parse("# A\n", 4, parse)
    again = memo.parse("# A\n", 4, parse)
    moved = memo.parse("# A\n", 6, parse)  # the same body under a longer front matter
    assert again is first
    assert moved == ("# A\n".upper(), 6)
    assert calls == [("# A\n", 4), ("# A\n", 6)]
    assert memo.hits == 1


def test_the_memo_stops_remembering_when_nothing_repeats() -> None:
    calls, parse = _counting()
    memo = RepeatedBodies(keep=16, probation=8)
    for number in range(7):
        memo.parse(f"page {number}\n", 1, parse)
    assert memo.on and len(memo.remembered) == 7
    memo.parse("page 7\n", 1, parse)
    assert not memo.on and memo.remembered == {}
    memo.parse("page 0\n", 1, parse)
    assert len(calls) == 9  # parsed again: nothing is remembered any more


def test_one_stray_repeat_does_not_keep_the_memo_on() -> None:
    # an empty page twice in a tree of unique pages: too few repeats to pay for the digests
    calls, parse = _counting()
    memo = RepeatedBodies(keep=4096, probation=64)
    memo.parse("", 1, parse)
    memo.parse("", 1, parse)
    for number in range(1, 64):
        memo.parse(f"page {number}\n", 1, parse)
    assert memo.hits == 1 and not memo.on and memo.remembered == {}


def test_a_memo_that_repeats_enough_stays_on_and_keeps_up_to_its_bound() -> None:
    calls, parse = _counting()
    memo = RepeatedBodies(keep=16, probation=4)
    for number in range(40):  # every page twice: one lookup in two hits
        memo.parse(f"page {number}\n", 1, parse)
        memo.parse(f"page {number}\n", 1, parse)
    assert memo.on and len(memo.remembered) == 16
    memo.parse("page 39\n", 1, parse)  # remembered
    memo.parse("page 0\n", 1, parse)  # forgotten: the oldest go first
    assert len(calls) == 41


def test_with_repeats_the_oldest_body_is_forgotten_first() -> None:
    calls, parse = _counting()
    memo = RepeatedBodies(keep=3)
    memo.parse("a", 1, parse)
    memo.parse("a", 1, parse)
    for body in ("b", "c", "d"):
        memo.parse(body, 1, parse)
    assert memo.on and len(memo.remembered) == 3
    memo.parse("a", 1, parse)  # forgotten: parsed again
    memo.parse("d", 1, parse)  # remembered
    assert [body for body, _ in calls] == ["a", "b", "c", "d", "a"]


def test_pages_read_through_the_memo_equal_pages_read_alone() -> None:
    memo = RepeatedBodies()
    body = "# Title\n\nSee [x](x.md) and <!-- note -->.\n\n```sh\nrun\n```\n\n[^1]: foot\n"
    for front in ("---\ntitle: a\n---\n", "---\ntitle: b\n---\n", "---\nms.date: 1\nx: 1\n---\n"):
        for _ in range(2):
            data = (front + body).encode()
            assert parse_page("v/p.md", data, memo) == parse_page("v/p.md", data)
    assert memo.pages.hits == 3  # each second read of the same bytes
    assert memo.hits == 1  # the body under another front matter of as many lines


def test_a_page_repeated_byte_for_byte_keeps_its_own_path() -> None:
    memo = RepeatedBodies()
    data = b"---\ntitle: a\n---\n# A\n\n[x](x.md)\n"
    first = parse_page("v1/p.md", data, memo)
    again = parse_page("v2/p.md", data, memo)
    assert memo.pages.hits == 1
    assert again.path == "v2/p.md"
    assert again == parse_page("v2/p.md", data)
    assert again._replace(path=first.path) == first


def test_the_same_bytes_read_as_mdx_and_as_markdown_are_told_apart() -> None:
    # MDX leaves its JavaScript lines out: the import is no paragraph there, and the link
    # written on the export line is no link
    memo = RepeatedBodies()
    data = b"import A from './a.md'\nexport const x = '[x](x.md)'\n\n# Title\n"
    for path in ("p.md", "p.mdx", "q.md", "q.mdx"):
        assert parse_page(path, data, memo) == parse_page(path, data)
    assert memo.pages.hits == 2
    assert parse_page("p.mdx", data, memo).links != parse_page("p.md", data, memo).links


def test_unreadable_bytes_are_never_remembered() -> None:
    memo = RepeatedBodies()
    for path in ("a.md", "b.md"):
        page = parse_page(path, b"\xff\xfe not utf-8", memo)
        assert page.error is not None and page.path == path
    assert memo.pages.remembered == {}
