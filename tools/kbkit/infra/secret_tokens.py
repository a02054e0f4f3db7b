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
from typing import Any, NamedTuple

from kbkit.infra.lazy_pattern import lazy

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
# Compiled on first use (module attributes `_COMPILED` and `_SCANS` too): a short command
# whose text holds no token-like run (`kb lessons show`) never pays the ~10 ms.
@functools.cache
def _compiled() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((family.name, re.compile(family.pattern, re.DOTALL)) for family in FAMILIES)


# Every family's match holds a 16-character run of token characters or one of these
# literals; text without either (most prose) skips the families altogether. (npm's
# `_authToken=` may be followed by a blank and a short value: 11 characters, then a break.)
_LITERALS = ("BEGIN", "PuTTY", "://", "xox", "AKC", "_authToken=")
# A run of 16 token characters, found in C: the text's UTF-8 bytes mapped to `a` (a token
# character: ASCII only) or a space (anything else), then searched for `a` * 16. The
# pattern `[A-Za-z0-9_+/=.\\-]{16}` answers the same (tests/infra/test_secret_tokens.py)
# 7x slower: it restarts at every character of every word.
_TOKEN_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+/=.\\-"
_RUN_MAP = bytes(ord("a") if byte in _TOKEN_CHARS else ord(" ") for byte in range(256))
_RUN_OF_16 = b"a" * 16


def _has_run(text: str) -> bool:
    """Whether `text` holds 16 token characters in a row."""
    return _RUN_OF_16 in text.encode("utf-8", "surrogatepass").translate(_RUN_MAP)


# user:password@ in a URL (detect-secrets' BasicAuthDetector): both go; also `redis://:pw@`,
# a password with no user name.
URL_CREDENTIALS = lazy(r"(?i)((?:\b[a-z][a-z0-9+.-]*)?://)[^\s/@:]*:[^\s/@]+@")

# Names whose value is a credential. A name ends at a separator, so `author:` and
# `tokenizer=` are not credential names while `db_password`, `x-api-key`, `auth_token` are.
CREDENTIAL_NAME = (
    r"[A-Za-z0-9_.-]*?(?i:passw(?:or)?ds?|passwd|pwd|secrets?|tokens?|api[_-]?keys?|"
    r"access[_-]?keys?|private[_-]?keys?|credentials?|auth|authorization|session[_-]?ids?|"
    r"cookies?|client[_-]?secret)(?:[_.-][A-Za-z0-9_.-]*)?"
)
# The name may be a quoted key (`{"password": "..."}`); an unquoted value runs on through
# `&` unless `&name=` starts the next query parameter (`password=Tr0ub4dor&3xyz` is one value).
ASSIGNMENT = lazy(
    r"(?<![A-Za-z0-9_.-])(" + CREDENTIAL_NAME + r")([\"']?\s*(?::=|=>|[:=])\s*)"
    r"(\"[^\"]*\"|'[^']*'|[^\s,;&]+(?:&(?![A-Za-z0-9_.-]+=)[^\s,;&]*)*)"
)
# Substrings every credential name contains (lower case): a cheap test before ASSIGNMENT.
_NAME_HINTS = ("pass", "pwd", "secret", "token", "key", "credential", "auth", "session", "cookie")
# `Bearer <value>`, `Basic <value>`, `token <value>`: a scheme word then the value.
SCHEME = lazy(r"(?i)\b(bearer|basic|token)(\s+)([A-Za-z0-9._~+/=-]{8,})")


def _may_hold_token(text: str) -> bool:
    if "://" in text or _has_run(text):  # most pages with either hold a URL: asked first
        return True
    return any(literal in text for literal in _LITERALS)


def family_of(text: str) -> str | None:
    """The name of the first family (in rule order) with a token in `text`, or None."""
    if _may_hold_token(text):
        for name, pattern in _compiled():
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
        for name, pattern in _compiled():
            text = pattern.sub(functools.partial(_token, name), text)
        text = URL_CREDENTIALS.sub(r"\1" + REDACTED + "@", text)
    if ":" in text or "=" in text:
        lower = text.lower()
        if any(hint in lower for hint in _NAME_HINTS):
            text = ASSIGNMENT.sub(_assignment, text)
    return SCHEME.sub(_scheme, text)


