"""Posted text: copied mentions and references read the same and are never live."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbkit.infra.inert import ENTITY, ZWSP, markdown, plain

LIVE = re.compile(r"(?<![A-Za-z0-9_.+\-/@`])@[A-Za-z0-9]|(?<!&)#\d|(?<![A-Za-z0-9_])[Gg][Hh]-\d")


def test_mentions_and_references_are_broken_in_markdown() -> None:
    text = "Thanks @alice and @org/team: fixes #12, acme/app#7 and GH-3 (gh-4)."
    out = markdown(text)
    assert out == (
        f"Thanks @{ENTITY}alice and @{ENTITY}org/team: fixes #{ENTITY}12, "
        f"acme/app#{ENTITY}7 and GH{ENTITY}-3 (gh{ENTITY}-4)."
    )
    assert ZWSP not in out  # the markdown source holds no invisible character


def test_plain_text_gets_the_character_itself() -> None:
    assert plain("Fix login (#0) for @bob") == f"Fix login (#{ZWSP}0) for @{ZWSP}bob"


def test_what_is_not_a_reference_stays() -> None:
    for text in [
        "mail me@example.com or <ops@example.com>",
        "## Heading and # comment",
        "C# and F#, issue#",
        "see https://github.com/acme/app/pull/12#issuecomment-99 and https://x.dev/#123",
        "entity &#8203; stays",
        "WGH-12 and GHz-3",
    ]:
        assert markdown(text) == text, text
        assert plain(text) == text, text


def test_code_is_left_alone_in_markdown() -> None:
    text = "`@alice #1`\n```\n@bob fixes #2\n```\n~~~~\n@carol\n~~~~\nafter @dave\n"
    assert markdown(text) == text.replace("@dave", f"@{ENTITY}dave")


def test_plain_leaves_urls() -> None:
    assert plain("see https://x.dev/p#12 and #12") == f"see https://x.dev/p#12 and #{ZWSP}12"


@pytest.mark.slow
@given(st.text(alphabet="@#GHgh-/ab1`&;\n 8203", max_size=60))
def test_inert_text_is_inert_and_stable(text: str) -> None:
    """Whatever the input, nothing live is left outside code, and a second pass changes
    nothing."""
    for make, mark in ((markdown, ENTITY), (plain, ZWSP)):
        once = make(text)
        assert make(once) == once
        if mark not in text:
            assert once.replace(mark, "") == text  # only the marks were added
    assert LIVE.search(plain(text)) is None
