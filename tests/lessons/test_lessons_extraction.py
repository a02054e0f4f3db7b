"""Every extraction rule, the gate, redaction and determinism, table-driven."""

from __future__ import annotations

import pytest

from kbkit.lessons.extraction import extract, lesson_id, normalize_time
from kbkit.lessons.outcomes import normalize_status
from kbkit.lessons.redaction import redact

SUMMARY = "login form accepts a quote"

# finding status -> expected (kind, action) or None when the finding teaches nothing
FINDING_RULES = [
    ("confirmed", ("positive", f"Confirmed sqli: {SUMMARY}")),
    ("resolved", ("positive", f"Confirmed sqli: {SUMMARY}")),
    ("fixed", ("positive", f"Confirmed sqli: {SUMMARY}")),
    ("Confirmed", ("positive", f"Confirmed sqli: {SUMMARY}")),
    (
        "false_positive",
        ("negative", f"Do not re-report without new mechanics: {SUMMARY} (prior false_positive)"),
    ),
    (
        "false-positive",
        ("negative", f"Do not re-report without new mechanics: {SUMMARY} (prior false_positive)"),
    ),
    (
        "duplicate",
        ("negative", f"Do not re-report without new mechanics: {SUMMARY} (prior duplicate)"),
    ),
    ("ignored", ("negative", f"Do not re-report without new mechanics: {SUMMARY} (prior ignored)")),
    (
        "risk_accepted",
        ("negative", f"Do not re-report without new mechanics: {SUMMARY} (prior risk_accepted)"),
    ),
    ("pending", None),
    ("in_progress", None),
    ("In Progress", None),
]


@pytest.mark.parametrize(("status", "expected"), FINDING_RULES)
def test_finding_rules(make_task, status: str, expected: tuple[str, str] | None) -> None:
    task = make_task(findings=[("F1", status, "sqli", SUMMARY)])
    result = extract(task, now="2026-11-30T00:00:00Z")
    assert result.terminal and result.refusals == []
    got = [(c.kind, c.action) for c in result.candidates]
    assert got == ([expected] if expected else [])
    for c in result.candidates:
        assert (c.source_kind, c.source_id, c.task, c.cue) == ("finding", "T1/F1", "T1", "sqli")


# (finding status, retest verdict) -> expected (kind, action) of the retest's lesson, or None
RETEST_RULES = [
    ("confirmed", "reproduced", ("positive", f"Reproduced sqli on retest: {SUMMARY}")),
    ("resolved", "reproduced", ("positive", f"Reproduced sqli on retest: {SUMMARY}")),
    ("fixed", "Reproduced", ("positive", f"Reproduced sqli on retest: {SUMMARY}")),
    ("false_positive", "reproduced", None),  # reproduced only counts on a confirmed finding
    ("pending", "reproduced", None),
    ("confirmed", "fixed", ("caution", "Recheck before reporting sqli: a prior retest was fixed")),
    (
        "confirmed",
        "inconclusive",
        ("caution", "Recheck before reporting sqli: a prior retest was inconclusive"),
    ),
    (
        "duplicate",
        "inconclusive",
        ("caution", "Recheck before reporting sqli: a prior retest was inconclusive"),
    ),
    ("pending", "inconclusive", None),  # pending findings produce nothing, retests included
    ("in_progress", "fixed", None),
    ("confirmed", "not_reproduced", None),
]


@pytest.mark.parametrize(("finding_status", "verdict", "expected"), RETEST_RULES)
def test_retest_rules(
    make_task, finding_status: str, verdict: str, expected: tuple[str, str] | None
) -> None:
    task = make_task(
        findings=[("F1", finding_status, "sqli", SUMMARY)], retests=[("R1", "F1", verdict)]
    )
    result = extract(task)
    from_retest = [(c.kind, c.action) for c in result.candidates if c.source_kind == "retest"]
    assert from_retest == ([expected] if expected else [])
    assert all(c.source_id == "T1/R1" for c in result.candidates if c.source_kind == "retest")


@pytest.mark.parametrize("status", ["done", "failed", "timeout", "DONE", "Timeout"])
def test_terminal_tasks_are_extracted(make_task, status: str) -> None:
    result = extract(make_task(status=status, findings=[("F1", "confirmed", "xss", "x")]))
    assert result.terminal and len(result.candidates) == 1 and result.outcome is not None