class TokenHit(NamedTuple):
    """One token-family match in a text: its family, where it starts and ends."""

    family: str
    start: int
    end: int


# Scanning whole pages (kilobytes each, thousands of them) must be fast: a pattern that opens
# with the `_B` lookbehind is tried at every position of the text, while the same pattern
# without it starts from its literal prefix (100x faster in CPython's re). So each family is
# searched by its pattern less a leading `_B` and every hit is confirmed by the whole
# pattern at the same place; families whose pattern has no literal start are skipped when a
# text lacks a substring (or, for telegram, a shape) every match of theirs holds.
_TEXT_HINTS: dict[str, tuple[str, ...]] = {
    "private-key": ("PRIVATE KEY",),
    "putty-key": ("PuTTY-User-Key-File-",),
    "stripe": ("k_live_", "k_test_"),
    "npm": ("npm_", "_authToken="),
    "slack": ("xox", "hooks.slack.com"),
}
_LOWER_HINTS: dict[str, tuple[str, ...]] = {  # looked for in the lower-cased text
    "aws-secret-key": ("aws",),
    "azure": ("accountkey=", "sharedaccesskey="),
}
# Families searched from literal-led pieces instead (a hit at `start` is confirmed by the
# whole pattern searched from `start - back`): an alternation or a class first would scan
# every position.
_LEADS: dict[str, tuple[tuple[str, int], ...]] = {
    "gitlab": (("gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-", 0), ("GR1348941", 0)),
    "twilio": (("AC[a-z0-9]{32}", 0), ("SK[a-z0-9]{32}", 0)),
    "mailchimp": (("-us[0-9]", 32),),
}
_SHAPE_HINTS: dict[str, re.Pattern[str]] = {
    # a key pair holds a key id: without one, the pattern (a class first) would be tried at
    # every position of the text, the scan's costliest family by far
    "aws-key-pair": re.compile(_AWS_ID),
    "telegram": re.compile(r":[0-9A-Za-z_-]{35}"),
    "discord": re.compile(r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}"),
}


# Substrings one of which every match of the family holds. One Aho-Corasick pass over the
# text finds which of them occur (`_families_present`), so a family none of whose starts
# occurs is not searched at all: one pass instead of one search (or hint test) per family,
# each as costly as the pass over a page. Families not listed here (case-insensitive
# hints, shapes without a literal, `AC`/`SK` which most uppercase text holds) keep their
# own tests below.
_STARTS: dict[str, tuple[str, ...]] = {
    "private-key": ("PRIVATE KEY",),
    "putty-key": ("PuTTY-User-Key-File-",),
    "github": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "gitlab": (
        *(f"{kind}-" for kind in ("glpat", "gldt", "glft", "glsoat", "glrt", "glcbt")),
        *(f"{kind}-" for kind in ("glimt", "glptt", "glagent", "gloas")),
        "GR1348941",
    ),
    "stripe": ("rk_live_", "rk_test_", "sk_live_", "sk_test_"),
    "npm": ("npm_", "_authToken="),
    "slack": (*(f"xox{kind}-" for kind in "abposr"), "https://hooks.slack.com/services/T"),
    "aws-key-pair": ("A3T", "ABIA", "ACCA", "AKIA", "ASIA"),
    "aws-access-key": ("A3T", "ABIA", "ACCA", "AKIA", "ASIA"),
    "jwt": ("eyJ",),
    "openai": ("sk-",),
    "google": ("AIza",),
    "sendgrid": ("SG.",),
    "pypi": ("pypi-AgE",),
    "square": ("sq0csp-", "sq0atp-"),
    "mailchimp": ("-us",),
    "artifactory": ("AKC",),
}


# Substrings that every text whose lower-cased form holds one of a family's `_LOWER_HINTS`
# also holds in some mix of cases: the automaton looks for every such spelling, so a page
# none of which spells them skips `text.lower()` and the hint searches altogether.
_CASELESS_HINTS: dict[str, tuple[str, ...]] = {"aws-secret-key": ("aws",), "azure": ("key=",)}


# The characters whose lower case is each ASCII letter (`str.lower`, all of Unicode)
_LOWERS_TO: dict[str, tuple[str, ...]] = {
    letter: (letter, letter.upper(), *(("\u212a",) if letter == "k" else ()))
    for letter in "abcdefghijklmnopqrstuvwxyz"  # string.ascii_lowercase, without its import
}


