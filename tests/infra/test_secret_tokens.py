"""The shared secret-token rule set, with detect-secrets' regex plugins as the oracle."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbkit.infra.secret_tokens import FAMILIES, REDACTED, family_of, looks_secret, redact_secrets

plugins = pytest.importorskip("detect_secrets.plugins")
from detect_secrets.core.plugins.util import (  # noqa: E402
    get_mapping_from_secret_type_to_class,
)
from detect_secrets.plugins.base import RegexBasedDetector  # noqa: E402

# Detectors whose shapes we cover. Left out on purpose: keyword/entropy scanners (prose
# words are not secrets, #15), public IPs, and vendor key=value forms (IBM, Cloudant,
# SoftLayer) that the credential-name rule covers when the value looks like a secret.
COVERED = {
    "AWS Access Key",
    "Artifactory Credentials",
    "Azure Storage Account access key",
    "Basic Auth Credentials",
    "Discord Bot Token",
    "GitHub Token",
    "GitLab Token",
    "JSON Web Token",
    "Mailchimp Access Key",
    "NPM tokens",
    "OpenAI Token",
    "Private Key",
    "PyPI Token",
    "SendGrid API Key",
    "Slack Token",
    "Square OAuth Secret",
    "Stripe Access Key",
    "Telegram Bot Token",
    "Twilio API Key",
}
DETECTORS = {
    name: cls
    for name, cls in get_mapping_from_secret_type_to_class().items()
    if name in COVERED and issubclass(cls, RegexBasedDetector)
}

SAMPLES = {
    "github": "ghp_" + "Ab1" * 12,
    "github-fine-grained": "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv",
    "gitlab": "glpat-" + "x1Y2z3" * 4,
    "stripe": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "npm": "npm_" + "a1B2c3D4e5" * 3 + "f6G7h8",
    "slack": "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "azure": "AccountKey=" + "A1b2C3d4" * 11,
    "aws-access-key": "AKIAIOSFODNN7EXAMPLE",
    "aws-secret-key": 'aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"',
    "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "private-key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
    "openai": "sk-proj-" + "Zx9" * 10,
    "google": "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    "sendgrid": "SG." + "a" * 22 + "." + "B" * 43,
    "twilio": "SK" + "0123456789abcdef" * 2,
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_every_family_sample_is_redacted(name: str) -> None:
    token = SAMPLES[name]
    out = redact_secrets(f"found {token} in the logs")
    assert REDACTED in out or "[redacted private key]" in out
    secret = token.split("=", 1)[-1].strip(' "')
    assert secret[4:20] not in out
    assert out.startswith("found ")


def test_every_family_has_a_sample_or_an_oracle() -> None:
    names = {family.name for family in FAMILIES}
    assert {"github", "gitlab", "stripe", "npm", "slack", "azure", "jwt"} <= names
    assert {"aws-access-key", "aws-secret-key", "private-key"} <= names


@pytest.mark.parametrize(
    "text",
    [
        "token: expired after logout",
        "auth: bypass on /admin",
        "Cookie: missing SameSite",
        "author: alice wrote the handler",
        "session_id: not rotated",
        "session_id: always rotated",
        "the token bucket refills",
        "password: reset link never expires",
        "Bearer scheme accepted over http",
        "tokenizer=fast",
    ],
)
def test_prose_after_a_credential_name_is_kept(text: str) -> None:
    assert redact_secrets(text) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("password=hunter2 in config", "password=[redacted] in config"),
        ("session_id: 8f2a9c1e77 reused", "session_id: [redacted] reused"),
        ("Cookie: sid=Zm9vYmFyYmF6MTIz", "Cookie: [redacted]"),
        ("db_password: 'swordfish'", "db_password: [redacted]"),
        ("Authorization: Bearer abc123def456", "Authorization: Bearer [redacted]"),
        ("x-api-key=Q2xhdWRl", "x-api-key=[redacted]"),
        ("https://admin:s3cret@db.example.com/x", "https://[redacted]@db.example.com/x"),
    ],
)
def test_secret_values_are_redacted(text: str, expected: str) -> None:
    assert redact_secrets(text) == expected


def test_looks_secret() -> None:
    assert looks_secret("hunter2") and looks_secret("'a1b2c3d4'")
    assert looks_secret("Zm9vYmFyYmF6cXV4cXV1eA")  # long, high entropy
    assert not looks_secret("rotated") and not looks_secret("not")
    assert not looks_secret("expired") and not looks_secret("missing")


def test_family_of_names_the_family() -> None:
    assert family_of("x " + SAMPLES["gitlab"]) == "gitlab"
    assert family_of("plain prose with no token at all") is None


# Artifactory's `AP[0-9A-F]` + 8 letters also matches plain upper-case words
# (`APDEVELOPMENTS`): redacting those would eat prose, so that one shape is not followed.
NOT_FOLLOWED = {("Artifactory Credentials", r'(?:\s|=|:|"|^)AP[\dABCDEF][a-zA-Z0-9]{8,}(?:\s|"|$)')}


def _denylist() -> list[tuple[str, str]]:
    pairs = []
    for name, cls in sorted(DETECTORS.items()):
        for pattern in cls.denylist:
            if (name, pattern.pattern) not in NOT_FOLLOWED:
                pairs.append((name, pattern.pattern))
    assert len(pairs) >= 25  # the oracle really runs
    return pairs


@pytest.mark.slow
@pytest.mark.parametrize(("detector", "pattern"), _denylist())
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_what_detect_secrets_finds_we_redact(detector: str, pattern: str, data) -> None:
    """Strings generated from each covered detector's own regex: what it flags, we remove."""
    alphabet = st.characters(min_codepoint=0x20, max_codepoint=0x7E)
    token = data.draw(st.from_regex(re.compile(pattern), fullmatch=True, alphabet=alphabet))
    text = f"seen {token} here"
    found = [
        secret for secret in DETECTORS[detector]().analyze_string(text) if len(secret.strip()) >= 8
    ]
    out = redact_secrets(text)
    for secret in found:
        assert secret.strip() not in out, (detector, token, out)


