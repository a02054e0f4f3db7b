"""kbkit.pages.repeated_bodies: a body parsed before takes its first parse's parts; the memo
stays bounded and turns itself off where nothing repeats."""

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
    memo = RepeatedBodies(keep=8)
    for number in range(9):
        memo.parse(f"page {number}\n", 1, parse)
    assert not memo.on and memo.remembered == {}
    memo.parse("page 0\n", 1, parse)
    assert len(calls) == 10  # parsed again: nothing is remembered any more


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
    for front in ("---\ntitle: a\n---\n", "---\ntitle: a\nms.date: 1\n---\n", ""):
        for _ in range(2):
            data = (front + body).encode()
            assert parse_page("v/p.md", data, memo) == parse_page("v/p.md", data)
    assert memo.hits == 3