@pytest.mark.parametrize("status", ["running", "pending", "open", "in_progress", "queued"])
def test_non_terminal_tasks_yield_nothing(make_task, status: str) -> None:
    result = extract(
        make_task(
            status=status,
            findings=[("F1", "confirmed", "xss", "x")],
            retests=[("R1", "F1", "reproduced")],
        )
    )
    assert (result.terminal, result.candidates, result.refusals, result.outcome) == (
        False,
        [],
        [],
        None,
    )


# the gate: (finding, retest) -> refusal reason fragment
GATE_CASES = [
    (("F1", "confirmed", "", SUMMARY), None, "empty cue"),
    (("F1", "confirmed", "   \u200b ", SUMMARY), None, "empty cue"),  # invisible only
    (("F1", "confirmed", "sqli", ""), None, "empty action"),
    (("F1", "false_positive", "sqli", " \n\t "), None, "empty action"),
    (("F1", "confirmed", "sqli", SUMMARY), ("R1", "F404", "inconclusive"), "empty cue"),
]


@pytest.mark.parametrize(("finding", "retest", "reason"), GATE_CASES)
def test_gate_refuses_empty_cue_action_or_source(make_task, finding, retest, reason) -> None:
    task = make_task(findings=[finding], retests=[retest] if retest else [])
    result = extract(task)
    assert len(result.refusals) == 1 and reason in result.refusals[0].reason
    refused = result.refusals[0].source
    assert all(f"{c.source_kind}:{c.source_id}" != refused for c in result.candidates)


def test_gate_refuses_null_class_and_summary(make_task) -> None:
    task = make_task()
    task["findings"] = [{"id": "F1", "status": "confirmed", "class": None, "summary": None}]
    assert extract(task).candidates == [] and len(extract(task).refusals) == 1


def test_every_rule_at_once_and_determinism(make_task) -> None:
    task = make_task(
        findings=[
            ("F1", "confirmed", "sqli", "a"),
            ("F2", "duplicate", "xss", "b"),
            ("F3", "pending", "rce", "c"),
        ],
        retests=[("R1", "F1", "reproduced"), ("R2", "F2", "fixed")],
    )
    first = extract(task, now="2026-01-01T00:00:00Z")
    assert [c.kind for c in first.candidates] == ["positive", "negative", "positive", "caution"]
    assert first == extract(task, now="2026-01-01T00:00:00Z")
    assert len({c.lesson_id for c in first.candidates}) == 4


# scope and text go into the dedupe key: (change, same id as the base lesson?)
KEY_CASES = [
    ({}, True),
    ({"task_id": "T2"}, True),  # another task, same lesson: one row, more support
    ({"status": "failed"}, True),
    ({"company": "globex"}, False),
    ({"category": "mobile"}, False),
    ({"company": None, "category": None}, False),
    ({"summary": "login form accepts a quote!"}, False),
    ({"summary": "login   form\naccepts a quote"}, True),  # flattened before keying
    ({"cls": "xss"}, False),
]


@pytest.mark.parametrize(("change", "same"), KEY_CASES)
def test_dedupe_key_is_kind_scope_cue_action(make_task, change: dict, same: bool) -> None:
    def lesson(
        task_id="T1",
        status="done",
        company="acme",
        category="web",
        summary="login form accepts a quote",
        cls="sqli",
    ) -> str:
        task = make_task(
            task_id,
            status=status,
            company=company,
            category=category,
            findings=[("F1", "confirmed", cls, summary)],
        )
        return extract(task).candidates[0].lesson_id

    assert (lesson(**change) == lesson()) is same


def test_lesson_id_is_stable() -> None:
    # a change here would split every existing store: ids must never move
    assert lesson_id("positive", "acme", "web", "sqli", "Confirmed sqli: x") == lesson_id(
        "positive", "acme", "web", "sqli", "Confirmed sqli: x"
    )
    assert lesson_id("positive", None, None, "a", "b").startswith("L")
    assert len(lesson_id("positive", None, None, "a", "b")) == 17