def test_a_token_with_backslashes_is_redacted() -> None:
    """Square's secret alphabet (detect-secrets' pattern) includes a backslash; the quick
    pre-filter must not skip a token whose runs between backslashes are short."""
    token = "sq0csp-00000000\\000000000000000\\000000000000000\\00"
    assert redact_secrets(f"seen {token} here") == "seen [redacted] here"


# ---- shapes issue #26 found missed --------------------------------------------------------

AWS_ID, AWS_SECRET = "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        ('{"password": "Tr0ub4dor&3"}', "Tr0ub4dor"),
        ("{'api_key': 'Q2xhdWRlQ29kZQ'}", "Q2xhdWRl"),
        ("redis://:s3cretpass@cache.internal:6379/0", "s3cretpass"),
        ("password=Tr0ub4dor&3xyz in the env file", "3xyz"),
        (f"{AWS_ID} {AWS_SECRET}", AWS_SECRET[:12]),
        (f"key id {AWS_ID}, secret {AWS_SECRET}", AWS_SECRET[:12]),
        (f"{AWS_SECRET} belongs to {AWS_ID}", AWS_SECRET[:12]),
    ],
)
def test_the_missed_shapes_are_redacted(text: str, gone: str) -> None:
    out = redact_secrets(text)
    assert gone not in out and REDACTED in out, out
    assert AWS_ID not in out


def test_query_parameters_after_a_password_survive() -> None:
    assert redact_secrets("a=1&password=hunter22&user=bob") == "a=1&password=[redacted]&user=bob"


def test_a_git_sha_next_to_an_access_key_id_is_kept() -> None:
    sha = "3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a"
    assert redact_secrets(f"{AWS_ID} commit {sha}") == f"{REDACTED} commit {sha}"


def test_detect_secrets_keyword_detector_agrees_on_the_json_and_url_shapes() -> None:
    """What detect-secrets' keyword and basic-auth plugins flag in these texts, we remove."""
    from detect_secrets.plugins.basic_auth import BasicAuthDetector
    from detect_secrets.plugins.keyword import KeywordDetector

    texts = [
        '{"password": "Tr0ub4dor&3"}',
        'db_password = "swordfish42"',
        "https://u:pa55w0rd@x.io/",
    ]
    for text in texts:
        found = [*KeywordDetector().analyze_string(text), *BasicAuthDetector().analyze_string(text)]
        assert found, text  # the oracle flags each of them
        out = redact_secrets(text)
        for secret in found:
            assert secret not in out, (text, out)


@settings(max_examples=60, deadline=None)
@given(
    secret=st.text(
        alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+",
        min_size=40,
        max_size=40,
    ).filter(lambda s: any(c.isupper() for c in s) and any(c.islower() for c in s)),
    between=st.sampled_from([" ", ", ", " secret ", ":", " / ", "\t"]),
    reverse=st.booleans(),
)
def test_an_aws_secret_next_to_its_key_id_is_redacted(secret: str, between: str, reverse: bool):
    text = f"{secret}{between}{AWS_ID}" if reverse else f"{AWS_ID}{between}{secret}"
    out = redact_secrets(f"seen {text} here")
    assert secret not in out and AWS_ID not in out, out


_RUN_PATTERN = re.compile(r"[A-Za-z0-9_+/=.\\-]{16}")


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.text(
        alphabet=st.sampled_from(list("aZ09_+/=.\\- \n:é€😀\ud800Ａ１ß")),
        max_size=80,
    )
)
def test_the_fast_run_test_answers_as_the_pattern(text: str) -> None:
    """The byte-mapped search for 16 token characters in a row says what the pattern says,
    with non-ASCII letters and digits (which the pattern's ranges leave out) and lone
    surrogates in the text."""
    from kbkit.infra.secret_tokens import _has_run

    assert _has_run(text) is (_RUN_PATTERN.search(text) is not None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a" * 15, False),
        ("a" * 16, True),
        ("x " + "Ab9_+/=.\\-" * 2, True),
        ("é" * 40, False),
        ("abcdefgh\u00e9ijklmnopq", False),  # the é breaks the run
        ("Ａ" * 20, False),  # full-width letters are not token characters
    ],
)
def test_a_run_of_16_token_characters(text: str, expected: bool) -> None:
    from kbkit.infra.secret_tokens import _has_run

    assert _has_run(text) is expected


@pytest.mark.parametrize("elsewhere", ["", "\n" + "x" * 16 + "\n"])
def test_a_token_is_found_whatever_else_the_text_holds(elsewhere: str) -> None:
    # npm's `_authToken=` with a blank and a short value holds no run of 16 token
    # characters: it was found only when some other line of the page held one
    from kbkit.infra.secret_tokens import token_hits

    text = "npmrc: _authToken= abc123\n" + elsewhere
    hits = [(hit.family, text[hit.start : hit.end]) for hit in token_hits(text)]
    assert hits == [("npm", "_authToken= abc123")]
