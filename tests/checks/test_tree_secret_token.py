"""`tree/secret-token`: the credential families of lessons redaction, found in pages (#28).

Tokens are built from pieces at run time so that the repository holds none a scanner reads
as a live credential.
"""

from __future__ import annotations

import pytest

from kbkit.checks.rules.tree.secrets import secret_findings
from kbkit.infra.secret_tokens import FAMILIES, is_example_token, token_hits
from kbkit.policy.model import builtin_policy

DEFAULT = builtin_policy("default")
GITHUB = "ghp" + "_" + "R8c2mVq7XkTz4Lp9WbN3sHd6Jf1Ya0Ue5GiQ"
AWS = "AKIA" + "4MQ7ZJ2W8RXP6TKY"
STRIPE = "sk" + "_live_" + "51Hc8qLwXv3Zr7Tn2Kp9Md4F"
SLACK = "xox" + "b-2048571934-8410375261-Vq3Kp7Wz9Lm2Xr5Tn8Bd4Hc"


def tokens(text: str) -> list[tuple[int, str]]:
    return [(f.line, f.message) for f in secret_findings("p.md", text, DEFAULT)]


def test_a_newcomers_commit_with_three_tokens_is_caught() -> None:
    text = f"# Notes\n\ntoken: {GITHUB}\n\naws {AWS}\n\n`stripe.api_key = '{STRIPE}'`\n"
    found = tokens(text)
    assert [line for line, _ in found] == [3, 5, 7]
    assert [m.split(" ", 1)[0] for _, m in found] == ["GitHub", "AWS", "Stripe"]


def test_the_message_never_repeats_the_token() -> None:
    for text in (GITHUB, AWS, STRIPE, SLACK):
        (_, message), *_ = tokens(f"x {text} y")
        assert text not in message and text[:4] in message


@pytest.mark.parametrize(
    "stand_in",
    [
        "ghp_" + "x" * 36,
        "ghp_" + "0123456789abcdefghij0123456789abcdef",
        "AKIAIOSFODNN7EXAMPLE",  # AWS's own documentation key
        "sk_live_" + "YOUR_SECRET_KEY_HERE_1234",
        "xoxb-" + "your-bot-token-goes-here",
        # jwt.io's sample token (subject 1234567890)
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9l"
        "IiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    ],
)
def test_documentation_stand_ins_are_not_tokens(stand_in: str) -> None:
    assert tokens(f"use {stand_in} here") == []


def test_a_private_key_block_is_its_own_rule() -> None:
    key = (
        "-----BEGIN RSA PRIVATE KEY-----\n"
        + "MIIEowIBAAKCAQEA7b" * 4
        + "\n-----END RSA PRIVATE KEY-----\n"
    )
    rules = {f.rule_id for f in secret_findings("p.md", key, DEFAULT)}
    assert rules == {"tree/secret-private-key"}


def test_hits_are_the_redaction_families_in_text_order() -> None:
    text = f"{STRIPE} then {GITHUB}"
    assert [hit.family for hit in token_hits(text)] == ["stripe", "github"]
    assert {name for name, _ in FAMILIES} >= {hit.family for hit in token_hits(text)}
    assert not is_example_token(GITHUB) and not is_example_token(AWS)


def test_prose_without_tokens_costs_no_family_search() -> None:
    assert token_hits("Plain prose about tokens, keys and passwords.") == []
