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


def test_pyyaml_reader_pattern_waits_for_its_first_use_and_then_refuses_as_before() -> None:
    """kbkit defers PyYAML's printable-character pattern (7 ms at import): the seed matches
    the installed PyYAML's pattern, and its reader still refuses what it refused."""
    import subprocess
    import sys

    import yaml
    from yaml.reader import Reader

    # as a kb command imports them: kbkit first (a test process may have imported yaml first)
    shown = subprocess.run(
        [sys.executable, "-c", "import kbkit, yaml; print(type(yaml.reader.Reader.NON_PRINTABLE))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "kbkit.infra.lazy_pattern._Deferred" in shown
    with pytest.raises(yaml.YAMLError, match="#x0007: special characters are not allowed"):
        yaml.load("a: \x07b\n", Loader=yaml.SafeLoader)  # noqa: S506 - the safe loader
    assert yaml.load("a: é\U0001f600\n", Loader=yaml.SafeLoader) == {"a": "é\U0001f600"}  # noqa: S506
    plain = re.compile(Reader.NON_PRINTABLE.pattern, re.UNICODE)
    for text in ("ok\ttext\n", "bell\x07", "\ufffe", "\x85\u2028", "\ud800"):
        found, expected = Reader.NON_PRINTABLE.search(text), plain.search(text)
        assert (found and found.span()) == (expected and expected.span())


def test_a_deferred_pattern_is_compiled_once_and_never_answers_for_itself() -> None:
    from kbkit.infra.lazy_pattern import defer_compile

    pattern = "kbkit-deferred-test-[0-9]+"
    defer_compile(pattern)
    waiting = re.compile(pattern)
    found = waiting.search("x kbkit-deferred-test-42 y")
    assert found is not None and found.span() == (2, 24)
    assert waiting.fullmatch("kbkit-deferred-test-7") is not None
    assert re.compile(pattern) is waiting  # still the one in the cache, compiled once
