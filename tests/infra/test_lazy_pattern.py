"""`lazy(pattern, flags)` answers as `re.compile(pattern, flags)` does, compiling on first use."""

from __future__ import annotations

import re

import pytest

from kbkit.infra.lazy_pattern import lazy

CASES = [
    (r"(?P<word>[a-z]+)-(\d+)", 0, "x abc-12 de-3 Q-4"),
    (r"^title[ \t]*:[ \t]*(.*)$", re.M, "a: 1\ntitle: B\ntitle:C\n"),
    (r"bearer\s+(\S+)", re.I, "BEARER abc, bearer def"),
    (r".+", re.S, "one\ntwo"),
    ("[\u200b-\u200f\ud800-\udfff]", 0, "a\u200bb\u200ec"),
]


@pytest.mark.parametrize(("pattern", "flags", "text"), CASES)
def test_every_method_answers_as_the_compiled_pattern(pattern, flags, text):
    for method in ("search", "match", "fullmatch", "findall", "split"):
        expected = getattr(re.compile(pattern, flags), method)(text)
        got = getattr(lazy(pattern, flags), method)(text)
        if isinstance(expected, re.Match):
            assert (got.span(), got.groups()) == (expected.span(), expected.groups())
        else:
            assert got == expected
    compiled, waiting = re.compile(pattern, flags), lazy(pattern, flags)
    assert [m.span() for m in waiting.finditer(text)] == [m.span() for m in compiled.finditer(text)]
    assert waiting.sub("<\\g<0>>", text) == compiled.sub("<\\g<0>>", text)
    assert waiting.subn("", text) == compiled.subn("", text)
    assert waiting.groups == compiled.groups
    assert dict(waiting.groupindex) == dict(compiled.groupindex)


def test_positions_and_the_source_stay_available():
    waiting = lazy(r"b+")
    assert waiting.pattern == r"b+"  # read before compiling (patterns built from patterns)
    assert waiting.match("abbb", 1).group(0) == "bbb"
    assert waiting.search("abbb", 0, 2).span() == (1, 2)


def test_nothing_is_compiled_before_first_use():
    waiting = lazy(r"(unclosed")  # a bad pattern raises only when first used
    assert "search" not in vars(waiting)
    with pytest.raises(re.error):
        waiting.search("x")
    used = lazy(r"x")
    used.search("x")
    assert "search" in vars(used)  # the compiled pattern's own method from then on