def _spellings(word: str) -> list[str]:
    """Every string whose `str.lower()` is `word`: each character may be any one whose lower
    case it is (`K`, and the Kelvin sign, for `k`). Only U+0130 lowers to two characters,
    `i` and a combining dot, and no caseless hint holds an `i`."""
    spellings = [""]
    for char in word:
        options = _LOWERS_TO.get(char, (char,))
        spellings = [done + option for done in spellings for option in options]
    return spellings


@functools.cache
def _starts_automaton() -> tuple[Any, tuple[frozenset[str], ...]] | None:
    """The automaton of every start and every spelling of a caseless hint (over UTF-8
    bytes), and what each one shows present: the families of a start, and `lower:FAMILY` for
    a caseless hint of FAMILY; None when the `ahocorasick_rs` wheel cannot be imported
    (every family is then searched)."""
    try:
        import ahocorasick_rs
    except ImportError:
        return None
    owners: dict[str, set[str]] = {}
    for name, family in _STARTS.items():
        for start in family:
            owners.setdefault(start, set()).add(name)
    for name, hints in _CASELESS_HINTS.items():
        for hint in hints:
            for spelling in _spellings(hint):
                owners.setdefault(spelling, set()).add(f"lower:{name}")
    for literal in _LITERALS:  # `_may_hold_token`'s literals, told by one marker
        owners.setdefault(literal, set()).add(_LITERAL_MARK)
    literals = sorted(owners)
    return (
        ahocorasick_rs.BytesAhoCorasick([literal.encode() for literal in literals]),
        tuple(frozenset(owners[literal]) for literal in literals),
    )


_LITERAL_MARK = "literal"  # in `_families_present`: the text holds one of `_LITERALS`


def _families_present(text: str, data: bytes | None = None) -> frozenset[str] | None:
    """The families of `_STARTS` one of whose starts `text` holds, `lower:FAMILY` for each
    family of `_CASELESS_HINTS` whose hint it spells, and `_LITERAL_MARK` when it holds one
    of `_LITERALS` (None: no automaton). `data`: the text's UTF-8 bytes, when at hand (the
    literals are ASCII: a UTF-8 byte string holds one exactly when its text does)."""
    made = _starts_automaton()
    if made is None:
        return None
    automaton, owners = made
    found = automaton.find_matches_as_indexes(
        data if data is not None else text.encode("utf-8", "surrogatepass"), overlapping=True
    )
    return frozenset().union(*(owners[index] for index, _, _ in found)) if found else frozenset()


# Families searched by a literal lead, whose failed match skips a run of their characters.
# The JWT pattern reads the run of token characters after `eyJ` and then needs a `.`; where
# that fails at a start the boundary lets through, it fails at every later `eyJ` of the same
# run too (its run ends at the same character, and is shorter), so the search goes on after
# the run. Searched with the pattern itself as its lead, a page of `eyJ-eyJ-...` had each
# run read to its end once per `eyJ`: seconds for 100 KB, minutes at the read limit.
_RUN_SKIPS: dict[str, tuple[str, str]] = {"jwt": ("eyJ", "[A-Za-z0-9_=-]*")}
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")  # `_B`'s

Scan = tuple[
    str,
    re.Pattern[str],
    re.Pattern[str] | None,
    tuple[tuple[re.Pattern[str], int], ...],
    re.Pattern[str] | None,
]


@functools.cache
def _scans() -> tuple[Scan, ...]:
    out = []
    for (name, full), family in zip(_compiled(), FAMILIES, strict=True):
        lead = skip = None
        if name in _RUN_SKIPS:
            literal, run = _RUN_SKIPS[name]
            lead, skip = re.compile(re.escape(literal)), re.compile(run)
        elif family.pattern.startswith(_B):
            lead = re.compile(family.pattern[len(_B) :], re.DOTALL)
        pieces = tuple((re.compile(text), back) for text, back in _LEADS.get(name, ()))
        out.append((name, full, lead, pieces, skip))
    return tuple(out)


