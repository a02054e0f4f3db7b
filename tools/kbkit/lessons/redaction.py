"""Redaction of sensitive text before anything reaches the lessons store.

Findings quote what agents saw: tokens, keys, home folders, internal addresses. None of it
belongs in a lesson, so every free-text field passes through `redact` before it is keyed,
written or rendered. The patterns err on the side of redacting too much.
"""

from __future__ import annotations

import functools
import re

from kbkit.lessons.rendering import flatten

REDACTED = "[redacted]"

# (pattern, replacement); order matters: whole private-key blocks go first.
_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?"
            r"(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)",
            re.DOTALL,
        ),
        "[redacted private key]",
    ),
    # user:password@ in URLs
    (re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^\s/@:]+:[^\s/@]+@"), r"\1[redacted]@"),
    (re.compile(r"(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{8,}"), r"\1 [redacted]"),
    # key=value and key: value for credential-like names
    (
        re.compile(
            r"(?i)\b([a-z0-9_.-]*(?:passw(?:or)?d|passwd|pwd|secret|token|api[_-]?key|"
            r"access[_-]?key|private[_-]?key|credentials?|auth|session[_-]?id|cookie)"
            r"[a-z0-9_.-]*)(\s*[:=]\s*)(\"[^\"]*\"|'[^']*'|[^\s,;&]+)"
        ),
        r"\1\2[redacted]",
    ),
    # well-known token shapes
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), REDACTED),
    (re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"), REDACTED),
    (re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), REDACTED),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{20,}"), REDACTED),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{35}"), REDACTED),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]+"), REDACTED),
    # home folders: /home/alice, /Users/alice, C:\Users\alice (either slash)
    (re.compile(r"(?i)(?<![\w/])/(?:home|users)/[^\s/\\:]+"), "[home]"),
    (re.compile(r"(?<![\w/])/root(?=[/\s]|$)"), "[home]"),
    (re.compile(r"(?i)\b[a-z]:[\\/]+users[\\/]+[^\s\\/:]+"), "[home]"),
    # private IPv4 (RFC 1918, link-local) and IPv6 unique-local / link-local
    (
        re.compile(
            r"(?<![\w.])(?:10(?:\.\d{1,3}){3}|192\.168(?:\.\d{1,3}){2}|"
            r"172\.(?:1[6-9]|2\d|3[01])(?:\.\d{1,3}){2}|169\.254(?:\.\d{1,3}){2})"
            r"(?![\w]|\.\d)"
        ),
        "[private-ip]",
    ),
    (
        re.compile(r"(?i)(?<![\w:])(?:f[cd][0-9a-f]{2}|fe80):[0-9a-f:]*[0-9a-f](?![\w:])"),
        "[private-ip]",
    ),
)


def redact(text: str) -> str:
    """Replace credentials, private keys, home paths and private IPs with placeholders."""
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return text


def clean_text(value: object, cap: int = 1000) -> str:
    """Redact, then flatten to one capped line: the form that is keyed, stored and shown."""
    return _clean(str(value), cap) if value is not None else ""


@functools.lru_cache(maxsize=65536)
def _clean(text: str, cap: int) -> str:
    # classes and scopes repeat across thousands of tasks: clean each distinct text once
    return flatten(redact(text), cap)


def clean_scope(value: object) -> str | None:
    """A company or category as stored: cleaned text, or None when empty."""
    return clean_text(value, 200) or None
