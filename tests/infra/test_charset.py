"""The invisible-character guard against Unicode's own property table (the `regex` library)."""

from __future__ import annotations

import sys

import pytest
import regex

from kbkit.infra.charset import INVISIBLE, strip_invisible, visible

ORACLE = regex.compile(r"[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Zl}\p{Zp}]")


@pytest.mark.slow
def test_every_default_ignorable_and_control_character_is_invisible() -> None:
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        if char in "\t\n":
            assert not INVISIBLE.match(char)
            continue
        if ORACLE.match(char):
            assert INVISIBLE.match(char), f"U+{code:04X} is default-ignorable or a control"


@pytest.mark.slow
def test_nothing_visible_is_matched() -> None:
    extra = {0xFFF9, 0xFFFA, 0xFFFB}  # interlinear annotations: not ignorable, but they hide
    for code in range(sys.maxunicode + 1):
        if INVISIBLE.match(chr(code)) and code not in extra:
            assert ORACLE.match(chr(code)), f"U+{code:04X} is visible text"


def test_tags_variation_selectors_and_hangul_fillers_are_shown_and_stripped() -> None:
    hidden = "ok\U000e0069\U000e0067\ufe0f\u3164\u115f!"
    assert visible(hidden) == "ok<U+E0069><U+E0067><U+FE0F><U+3164><U+115F>!"
    assert strip_invisible(hidden) == "ok!"
