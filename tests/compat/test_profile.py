"""The `infermatrix-sdk` profile's rule shape, checked by kbkit's own section checker."""

from __future__ import annotations

from kbkit.curator.layout import id_prefix
from kbkit.curator.section import check_section
from kbkit.policy.model import builtin_policy

TWO_BULLETS = (
    "## X-2 — merged fixes pin their regression\n\n"
    "- Trigger: a merged bugfix exposes a reusable failure mode.\n"
    "- Required: pin the failing path before accepting the fix. ^[PR #7]"
)


def _check(text: str, profile: str) -> tuple[object, tuple[str, ...]]:
    return check_section(
        text,
        rule_id="X-2",
        title="merged fixes pin their regression",
        level=2,
        separator="—",
        policy=builtin_policy(profile),
    )


def test_the_sdk_profile_accepts_a_trigger_and_required_section():
    assert _check(TWO_BULLETS, "infermatrix-sdk") == (None, ("PR #7",))


def test_the_default_profile_still_requires_all_four_bullets():
    problem, _ = _check(TWO_BULLETS, "default")

    assert problem is not None and problem.reason == "bullets"


def test_the_sdk_profile_refuses_the_default_labels():
    problem, _ = _check(TWO_BULLETS.replace("Required:", "Must:"), "infermatrix-sdk")

    assert problem is not None and problem.reason == "bullets"


def test_an_id_without_a_letter_has_the_prefix_before_its_number():
    assert id_prefix("X-2") == "X"
    assert id_prefix("GENERAL-12") == "GENERAL"
    assert id_prefix("ABC-2c") == "ABC"  # the default shape is unchanged
