"""One rule set for credentials in free text: token families and secret-looking values.

Every guard that must keep secrets out of stored or rendered text (lessons today, the
trust checks next) uses these rules, so a family added here is covered everywhere. The
families follow detect-secrets' plugins (its regex detectors are the oracle of
`tests/infra/test_secret_tokens.py`); detect-secrets itself scans about 70 s per 100k short texts
on this machine, so the patterns are hand-written and run as one alternation.

Callers normalise first (`kbkit.infra.charset.strip_invisible`): a zero-width character inside a
token would otherwise split it below every pattern's minimum length.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from typing import NamedTuple

REDACTED = "[redacted]"
REDACTED_KEY = "[redacted private key]"


class Family(NamedTuple):
    """A named token shape; `pattern` matches exactly the text to replace."""

    name: str
    pattern: str


# Leading lookbehinds instead of \b: a token glued to a letter after an invisible character
# was stripped must still match, and most families need no trailing boundary.
_B = r"(?<![A-Za-z0-9_])"
_AWS_ID = r"(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}"
_AWS_SECRET = (
    r"(?<![0-9A-Za-z/+])(?=[0-9A-Za-z/+]{0,39}[A-Z])(?=[0-9A-Za-z/+]{0,39}[a-z])"
    r"[0-9A-Za-z/+]{40}(?![0-9A-Za-z/+])"
)

FAMILIES: tuple[Family, ...] = (
    Family(
        "private-key",
        # a header alone (no dashes, no end line) still takes the rest of the text
        r"(?:-----)?BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?.*?"
        r"(?:END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?(?:-----)?|$)",
    ),
    Family("putty-key", r"PuTTY-User-Key-File-\d.*$"),
    Family("github", _B + r"(?:gh[pousr]_[A-Za-z0-9_]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
    Family(
        "gitlab",
        _B + r"(?:(?:glpat|gldt|glft|glsoat|glrt|glcbt|glimt|glptt|glagent|gloas)-"
        r"[A-Za-z0-9_-]{20,}|GR1348941[A-Za-z0-9_-]{20,})",
    ),
    Family("stripe", _B + r"[rs]k_(?:live|test)_[0-9A-Za-z]{16,}"),
    Family("npm", _B + r"npm_[A-Za-z0-9]{36}|_authToken=\s*\S+"),
    Family(
        "slack",
        _B + r"xox[abposr]-(?:[0-9]+-)+[A-Za-z0-9]+|xox[abposr]-[A-Za-z0-9-]{10,}"
        r"|https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+",
    ),
    Family("azure", r"(?i:AccountKey|SharedAccessKey)=[A-Za-z0-9+/=]{20,}"),
    # a secret access key written next to its key id, in either order: both go (the
    # secret alone has no shape of its own; 40 characters of mixed-case base64)
    Family(
        "aws-key-pair",
        _B
        + _AWS_ID
        + r"(?![0-9A-Z])(.{0,40}?)"
        + _AWS_SECRET
        + r"|"
        + _AWS_SECRET
        + r"(.{0,40}?)"
        + _B
        + _AWS_ID
        + r"(?![0-9A-Z])",
    ),
    Family("aws-access-key", _B + _AWS_ID),
    Family(
        "aws-secret-key",
        r"(?i:aws.{0,20}?(?:secret|key|pwd|pw|password|pass|token).{0,20}?)"
        r"(?:[\"']|(?::=|=>|[:=])\s*)[0-9A-Za-z/+]{40}(?![0-9A-Za-z/+])",
    ),
    Family(
        "jwt",
        _B + r"eyJ[A-Za-z0-9_=-]{8,}\.[A-Za-z0-9_=-]{4,}(?:\.[A-Za-z0-9_+/=-]*)?",
    ),
    Family("openai", _B + r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    Family("google", _B + r"AIza[0-9A-Za-z_-]{35}"),
    Family("sendgrid", _B + r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
    Family("pypi", _B + r"pypi-AgE[A-Za-z0-9_-]{50,}"),
    Family("square", _B + r"sq0(?:csp|atp)-[0-9A-Za-z_\\-]{22,}"),
    Family("twilio", _B + r"(?:AC|SK)[a-z0-9]{32}(?![A-Za-z0-9])"),
    Family("mailchimp", _B + r"[0-9a-z]{32}-us[0-9]{1,2}(?![0-9])"),
    Family("telegram", r"(?<![0-9])[0-9]{8,10}:[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"),
    Family("discord", _B + r"[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}"),
    Family("artifactory", _B + r"AKC[A-Za-z0-9]{10,}"),
)

# Each family searched on its own: Python's re finds a literal prefix fast in one pattern,
# while one alternation of all of them is 2.5x slower than the separate searches together.
_COMPILED = tuple((family.name, re.compile(family.pattern, re.DOTALL)) for family in FAMILIES)
# Every family's match holds a 16-character run of token characters or one of these
# literals; text without either (most prose) skips the families altogether.
_RUN = re.compile(r"[A-Za-z0-9_+/=.\\-]{16}")
_LITERALS = ("BEGIN", "PuTTY", "://", "xox", "AKC")

# user:password@ in a URL (detect-secrets' BasicAuthDetector): both go; also `redis://:pw@`,
# a password with no user name.
URL_CREDENTIALS = re.compile(r"(?i)((?:\b[a-z][a-z0-9+.-]*)?://)[^\s/@:]*:[^\s/@]+@")

# Names whose value is a credential. A name ends at a separator, so `author:` and
# `tokenizer=` are not credential names while `db_password`, `x-api-key`, `auth_token` are.
CREDENTIAL_NAME = (
    r"[A-Za-z0-9_.-]*?(?i:passw(?:or)?ds?|passwd|pwd|secrets?|tokens?|api[_-]?keys?|"
    r"access[_-]?keys?|private[_-]?keys?|credentials?|auth|authorization|session[_-]?ids?|"
    r"cookies?|client[_-]?secret)(?:[_.-][A-Za-z0-9_.-]*)?"
)
# The name may be a quoted key (`{"password": "..."}`); an unquoted value runs on through
# `&` unless `&name=` starts the next query parameter (`password=Tr0ub4dor&3xyz` is one value).
ASSIGNMENT = re.compile(
    r"(?<![A-Za-z0-9_.-])(" + CREDENTIAL_NAME + r")([\"']?\s*(?::=|=>|[:=])\s*)"
    r"(\"[^\"]*\"|'[^']*'|[^\s,;&]+(?:&(?![A-Za-z0-9_.-]+=)[^\s,;&]*)*)"
)
# Substrings every credential name contains (lower case): a cheap test before ASSIGNMENT.
_NAME_HINTS = ("pass", "pwd", "secret", "token", "key", "credential", "auth", "session", "cookie")
# `Bearer <value>`, `Basic <value>`, `token <value>`: a scheme word then the value.
SCHEME = re.compile(r"(?i)\b(bearer|basic|token)(\s+)([A-Za-z0-9._~+/=-]{8,})")


def _may_hold_token(text: str) -> bool:
    return _RUN.search(text) is not None or any(literal in text for literal in _LITERALS)


def family_of(text: str) -> str | None:
    """The name of the first family (in rule order) with a token in `text`, or None."""
    if _may_hold_token(text):
        for name, pattern in _COMPILED:
            if pattern.search(text):
                return name
    return None


def entropy(value: str) -> float:
    """Shannon entropy of the characters of `value`, in bits per character."""
    if not value:
        return 0.0
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def looks_secret(value: str) -> bool:
    """Whether a value (after a credential name or scheme) looks like a secret, not prose.

    A token family, letters mixed with digits (`hunter2`, `abc123`), or a long
    high-entropy run do; plain words (`not`, `rotated`, `missing`, `expired`) do not.
    """
    value = value.strip("\"'")
    if family_of(value):
        return True
    if len(value) < 6 or any(char.isspace() for char in value):
        return False
    if any(char.isdigit() for char in value) and any(char.isalpha() for char in value):
        return True
    return len(value) >= 16 and entropy(value) >= 3.5


def _assignment(match: re.Match[str]) -> str:
    name, separator, value = match.groups()
    # A quoted literal or `name=value` is configuration, not prose: any value of 4+
    # characters is redacted. After `name:` only a value that looks like a secret is.
    quoted = value[:1] in "\"'"
    if ((quoted or "=" in separator) and len(value.strip("\"'")) >= 4) or looks_secret(value):
        return f"{name}{separator}{REDACTED}"
    return match.group(0)


def _scheme(match: re.Match[str]) -> str:
    scheme, space, value = match.groups()
    return f"{scheme}{space}{REDACTED}" if looks_secret(value) else match.group(0)


def _token(name: str, match: re.Match[str]) -> str:
    if name in ("private-key", "putty-key"):
        return REDACTED_KEY
    if name == "azure":
        return match.group(0).split("=", 1)[0] + "=" + REDACTED
    if name == "aws-key-pair":
        between = match.group(1) if match.group(1) is not None else match.group(2)
        return REDACTED + between + REDACTED
    if name == "aws-secret-key":
        # keep the `aws_secret_access_key = "` context, drop the 40 characters
        return match.group(0)[:-40] + REDACTED
    return REDACTED


def redact_secrets(text: str) -> str:
    """Replace every token-family match and secret-looking credential value in `text`."""
    if _may_hold_token(text):
        for name, pattern in _COMPILED:
            text = pattern.sub(functools.partial(_token, name), text)
        text = URL_CREDENTIALS.sub(r"\1" + REDACTED + "@", text)
    if ":" in text or "=" in text:
        lower = text.lower()
        if any(hint in lower for hint in _NAME_HINTS):
            text = ASSIGNMENT.sub(_assignment, text)
    return SCHEME.sub(_scheme, text)