REDACTIONS = [
    ("password=hunter2 in config", "hunter2", "password=[redacted]"),
    ("api_key: 'sk-live-abcdef'", "sk-live-abcdef", "api_key: [redacted]"),
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc", "eyJhbGci", "[redacted]"),
    ("token AKIAABCDEFGHIJKLMNOP leaked", "AKIAABCDEFGHIJKLMNOP", "[redacted]"),
    ("ghp_" + "a" * 36 + " in repo", "ghp_aaaa", "[redacted]"),
    ("xoxb-1234567890-abcdef slack", "xoxb-1234567890", "[redacted]"),
    ("https://admin:s3cret@db.example.com/x", "s3cret", "https://[redacted]@db.example.com"),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY----- tail",
        "MIIEow",
        "[redacted private key] tail",
    ),
    (
        "-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC (truncated",
        "b3BlbnNzaC",
        "[redacted private key]",
    ),
    ("read /home/alice/.ssh/id_rsa", "alice", "[home]/.ssh/id_rsa"),
    ("read /Users/bob/Library", "bob", "[home]/Library"),
    (r"read C:\Users\carol\AppData", "carol", r"[home]\AppData"),
    ("read c:/users/dave/x", "dave", "[home]/x"),
    ("host 10.1.2.3 answered", "10.1.2.3", "host [private-ip] answered"),
    ("host 192.168.0.17.", "192.168.0.17", "host [private-ip]."),
    ("host 172.20.1.1:8080", "172.20.1.1", "[private-ip]:8080"),
    ("host 169.254.169.254 metadata", "169.254.169.254", "[private-ip] metadata"),
    ("ipv6 fd12:3456:789a::1 inside", "fd12:3456", "[private-ip] inside"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig-part", "eyJzdWIi", "[redacted]"),
]


@pytest.mark.parametrize(("text", "secret", "expected"), REDACTIONS)
def test_redaction(text: str, secret: str, expected: str) -> None:
    out = redact(text)
    assert secret not in out and expected in out


@pytest.mark.parametrize(
    "text",
    [
        "version 10.1.2.3.4 of the library",  # not an address: more than four parts
        "public host 8.8.8.8",
        "172.32.0.1 is public",
        "path /usr/share/doc",
        "the token bucket",
    ],
)
def test_redaction_leaves_harmless_text(text: str) -> None:
    assert redact(text) == text


def test_sensitive_text_never_reaches_a_lesson(make_task) -> None:
    task = make_task(
        company="acme",
        findings=[
            ("F1", "confirmed", "sqli", "dump via password=hunter2 from 10.0.0.5 as /home/ops"),
        ],
    )
    (candidate,) = extract(task).candidates
    for secret in ("hunter2", "10.0.0.5", "/home/ops"):
        assert secret not in candidate.action and secret not in candidate.subject


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("In-Progress", "in_progress"),
        (" FALSE POSITIVE ", "false_positive"),
        (None, ""),
    ],
)
def test_normalize_status(raw, expected) -> None:
    assert normalize_status(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2026-11-30T08:15:00Z", "2026-11-30T08:15:00Z"),
        ("2026-11-30T09:15:00+01:00", "2026-11-30T08:15:00Z"),
        ("2026-11-30T08:15:00", "2026-11-30T08:15:00Z"),
        ("yesterday", "DEFAULT"),
        (None, "DEFAULT"),
    ],
)
def test_closed_at_sets_evidence_time(raw, expected) -> None:
    assert normalize_time(raw, "DEFAULT") == expected


def test_library_extract_validates_the_record() -> None:
    from kbkit.infra.errors import InputError

    with pytest.raises(InputError, match="task 'T1'.*findings/0"):
        extract({"id": "T1", "status": "done", "findings": [{"status": "confirmed"}]})
    with pytest.raises(InputError, match="must be a JSON object"):
        extract(["not", "a", "record"])  # type: ignore[arg-type]


def test_package_exports_the_library_calls(make_task) -> None:
    import kbkit.lessons as lessons

    assert lessons.extract(make_task(findings=[("F1", "confirmed", "a", "b")])).candidates
    assert callable(lessons.select_lessons) and callable(lessons.bundle_prompts)
    with pytest.raises(AttributeError):
        _ = lessons.select  # no name shadowing the stdlib module
