"""Reporters: text, JSON and GitHub annotations render the same findings."""

from __future__ import annotations

import json

from kbkit.findings import ERROR, WARNING, Finding, escape_annotation, render_github, render_json

FINDINGS = [
    Finding("knowledge/a.md", 3, "tree/link-broken", ERROR, "broken\n::error file=x::forged 100%"),
    Finding("knowledge/b.md", 0, "lint/orphan", WARNING, "no page links here"),
]


def test_github_annotations_cannot_be_forged_by_a_message() -> None:
    out = render_github(FINDINGS, 2).splitlines()
    assert out[0].startswith("::error file=knowledge/a.md,line=3,title=tree/link-broken::")
    assert "%0A::error file=x::forged 100%25" in out[0]
    assert out[1].startswith("::warning file=knowledge/b.md,title=lint/orphan::")
    assert len(out) == 3  # two annotations and the summary, nothing injected
    assert escape_annotation("a\r\nb%") == "a%0D%0Ab%25"


def test_json_report_shape() -> None:
    document = json.loads(render_json(FINDINGS, 2))
    assert document["version"] == 1
    assert document["summary"] == {"errors": 1, "warnings": 1, "pages": 2}
    assert document["findings"][1] == {
        "path": "knowledge/b.md",
        "line": 0,
        "rule": "lint/orphan",
        "severity": "warning",
        "message": "no page links here",
    }
