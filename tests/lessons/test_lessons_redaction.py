"""Redaction after normalisation, the shared token families, and dedupe on unredacted keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbkit.__main__ import main
from kbkit.lessons.extraction import extract
from kbkit.lessons.redaction import clean_text, redact

GITHUB = "ghp_" + "Ab1" * 12
INVISIBLE = ["\u200b", "\u2060", "\ufeff", "\U000e0041", "\ufe0f", "\u3164", "\u00ad"]


@pytest.mark.parametrize("char", INVISIBLE)
def test_an_invisible_character_inside_a_token_does_not_defeat_redaction(char: str) -> None:
    split_token = GITHUB[:10] + char + GITHUB[10:]
    out = redact(f"pushed with {split_token} by the bot")
    assert "[redacted]" in out and GITHUB[4:14] not in out and "Ab1Ab1" not in out


@pytest.mark.parametrize("char", INVISIBLE)
def test_an_invisible_character_inside_a_private_key_header_does_not_defeat_it(
    char: str,
) -> None:
    text = f"-----BEGIN RSA PRI{char}VATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----"
    assert redact(text) == "[redacted private key]"


@pytest.mark.parametrize(
    "token",
    [
        "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
        "glpat-" + "x1Y2z3" * 4,
        "npm_" + "a1B2c3D4e5" * 3 + "f6G7h8",
        "xoxp-123456789012-1234567890123-abcdef",
        "AccountKey=" + "A1b2C3d4" * 11,
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36P",
    ],
)
def test_common_token_families_are_redacted(token: str) -> None:
    secret = token.split("=", 1)[-1]
    assert secret[6:18] not in redact(f"leaked {token} in a log line")


@pytest.mark.parametrize(
    "text",
    [
        "auth: missing on /admin",
        "token: expired session kept",
        "Cookie: missing SameSite",
        "author: alice",
        "session_id: not rotated",
    ],
)
def test_prose_after_a_credential_name_survives(text: str) -> None:
    # today's main turned each of these into "<name>: [redacted] ..."
    assert redact(text) == text


def test_findings_differing_only_in_prose_stay_two_lessons(make_task) -> None:
    task = make_task(
        findings=[
            ("F1", "confirmed", "session", "session_id: not rotated"),
            ("F2", "confirmed", "session", "session_id: always rotated"),
        ]
    )
    candidates = extract(task).candidates
    assert len({c.lesson_id for c in candidates}) == 2
    assert {c.subject for c in candidates} == {
        "session_id: not rotated",
        "session_id: always rotated",
    }


def test_dedupe_key_is_the_unredacted_text_hashed(make_task) -> None:
    other = "ghp_" + "Zz9" * 12
    task = make_task(
        findings=[
            ("F1", "confirmed", "leak", f"token {GITHUB} in build log"),
            ("F2", "confirmed", "leak", f"token {other} in build log"),
        ]
    )
    first, second = extract(task).candidates
    assert first.action == second.action == "Confirmed leak: token [redacted] in build log"
    assert first.lesson_id != second.lesson_id
    for candidate in (first, second):
        assert GITHUB not in candidate.lesson_id and "Ab1" not in candidate.lesson_id


def test_no_secret_reaches_the_store_or_a_rendered_prompt(
    tmp_path: Path, make_task, capsys
) -> None:
    zw = "\u200b"
    task = make_task(
        findings=[
            ("F1", "confirmed", "leak", f"bot pushed {GITHUB[:8]}{zw}{GITHUB[8:]} to main"),
            ("F2", "false_positive", "keys", f"-----BEGIN{zw} OPENSSH PRIVATE KEY----- b3Blbn"),
        ]
    )
    task_file = tmp_path / "task.json"
    task_file.write_text(json.dumps(task), encoding="utf-8")
    assert main(["lessons", "extract", str(task_file), "--repo", str(tmp_path)]) == 0
    stored = b"".join(p.read_bytes() for p in (tmp_path / "intake").rglob("*.jsonl"))
    assert b"Ab1Ab1" not in stored and b"b3Blbn" not in stored
    capsys.readouterr()
    later = tmp_path / "later.json"
    later.write_text(json.dumps(make_task("T2", status="running")), encoding="utf-8")
    assert main(["lessons", "show", str(later), "--repo", str(tmp_path)]) == 0
    shown = capsys.readouterr().out
    assert "Ab1Ab1" not in shown and "b3Blbn" not in shown and "[redacted" in shown


def test_clean_text_caps_after_redaction() -> None:
    assert clean_text("x" * 50 + " " + GITHUB, cap=40).endswith("…")
    assert "Ab1" not in clean_text("password: " + GITHUB)
