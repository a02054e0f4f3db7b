"""Reporters: text, JSON and GitHub annotations render the same findings."""

from __future__ import annotations

import json

from kbkit.rulebook.findings import ERROR, WARNING, Finding, escape_annotation, render

FINDINGS = [
    Finding("knowledge/a.md", 3, "tree/link-broken", ERROR, "broken\n::error file=x::forged 100%"),
    Finding("knowledge/b.md", 0, "lint/orphan", WARNING, "no page links here"),
]


def test_github_annotations_cannot_be_forged_by_a_message() -> None:
    out = render(FINDINGS, "github", "kbkit check", {"pages": 2}).splitlines()
    assert out[0].startswith("::error file=knowledge/a.md,line=3,title=tree/link-broken::")
    assert "%0A::error file=x::forged 100%25" in out[0]
    assert out[1].startswith("::warning file=knowledge/b.md,title=lint/orphan::")
    assert len(out) == 3  # two annotations and the summary, nothing injected
    assert escape_annotation("a\r\nb%") == "a%0D%0Ab%25"


def test_json_report_shape() -> None:
    document = json.loads(render(FINDINGS, "json", "kbkit check", {"pages": 2}))
    assert document["version"] == 1
    assert document["summary"] == {"errors": 1, "warnings": 1, "pages": 2}
    assert document["findings"][1] == {
        "path": "knowledge/b.md",
        "line": 0,
        "column": 0,
        "rule": "lint/orphan",
        "severity": "warning",
        "message": "no page links here",
    }


# --- one printer for every kind of finding (issue 11 CLI conventions, issue 10 class 5) ----

import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from kbkit.rulebook.findings import escape_property, quote, shown  # noqa: E402

HOSTILE = [
    Finding("knowledge/x\n::error file=y::forged.md", 2, "tree/x", ERROR, "m \x1b]0;t\x07 \x9b2J"),
    Finding("knowledge/a,b:c%.md", 0, "lint/y", WARNING, "line\r\nbreak"),
]


def test_text_findings_carry_their_severity_and_no_raw_control_characters() -> None:
    out = render(HOSTILE, "text", "kbkit check", {"pages": 2})
    lines = out.splitlines()
    assert len(lines) == 3  # two findings and the summary: nothing forged a line
    assert lines[0].startswith("knowledge/x\\n::error file=y::forged.md:2: tree/x [error] ")
    assert lines[1] == "knowledge/a,b:c%.md: lint/y [warning] line<U+000D>\\nbreak"
    assert not any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F for c in out.replace("\n", ""))
    assert lines[2] == "kbkit check failed: 1 error(s), 1 warning(s), 2 page(s)"


def test_github_properties_escape_comma_colon_percent_and_newlines() -> None:
    out = render(HOSTILE, "github", "kbkit check").splitlines()
    assert len(out) == 3
    assert out[0].startswith("::error file=knowledge/x%0A%3A%3Aerror file=y%3A%3Aforged.md,")
    assert out[1].startswith("::warning file=knowledge/a%2Cb%3Ac%25.md,title=lint/y::")
    assert "\x1b" not in "".join(out) and "\x9b" not in "".join(out)
    assert escape_property("a,b:c%\n") == "a%2Cb%3Ac%25%0A"


def test_undecodable_file_names_print_instead_of_crashing() -> None:
    name = b"knowledge/\xff.md".decode("utf-8", "surrogateescape")
    finding = [Finding(name, 1, "tree/x", ERROR, "m")]
    for fmt in ("text", "github", "json"):
        render(finding, fmt, "kbkit check").encode("utf-8")  # strict: no lone surrogate
    assert json.loads(render(finding, "json", "t"))["findings"][0]["path"] == name
    assert shown(name) == "knowledge/\\xff.md"


def test_quote_keeps_backslashes_plain() -> None:
    assert quote("C:\\Users\\x") == "'C:\\Users\\x'"  # repr would double each backslash


def _kb(repo: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    return subprocess.run(
        [sys.executable, "-m", "kbkit", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**environment, **env},
    )


@pytest.fixture
def bad_tree(tmp_path: Path) -> Path:
    (tmp_path / "knowledge" / "general").mkdir(parents=True)
    (tmp_path / "knowledge" / "policy.yaml").write_text("version: 1\n")
    return tmp_path


@pytest.mark.slow
def test_colour_only_on_request_when_piped(bad_tree: Path) -> None:
    piped = _kb(bad_tree, "check")
    assert piped.returncode == 1 and "\x1b[" not in piped.stdout
    assert "tree/root-missing [error]" in piped.stdout
    forced = _kb(bad_tree, "check", FORCE_COLOR="1")
    assert "\x1b[1;31m[error]\x1b[0m" in forced.stdout
    assert "\x1b[" not in _kb(bad_tree, "check", FORCE_COLOR="1", NO_COLOR="1").stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [["check"], ["intake", "check"], ["lessons", "lint"]],
    ids=" ".join,
)
def test_every_finding_command_offers_the_same_formats_and_json_version(
    bad_tree: Path, command: list[str]
) -> None:
    for fmt in ("text", "json", "github"):
        done = _kb(bad_tree, *command, "--format", fmt)
        assert done.returncode in (0, 1), done.stderr
        if fmt == "json":
            assert json.loads(done.stdout)["version"] == 1


def test_sarif_gives_a_whole_page_finding_a_region_and_a_folder_none() -> None:
    import json

    from kbkit.rulebook.findings import SarifRule, sarif

    findings = [
        Finding("knowledge/a.md", 0, "lint/orphan", "warning", "no page links here"),
        Finding("knowledge/ops", 0, "tree/index-missing", "error", "no _index.md"),
        Finding("knowledge/b.md", 7, "tree/link-broken", "error", "broken", 3),
    ]
    rules = {f.rule_id: SarifRule(f.rule_id, f.severity, "x", "", "full") for f in findings}
    run = json.loads(sarif(findings, rules, "0"))["runs"][0]
    regions = [r["locations"][0]["physicalLocation"].get("region") for r in run["results"]]
    assert regions == [{"startLine": 1}, None, {"startLine": 7, "startColumn": 3}]
    assert all(
        rule["fullDescription"] == {"text": "full"} for rule in run["tool"]["driver"]["rules"]
    )