def __getattr__(name: str) -> Any:  # `_COMPILED`, `_SCANS`: compiled on first use
    if name == "_COMPILED":
        return _compiled()
    if name == "_SCANS":
        return _scans()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def token_hits(text: str) -> list[TokenHit]:
    """Every token-family match of `text`, in text order (the families alone: no credential
    names, schemes or URL passwords), for checks that report where a token is. The same
    matches as each family's `finditer` (tests/infra/test_secret_token_hits.py)."""
    data = text.encode("utf-8", "surrogatepass")
    present = _families_present(text, data)  # one pass for the literals and the starts
    if present is None:
        if not _may_hold_token(text):
            return []
    elif _LITERAL_MARK not in present and _RUN_OF_16 not in data.translate(_RUN_MAP):
        return []  # `_may_hold_token`'s answer: no literal, no run of 16 token characters
    hits: list[TokenHit] = []
    lower: str | None = None
    for name, full, lead, pieces, skip in _scans():
        if present is not None and name in _STARTS and name not in present:
            continue
        if name in _TEXT_HINTS and not any(h in text for h in _TEXT_HINTS[name]):
            continue
        if name in _LOWER_HINTS:
            if present is not None and f"lower:{name}" not in present:
                continue  # no spelling of its caseless hint: no lower-cased hint either
            lower = text.lower() if lower is None else lower
            if not any(h in lower for h in _LOWER_HINTS[name]):
                continue
        if name in _SHAPE_HINTS and _SHAPE_HINTS[name].search(text) is None:
            continue
        if pieces:
            hits.extend(_from_pieces(name, full, pieces, text))
            continue
        if lead is None:
            hits.extend(TokenHit(name, m.start(), m.end()) for m in full.finditer(text))
            continue
        position = 0
        while (found := lead.search(text, position)) is not None:
            start = found.start()
            confirmed = full.match(text, start)
            if confirmed is not None:
                hits.append(TokenHit(name, confirmed.start(), confirmed.end()))
                position = max(confirmed.end(), start + 1)
            elif skip is not None and (start == 0 or text[start - 1] not in _WORD_CHARS):
                run = skip.match(text, start)  # the boundary held: the run cannot match
                position = run.end() if run is not None else start + 1
            else:
                position = start + 1  # glued to a word: a later start may still match
    return sorted(hits, key=lambda hit: (hit.start, hit.family))


def _from_pieces(
    name: str, full: re.Pattern[str], pieces: tuple[tuple[re.Pattern[str], int], ...], text: str
) -> list[TokenHit]:
    """The family's matches, searched for only near the hits of its literal-led pieces."""
    starts = sorted(
        {max(0, found.start() - back) for piece, back in pieces for found in piece.finditer(text)}
    )
    hits: list[TokenHit] = []
    done = 0  # the end of the last match: matches never overlap
    for start in starts:
        if start < done:
            continue
        found = full.search(text, max(start, done), start + 2 * 64 + 1)
        if found is not None and found.start() >= done and found.end() <= len(text):
            whole = full.match(text, found.start())  # as the unbounded search would see it
            if whole is not None:
                hits.append(TokenHit(name, whole.start(), whole.end()))
                done = whole.end()
    return hits


# Documentation writes tokens that are not secrets: AWS's published example keys, runs of one
# character (`ghp_xxxxxxxx...`), counting sequences, `<your-token>`-style stand-ins.
_EXAMPLE_WORDS = lazy(r"(?i)example|sample|dummy|placeholder|your|redacted|fake")
_COUNTING = ("0123456789", "123456789", "abcdefghij", "ABCDEFGHIJ")
_SAMPLE_JWT = lazy(r"^eyJ[A-Za-z0-9_=-]*\.(eyJzdWIiOiIxMjM0NTY3ODkwIi|eyJzdWIiOiJ1c2VyMTIz)")


def is_example_token(token: str) -> bool:
    """Whether a token-family match is a documentation stand-in rather than a credential:
    it says so (`EXAMPLE`, `your`, `dummy`, ...), repeats one or a few characters, counts
    (`1234567890`, `abcdef...`), or is jwt.io's sample token (subject `1234567890`)."""
    if _EXAMPLE_WORDS.search(token) or any(mark in token for mark in ("<", ">", "...", "**")):
        return True
    body = re.sub(r"^[A-Za-z]+[_-]", "", token)  # without the family's prefix (`ghp_`)
    if len(set(body.lower())) <= 4:
        return True
    if re.search(r"(.)\1{7,}", body) or any(run in body for run in _COUNTING):
        return True
    return _SAMPLE_JWT.match(token) is not None
