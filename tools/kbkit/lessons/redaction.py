"""Redaction of sensitive text before anything reaches the lessons store.

Findings quote what agents saw: tokens, keys, home folders, internal addresses. None of it
belongs in a lesson, so every free-text field passes through `redact` before it is written
or rendered. Credential shapes come from the shared rule set (`kbkit.infra.secret_tokens`), which
redacts values that look like secrets, not every word after `token:`. Dedupe keys hash the
normalised text *before* redaction (`key_text`), so two findings that differ only in the
redacted part stay two lessons.

Company and category names are identities as well as text: `scope_key` is what compares and
keys them (NFKC, case folding, whitespace), never the redacted display, so two clients whose
names redact alike (`10.0.0.1` and `10.0.0.2` both show as `[private-ip]`) stay apart, and
`acme`, `ACME` and `Acme` are one client.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from kbkit.infra.charset import strip_invisible
from kbkit.infra.secret_tokens import REDACTED, redact_secrets
from kbkit.lessons.rendering import flatten

__all__ = [
    "REDACTED",
    "clean_scope",
    "clean_text",
    "key_text",
    "normalise",
    "redact",
    "scope_key",
]

# Line breaks and other controls separate words: they become spaces before the invisible
# characters (which join what they split) are removed.
_BREAKS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")

# Local shapes that are not credentials but still do not belong in a lesson:
# (pattern, replacement, a character every match contains: most text skips the pattern).
_RULES: tuple[tuple[re.Pattern[str], str, str], ...] = (
    # home folders: /home/alice, /Users/alice, C:\Users\alice (either slash)
    (re.compile(r"(?i)(?<![\w/])/(?:home|users)/[^\s/\\:]+"), "[home]", "/"),
    (re.compile(r"(?<![\w/])/root(?=[/\s]|$)"), "[home]", "/"),
    (re.compile(r"(?i)\b[a-z]:[\\/]+users[\\/]+[^\s\\/:]+"), "[home]", ":"),
    # private IPv4 (RFC 1918, link-local) and IPv6 unique-local / link-local
    (
        re.compile(
            r"(?<![\w.])(?:10(?:\.\d{1,3}){3}|192\.168(?:\.\d{1,3}){2}|"
            r"172\.(?:1[6-9]|2\d|3[01])(?:\.\d{1,3}){2}|169\.254(?:\.\d{1,3}){2})"
            r"(?![\w]|\.\d)"
        ),
        "[private-ip]",
        ".",
    ),
    (
        re.compile(r"(?i)(?<![\w:])(?:f[cd][0-9a-f]{2}|fe80):[0-9a-f:]*[0-9a-f](?![\w:])"),
        "[private-ip]",
        ":",
    ),
)


def normalise(text: str) -> str:
    """One line with every invisible character gone: what redaction and keys look at.

    Redaction must run on this form: a zero-width space inside a token or a private-key
    header would otherwise split it below every pattern.
    """
    return flatten(strip_invisible(_BREAKS.sub(" ", text)))


def redact(text: str) -> str:
    """Normalise, then replace credentials, private keys, home paths and private IPs."""
    text = redact_secrets(normalise(text))
    for pattern, replacement, needed in _RULES:
        if needed in text:
            text = pattern.sub(replacement, text)
    return text


def clean_text(value: object, cap: int = 1000) -> str:
    """Normalise, redact, cap to one line: the form that is stored and shown."""
    return _clean(str(value), cap) if value is not None else ""


def key_text(value: object, cap: int = 1000) -> str:
    """Normalised but unredacted text, capped as `clean_text` caps: what dedupe keys hash
    (never stored or shown). Text with nothing to redact keys exactly as before."""
    return _key(str(value), cap) if value is not None else ""


@functools.lru_cache(maxsize=65536)
def _clean(text: str, cap: int) -> str:
    # classes and scopes repeat across thousands of tasks: clean each distinct text once
    return flatten(redact(text), cap)


@functools.lru_cache(maxsize=65536)
def _key(text: str, cap: int) -> str:
    return flatten(normalise(text), cap)


def clean_scope(value: object) -> str | None:
    """A company or category as stored: cleaned text, or None when empty."""
    return clean_text(value, 200) or None


SCOPE_CAP = 200
# A key that stands for a name redaction would hide. Folded names never hold an ASCII
# capital, so no plain key can equal one of these.
HIDDEN_KEY_PREFIX = "H:"


@functools.lru_cache(maxsize=65536)
def _fold_name(text: str) -> str:
    text = normalise(text)
    for _ in range(3):  # NFKC and case folding feed each other; a fixed point in 1-2 rounds
        folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
        folded = " ".join(folded.split())
        if folded == text:
            break
        text = folded
    return folded[:SCOPE_CAP]


@functools.lru_cache(maxsize=65536)
def _scope_key(text: str) -> str | None:
    folded = _fold_name(text)
    if not folded:
        return None
    plain = normalise(text)
    if redact(folded) != folded or redact(plain) != plain:
        # the name holds something redaction hides: key it by a digest, never by the text
        import hashlib

        digest = hashlib.sha256(folded.encode("utf-8")).hexdigest()[:32]
        return HIDDEN_KEY_PREFIX + digest
    return folded


def scope_key(value: object) -> str | None:
    """The identity of a company or category name: what selection, isolation and lesson
    ids compare, and never shown. NFKC, case-folded, whitespace collapsed (`\u212aorp` is
    `korp`); a name redaction would change is keyed by a digest of that form instead."""
    if value is None:
        return None
    return _scope_key(str(value))
