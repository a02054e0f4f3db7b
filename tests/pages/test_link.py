"""A link's own reading: whether it leaves the site (`Link.is_external`)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from kbkit.pages.link import Link, make_link

# what `is_external` answers, written as the one pattern it stands for
SCHEME_OR_PROTOCOL_RELATIVE = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.\-]*:|//)")


def test_schemes_and_protocol_relative_urls_are_external() -> None:
    for target in ("https://x.org/a", "mailto:a@b.c", "git+ssh:h", "//cdn.x/y.js", "C:x"):
        assert make_link(target, 1, False).is_external, target
    for target in ("a.md", "../b.md#c", "/docs/x", "a/b:c.md", "./x:y", "1a:b", ":x", "/"):
        assert not make_link(target, 1, False).is_external, target


@given(st.text(alphabet="ab1+.-:/#?%\\ é", max_size=12))
def test_is_external_answers_as_the_pattern(target: str) -> None:
    link = Link(target, 1, False, target)
    assert link.is_external == bool(SCHEME_OR_PROTOCOL_RELATIVE.match(target))
