"""Every figure on the report page that a kbkit command also prints is the command's own:
`kb check --format json`, `kb intake status --format json`, `kb lessons report --format
json`, on the test world, the demo, a newcomer's tree and an empty one."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.report.conftest import NOW, Case
from tests.report.figures import agrees, documents_for, expected, figures


def _documents(case: Case, monkeypatch: pytest.MonkeyPatch) -> dict[str, dict[str, Any]]:
    monkeypatch.setenv("KBKIT_NOW", NOW)
    return documents_for(case.repo, case.intake_repo, case.lessons_repo)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["world", "demo", "newcomer", "empty", "randomised"])
def test_every_marked_figure_is_what_the_owning_command_prints(
    report_cases: dict[str, Case], name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = report_cases[name]
    docs = _documents(case, monkeypatch)
    marked = figures(case.page)
    wrong = [(f, expected(docs, f)) for f in marked if not agrees(f.text, expected(docs, f))]
    assert not wrong, wrong[:5]
    paths = {(f.owner, *f.path) for f in marked}
    # what must be on the page: kb check's totals and every rule it reports ...
    for key in ("pages", "errors", "warnings"):
        assert ("check", "summary", key) in paths, key
    for rule in {f["rule"] for f in docs["check"]["findings"]}:
        assert ("check", "rule", rule) in paths, rule
    # ... the intake's states, by kind too, and its oldest pending event ...
    if docs["intake"]["counts"]:
        for state in docs["intake"]["totals"]:
            assert ("intake", "totals", state) in paths, state
        for kind, states in docs["intake"]["counts"].items():
            for state in states:
                assert ("intake", "counts", kind, state) in paths, (kind, state)
    if docs["intake"]["oldest_pending"]:
        assert ("intake", "oldest_pending", "key", 1) in paths
    for n in docs["intake"]["pending_attempts"]:
        assert ("intake", "pending_attempts", n) in paths
    for repo in docs["intake"]["cursor"]:
        assert ("intake", "cursor", repo) in paths
    # ... and the lessons report's arms and every estimate of every comparison
    lessons = docs["lessons"]
    if sum(lessons["arms"].values()):
        for arm in lessons["arms"]:
            assert ("lessons", "arms", arm) in paths, arm
    compared: list[tuple[tuple[Any, ...], Any]] = []
    if lessons["headline"]:
        compared.append((("headline",), lessons["headline"]))
    compared += [(("observational", i), c) for i, c in enumerate(lessons["observational"])]
    for where, comparison in compared:
        for metric, m in comparison["metrics"].items():
            for side in ("treated", "control"):
                for field in ("value", "low", "high"):
                    if m[side][field] is not None:
                        assert ("lessons", *where, "metrics", metric, side, field) in paths
            if m["difference"]:
                assert ("lessons", *where, "metrics", metric, "difference", "value") in paths


@pytest.mark.slow
def test_the_demo_report_shows_the_demos_lessons_and_decisions(
    report_cases: dict[str, Case],
) -> None:
    page = report_cases["demo"].page
    marked = {(f.owner, *f.path): f.text for f in figures(page)}
    assert marked[("lessons", "arms", "*")] == "6"  # the demo's closed tasks, from its lessons repo
    assert "8</b>lessons" in page.replace("\n", "")
    assert "VAL-2c" in page and "Normalize link targets before counting them" in page
    assert "rule-id-taken: already defined in repos/kbkit/components/validators/rules" in page
    assert "Getting better since 2026-11-09" in page  # the sample repository's dated history
    # the shadow artifact links the PR body review mode would have sent, beside the page
    html = report_cases["demo"].html
    bodies = set(re.findall(r'href="([^"#:]*pr-body\.md)"', page))
    assert len(bodies) == 1 and (html.parent / bodies.pop()).is_file()


@pytest.mark.slow
def test_a_rule_switched_off_counts_nothing_on_the_page(report_cases: dict[str, Case]) -> None:
    """The newcomer's policy switches lint/stale off: its 2024 page is in the ages' last bucket
    (it is old) but no stale page is counted, as kb check counts none."""
    page = report_cases["newcomer"].page
    marked = {(f.owner, *f.path): f.text for f in figures(page)}
    assert marked[("check", "rule", "lint/stale")] == "0"
    assert "over 365 days (stale)" in page


@pytest.mark.slow
def test_a_randomised_headline_is_on_the_first_screen(report_cases: dict[str, Case]) -> None:
    page = report_cases["randomised"].page
    first = page[page.index('<section class="answers"') : page.index('<section class="part"')]
    marked = {(f.owner, *f.path) for f in figures(first)}
    assert ("lessons", "headline", "metrics", "confirmed_per_task", "difference", "value") in marked
    assert "Randomised arms, lessons injected minus withheld" in first


def test_the_check_of_a_figure_can_fail() -> None:
    """The comparison itself: a wrong figure is caught, a rounded one is not."""
    from tests.report.figures import Figure

    docs = {
        "check": {"summary": {"pages": 9}, "findings": [{"rule": "lint/stale", "path": "k/a.md"}]}
    }
    assert not agrees(Figure("check", ("summary", "pages"), "17").text, 9)
    assert agrees("9", expected(docs, Figure("check", ("summary", "pages"), "9")))
    assert expected(docs, Figure("check", ("rule", "lint/stale"), "1")) == 1
    assert expected(docs, Figure("check", ("folder", "k"), "1")) == 1
    assert agrees("16.7%", 1 / 6) and not agrees("16.8%", 1 / 6)
    assert agrees("+0.26", 0.260009) and not agrees("0.3", 0.2)
