"""`token_hits` (the tree's `tree/secret-token` scan) finds exactly what each family's own
pattern finds, in text order, however the fast path searches (issue #28)."""

from __future__ import annotations

import random
import string

import pytest

from kbkit.infra import secret_tokens
from kbkit.infra.secret_tokens import (
    _CASELESS_HINTS,
    _COMPILED,
    _LITERAL_MARK,
    _LITERALS,
    _LOWER_HINTS,
    _STARTS,
    _families_present,
    _may_hold_token,
    token_hits,
)

PIECES = [
    "ghp_",
    "gho_",
    "github_pat_",
    "glpat-",
    "GR1348941",
    "sk_live_",
    "rk_test_",
    "npm_",
    "_authToken=",
    "xoxb-",
    "xoxp-12-34-",
    "https://hooks.slack.com/services/T1/B2/",
    "AKIA",
    "ASIA",
    "aws_secret_access_key = '",
    "AWS key: ",
    "AccountKey=",
    "sharedaccesskey=",
    "ACCOUNTKEY=",
    "SharedAccess\u212aey=",
    "aWs secret ",
    "eyJ",
    "eyJ-",
    "-",
    ".",
    "sk-",
    "sk-proj-",
    "AIza",
    "SG.",
    "pypi-AgE",
    "sq0csp-",
    "AC",
    "SK",
    "-us1",
    "-us12",
    "12345678:",
    "M",
    "AKC",
    "-----BEGIN RSA PRIVATE KEY-----\n",
    "PuTTY-User-Key-File-2",
    " ",
    "\n",
    "x",
    "_",
    "=",
    "/",
    "+",
]


def _fuzz(rng: random.Random) -> str:
    out = []
    for _ in range(rng.randint(1, 12)):
        if rng.random() < 0.5:
            out.append(rng.choice(PIECES))
        else:
            alphabet = rng.choice(
                [
                    string.ascii_letters + string.digits,
                    string.ascii_lowercase + string.digits,
                    string.ascii_uppercase + string.digits,
                    string.digits,
                ]
            )
            out.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 50))))
    return "".join(out)


def _naive(text: str) -> list[tuple[int, str]]:
    """Each family's own `finditer`, behind the shared pre-filter redaction uses too."""
    if not _may_hold_token(text):
        return []
    hits = [(m.start(), name) for name, pattern in _COMPILED for m in pattern.finditer(text)]
    return sorted(hits)


@pytest.mark.slow
def test_the_fast_scan_finds_what_each_family_finds() -> None:
    rng = random.Random(28)
    matched = 0
    for _ in range(6000):
        text = _fuzz(rng)
        want = _naive(text)
        matched += bool(want)
        assert [(hit.start, hit.family) for hit in token_hits(text)] == want, text
    assert matched > 1000  # the fuzz really makes tokens


@pytest.mark.slow
def test_key_pairs_are_found_in_either_order_and_only_beside_a_key_id() -> None:
    """The key-pair family is searched only in texts holding a key id: pairs in both orders,
    at every distance the pattern allows, and secrets with no id beside them, found exactly
    as the family's own pattern finds them."""
    rng = random.Random(2028)
    base64 = string.ascii_letters + string.digits + "/+"
    pairs = 0
    for _ in range(3000):
        key_id = rng.choice(["AKIA", "ASIA", "ABIA", "A3TX"]) + "".join(
            rng.choice(string.ascii_uppercase + string.digits) for _ in range(16)
        )
        secret = "".join(rng.choice(base64) for _ in range(40)) + "aZ"[: rng.randint(0, 2)]
        gap = "".join(rng.choice(" =:\"'\nx") for _ in range(rng.randint(0, 45)))
        parts = [key_id, gap, secret] if rng.random() < 0.5 else [secret, gap, key_id]
        if rng.random() < 0.2:
            parts = [secret, gap, secret[::-1]]  # no key id at all
        text = rng.choice(["", "prose ", "x"]) + "".join(parts) + rng.choice(["", " end", "Q"])
        want = _naive(text)
        pairs += any(name == "aws-key-pair" for _, name in want)
        assert [(hit.start, hit.family) for hit in token_hits(text)] == want, text
    assert pairs > 200  # the pattern's own limits refuse many of the random pairs


def test_the_one_pass_over_the_starts_finds_every_family_whose_start_occurs() -> None:
    """The automaton answers which families' starts a text holds, overlapping starts too
    (`ACCAKIA` holds both `ACCA` and `AKIA`), as substring tests would."""
    rng = random.Random(4028)
    texts = ["ACCAKIA", "sk-sk_live_", "xeyJx", "PRIVATE KEY", "", "plain prose"]
    texts += [_fuzz(rng) for _ in range(2000)]
    for text in texts:
        want = {name for name, starts in _STARTS.items() if any(s in text for s in starts)}
        present = _families_present(text)
        assert present is not None
        families = {name for name in present if not name.startswith("lower:")}
        assert families - {_LITERAL_MARK} == want, text
        # the same pass tells `_may_hold_token`'s literals, which `token_hits` asks first
        assert (_LITERAL_MARK in present) == any(lit in text for lit in _LITERALS), text


@pytest.mark.slow
def test_a_caseless_hint_is_found_in_every_spelling_a_lower_cased_hint_needs() -> None:
    """A family with hints in the lower-cased text is skipped only when the automaton saw
    no spelling of its caseless hint: every lower-cased hint holds one (so no page is
    skipped that the hint test would search), in any mix of cases and the Kelvin sign."""
    for name, hints in _LOWER_HINTS.items():
        assert all(any(c in hint for c in _CASELESS_HINTS[name]) for hint in hints), name
    lowers_to: dict[str, set[str]] = {}
    for code in range(0x110000):
        lowered = chr(code).lower()
        if lowered != chr(code) and any(
            c in lowered for hs in _CASELESS_HINTS.values() for h in hs for c in h
        ):
            lowers_to.setdefault(lowered, set()).add(chr(code))
    assert all(len(lowered) == 1 for lowered in lowers_to), lowers_to  # one char each
    rng = random.Random(6028)
    for name, hints in _CASELESS_HINTS.items():
        for hint in hints:
            for _ in range(200):
                spelled = "".join(rng.choice([c, *sorted(lowers_to.get(c, ()))]) for c in hint)
                text = f"x {spelled} y"
                assert spelled.lower() == hint
                present = _families_present(text)
                assert present is not None and f"lower:{name}" in present, spelled
    assert _families_present("plain prose, no hint") == frozenset()


@pytest.mark.slow
def test_without_the_automaton_every_family_is_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the ahocorasick_rs wheel cannot be imported, the scan finds the same tokens."""
    monkeypatch.setattr(secret_tokens, "_families_present", lambda text, data=None: None)
    rng = random.Random(5028)
    for _ in range(1500):
        text = _fuzz(rng)
        assert [(hit.start, hit.family) for hit in token_hits(text)] == _naive(text), text


@pytest.mark.parametrize(
    "text",
    [
        "eyJ-eyJhbGciOiJIUzI1NiJ9.eyJzdWIi",  # the first start fails, the run holds a match
        "xeyJ=eyJhbGciOiJIUzI1NiJ9.eyJzdWIi",  # glued to a word: the next start may match
        "eyJ=" * 50 + "abcdefgh.abcd",
        "eyJ-" * 50,
        "eyJabc" * 30 + " eyJabcdefghij.abcd",
    ],
)
def test_a_run_skipped_after_a_failed_jwt_start_holds_no_match(text: str) -> None:
    assert [(hit.start, hit.family) for hit in token_hits(text)] == _naive(text)
