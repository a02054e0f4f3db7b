"""`kb report`: the numbers (json), the summary (markdown), the page (html), the window."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kbkit.commands import report as report_command
from tests.conftest import PROJECT
from tests.report.world import HOSTILE, HOSTILE_FILE, build_world, load_json

TASK: dict[str, Any] = {
    "id": "T1",
    "status": "done",
    "company": "acme",
    "category": "web",
    "findings": [
        {"id": "F1", "status": "confirmed", "class": "sqli", "summary": "SQL injection in search"},
        {"id": "F2", "status": "false_positive", "class": "xss", "summary": "Reflected XSS"},
    ],
    "retests": [],
    "metrics": {"tokens": 1000, "tool_calls": 10},
}


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return build_world(tmp_path / "repo", monkeypatch, TASK)


def run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`kb report` as a user runs it: a real process."""
    return subprocess.run(
        [sys.executable, "-m", "kbkit", "report", "--repo", str(repo), *args],
        capture_output=True,
        text=True,
        cwd=PROJECT,
        timeout=120,
    )


def report_json(repo: Path, *args: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert report_command.main(["--repo", str(repo), "--format", "json", *args]) == 0
    return load_json(capsys.readouterr().out)


def test_json_has_every_section_with_its_numbers_and_sources(world: Path, capsys) -> None:
    data = report_json(world, capsys=capsys)
    assert data["version"] == 2
    assert data["repo"] == "repo"  # the repository's name, never a path
    assert data["window"]["since"] == "2026-11-01" and data["window"]["until"] == "2026-11-30"
    tree = data["tree"]
    assert tree["pages"] == 5 and tree["outside_roots"] == 0
    assert tree["age"]["stale_pages"] == 1 and tree["age"]["buckets"][-1]["pages"] == 1
    assert tree["age"]["dated_pages"] == tree["age"]["linted_pages"] == 5
    assert tree["orphans"]["count"] == 1 and HOSTILE_FILE in tree["orphans"]["pages"][0]
    assert tree["links"]["broken"] == 1  # guides/_index.md links missing.md
    rules = {r["rule"]: r for r in tree["findings"]["by_rule"]}
    assert rules["lint/stale"]["count"] == 1 and rules["tree/link-broken"]["count"] == 1
    assert rules["tree/link-broken"]["title"].startswith("a relative link")  # in words
    assert tree["largest"]["pages"][0]["path"] == "knowledge/general/guides/old.md"
    assert tree["baseline"] is None
    assert [p["commit"] for p in tree["trend"]["points"]] == [None]  # not a git repository
    assert "no git history" in tree["trend"]["note"]
    intake = data["intake"]
    assert intake["events"] == 5 and intake["recorded_in_window"] == 4  # #4 is from October
    per_day = {d["day"]: d["merged_pr"] for d in intake["per_day"]}
    assert per_day["2026-11-28"] == 2 and per_day["2026-11-29"] == 1
    assert intake["states"] == {
        "pending": 2,
        "published": 2,
        "shadowed": 0,
        "failed": 1,
        "rejected": 0,
        "skipped": 0,
    }
    assert intake["by_kind"] == {"bugfix_run": {"pending": 1},
                                 "merged_pr": {"failed": 1, "pending": 1, "published": 2}}  # fmt: skip
    assert intake["oldest_pending"]["key"] == ["merged_pr", "kbkit-dev/kbkit#4"]
    assert intake["pending_attempts"] == {"0": 2}
    assert intake["cursor"][0]["repo"] == "kbkit-dev/kbkit"
    assert intake["by_source"] == [
        {"kind": "merged_pr", "repo": "kbkit-dev/kbkit", "via": "github", "events": 3},
        {"kind": "bugfix_run", "repo": "kbkit-dev/kbkit", "via": None, "events": 1},
    ]
    arrived = {e["source_id"]: e for e in intake["arrived"]}
    assert arrived["kbkit-dev/kbkit#3"]["url"] == "https://github.com/kbkit-dev/kbkit/pull/3"
    assert arrived["kbkit-dev/kbkit#3"]["state"] == "failed"
    assert arrived["bugfix-hostile"]["url"] is None  # `javascript:` is never an address
    curator = data["curator"]
    assert curator["totals"]["batches"] == 1 and curator["totals"]["proposals"] == 3
    batch = curator["batches"][0]
    assert (batch["accepted"], batch["rejected"], batch["pages_touched"]) == (1, 2, 1)
    assert batch["gate"] == "passed" and batch["state"] == "published"
    assert batch["pr"] == "https://github.com/kbkit-dev/kbkit/pull/99"
    assert curator["knowledge_prs"] == [{"url": "https://github.com/kbkit-dev/kbkit/pull/99",
                                         "state": "opened", "events": 2,
                                         "at": "2026-11-30T10:00:00Z",
                                         "since": "2026-11-30T10:00:00Z"}]  # fmt: skip
    lessons = data["lessons"]
    assert lessons["lessons"] >= 1 and sum(lessons["by_kind"].values()) == lessons["lessons"]
    assert lessons["usage_by_mode"] == {"inject": 1}
    assert lessons["comparison"]["tasks"] == lessons["report"]["tasks"] == 1
    assert lessons["report"]["arms"]["randomised_inject"] == 1
    # the lessons store's own helpful/harmful signal (kbkit.lessons.signal), never "not provided"
    assert isinstance(lessons["signals"], list)
    for section in ("tree", "intake", "curator", "lessons"):
        assert data[section]["source"], section  # every section names its files
    assert "intake/events.jsonl" in intake["source"]
    assert "state/artifacts/knowledge-intake" in curator["source"]


def test_every_proposal_is_listed_with_rule_title_page_and_reason(world: Path, capsys) -> None:
    decisions = report_json(world, capsys=capsys)["curator"]["decisions"]
    assert [(d["decision"], d["rule_id"], d["title"], d["page"]) for d in decisions] == [
        ("accepted", "VAL-2c", "Normalize link targets", "knowledge/general/guides/fresh.md"),
        (
            "rejected",
            "VAL-1b",
            "Rule IDs keep their group digit",
            "knowledge/general/guides/old.md",
        ),
        ("rejected", "VAL-1c", HOSTILE, None),
    ]  # a rejected row's title comes from the model's reply (reply.txt), by its position
    assert decisions[1]["reason"] == "rule-id-taken"
    assert decisions[1]["message"] == "already defined in general/guides/old"


@pytest.mark.slow
def test_the_page_count_is_kb_checks_and_pages_outside_the_roots_are_named(
    tmp_path: Path, capsys
) -> None:
    """A newcomer's tree: pages at the top of knowledge/ lie outside every root, so kb check
    neither counts nor checks them; the report says so instead of counting them."""
    from kbkit.commands import check

    repo = tmp_path / "newcomer"
    root = repo / "knowledge"
    (root / "ops").mkdir(parents=True)
    (root / "policy.yaml").write_text("roots: [ops]\nindex_page: README.md\n")
    (root / "README.md").write_text("---\nupdated: 2026-11-01\n---\n# Home\n\n[d](ops/deploy.md)\n")
    (root / "notes.md").write_text("---\nupdated: 2026-11-02\n---\n# Notes\n")  # nobody links it
    for name in ("deploy", "rollback"):
        (root / "ops" / f"{name}.md").write_text(f"---\nupdated: 2026-11-03\n---\n# {name}\n")
    check.main(["--repo", str(repo), "--format", "json"])
    checked = json.loads(capsys.readouterr().out)
    data = report_json(repo, capsys=capsys)
    tree = data["tree"]
    assert tree["pages"] == checked["summary"]["pages"] == 2
    assert tree["outside_roots"] == 2
    orphans = [f["path"] for f in checked["findings"] if f["rule"] == "lint/orphan"]
    assert tree["orphans"]["pages"] == orphans == ["knowledge/ops/rollback.md"]
    assert tree["age"]["dated_pages"] == tree["age"]["linted_pages"] == 2
    assert all(p["path"].startswith("knowledge/ops/") for p in tree["largest"]["pages"])
    done = run(repo, "--out", str(tmp_path / "r.html"))
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "2 more pages" in page and "outside the roots" in page and str(tmp_path) not in page


def test_lessons_kept_in_another_repository_are_read_with_lessons(
    world: Path, tmp_path: Path, capsys
) -> None:
    from tests.report.world import build_lessons

    other = tmp_path / "lessons-repo"
    (other / "kbkit.yaml").parent.mkdir(parents=True)
    (other / "kbkit.yaml").write_text("")
    build_lessons(other, dict(TASK, id="T7", company="globex"))
    store = other / "intake" / "lessons"
    data = report_json(world, "--lessons", str(store), capsys=capsys)
    scopes = [s["scope"] for s in data["lessons"]["by_scope"]]
    assert (
        scopes == ["globex / web"] and "lessons-repo/intake/lessons/" in data["lessons"]["source"]
    )
    assert str(tmp_path) not in data["lessons"]["source"]  # named from the folder holding both


@pytest.mark.slow
def test_json_output_never_carries_raw_controls(world: Path) -> None:
    from kbkit.infra.jsonl import append_rows

    append_rows(world / "intake" / "events.jsonl", [{"source_kind": "bugfix_run",
                "source_id": "bidi", "title": "evil \u202e txt.exe \x1b[2J", "recorded_at": "2026-11-30T01:00:00Z"}])  # fmt: skip
    done = run(world, "--format", "json")
    assert done.returncode == 0, done.stderr
    assert "\u202e" not in done.stdout and "\x1b" not in done.stdout
    assert "evil \\u202e txt.exe \\u001b[2J" in done.stdout
    titles = [e["title"] for e in json.loads(done.stdout)["intake"]["arrived"]]
    assert "evil \u202e txt.exe \x1b[2J" in titles  # the same value, escaped


@pytest.mark.slow
def test_too_few_randomised_tasks_say_not_enough_tasks(tmp_path: Path, capsys) -> None:
    """Four tasks per arm: `kb lessons report` gives no number, and neither does the page."""
    from tests.report.conftest import randomised

    repo = randomised(tmp_path / "few", tasks_per_arm=4)
    data = report_json(repo, capsys=capsys)
    headline = data["lessons"]["report"]["headline"]
    assert headline["tasks"] == [4, 4] and not headline["metrics"]["confirmed_per_task"]["enough"]
    done = run(repo, "--out", str(tmp_path / "few.html"))
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "few.html").read_text(encoding="utf-8")
    assert (
        "Not known yet: not enough tasks (4 and 4 in the randomised arms; at least 10 per arm)"
        in page
    )
    assert "confirmed findings per task: not enough tasks" in page
    assert "not enough tasks (at least 10 per arm)" in page  # the comparison's difference
    assert "not enough tasks (2 vs 2)" in page  # and each category's


def test_window_limits_per_day_figures_and_batches(world: Path, capsys) -> None:
    data = report_json(world, "--since", "2026-11-29", "--until", "2026-11-29", capsys=capsys)
    assert [d["day"] for d in data["intake"]["per_day"]] == ["2026-11-29"]
    assert data["intake"]["recorded_in_window"] == 2
    assert data["curator"]["totals"]["batches"] == 0  # the batch is from the 30th
    assert data["curator"]["decisions"] == []
    data = report_json(world, "--since", "2026-09-01", capsys=capsys)
    assert data["intake"]["recorded_in_window"] == 5


def test_default_window_follows_the_pinned_clock(world: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("KBKIT_NOW", "2027-01-15T00:00:00Z")
    data = report_json(world, capsys=capsys)
    assert data["window"]["until"] == "2027-01-15" and data["window"]["since"] == "2026-12-17"
    assert data["intake"]["recorded_in_window"] == 0


@pytest.mark.parametrize(
    "args",
    [
        ("--since", "2026-13-01"),
        ("--until", "yesterday"),
        ("--since", "2026-11-30", "--until", "2026-11-01"),
    ],
)
def test_a_bad_window_is_a_usage_error(world: Path, args: tuple[str, ...]) -> None:
    done = run(world, *args)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


@pytest.mark.slow
def test_markdown_has_headline_figures_and_inert_hostile_text(world: Path) -> None:
    done = run(world, "--format", "markdown")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "- **Tree**: Not healthy: 3 errors on 5 pages" in text
    assert "2 published" in text and "1 orphan," in text
    assert (
        "| 2026-11-30T100000Z-abcdef12 | 1 | 2 | 1 | passed | https://github.com/kbkit-dev/kbkit/pull/99 |"
        in text
    )
    assert (
        "| VAL-1b | Rule IDs keep their group digit | knowledge/general/guides/old.md | rejected |"
        in text
    )
    assert "[Validators: fix edge case 3](https://github.com/kbkit-dev/kbkit/pull/3)" in text
    assert "<script>" not in text and "\x1b" not in text
    # a copied mention or reference notifies nobody where the summary is posted
    assert "@kbkit-dev/core" not in text and "@&#8203;kbkit-dev/core" in text
    assert "#12" not in text and "#&#8203;12" in text
    assert "javascript:" not in text


@pytest.mark.slow
def test_html_is_self_contained_and_escapes_hostile_names(world: Path, tmp_path: Path) -> None:
    out = tmp_path / "out" / "report.html"
    done = run(world, "--out", str(out))
    assert done.returncode == 0, done.stderr
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "default-src 'none'" in page
    assert "<script" not in page.lower()  # no script at all: readable with JavaScript off
    assert "\x1b" not in page and "&lt;U+001B&gt;" in page  # ESC shown, never sent
    assert "&lt;script&gt;" in page  # the hostile page name and reason are shown, escaped
    # nothing is fetched: no external resource, stylesheet or font
    assert not re.search(r"""src\s*=|<link|@import|url\(""", page, re.I)
    # links only to places in the page and to the https addresses the ledgers recorded
    links = re.findall(r'href="([^"]*)"', page)
    assert links and all(
        h.startswith(("#", "https://github.com/kbkit-dev/kbkit/pull/")) for h in links
    )  # (a batch with a PR links the PR, not its artifact: tests/report/test_figures.py)
    assert "https://github.com/kbkit-dev/kbkit/pull/99" in links and "javascript" not in page
    assert page.count("<svg") == len(re.findall(r'<figure class="chart">', page)) >= 1
    assert str(tmp_path) not in page  # no absolute path


@pytest.mark.slow
def test_the_page_is_the_same_on_every_run(world: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "a.html", tmp_path / "b.html"
    assert run(world, "--out", str(first)).returncode == 0  # cold: no parse cache
    assert run(world, "--out", str(second)).returncode == 0  # warm
    assert first.read_bytes() == second.read_bytes()


@pytest.mark.slow
def test_an_unwritable_out_file_is_an_environment_error(world: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    done = run(world, "--out", str(blocker / "report.html"))
    assert done.returncode == 4
    assert "report.html" in done.stderr and "Traceback" not in done.stderr


def test_an_empty_repository_reports_zeros(tmp_path: Path, capsys) -> None:
    (tmp_path / "empty" / "knowledge").mkdir(parents=True)
    data = report_json(tmp_path / "empty", capsys=capsys)
    assert data["tree"]["pages"] == 0 and data["intake"]["events"] == 0
    assert data["curator"]["totals"]["batches"] == 0 and data["lessons"]["lessons"] == 0


def test_an_unusable_outcome_card_leaves_the_rest_of_the_report(world: Path, capsys) -> None:
    from kbkit.infra.jsonl import append_rows

    log = world / "intake" / "lessons" / "outcomes.jsonl"
    append_rows(log, [{"task": "T9", "card": {"task": "T9"}, "at": "2026-11-30T00:00:00Z"}])
    data = report_json(world, capsys=capsys)
    comparison = data["lessons"]["comparison"]
    assert "outcomes.jsonl: unusable outcome card" in comparison["error"]
    assert comparison["rows"] == [] and data["lessons"]["lessons"] >= 1


def test_the_forked_reads_give_the_same_report_as_a_serial_run(
    world: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kbkit.infra.paths import intake_root, state_root
    from kbkit.report import assemble
    from kbkit.report.window import make_window

    read_here: list[int] = []  # appends made in the child never reach this list
    read_logs = assemble._read_logs

    def counted(*args: Any) -> dict[str, Any]:
        read_here.append(1)
        return read_logs(*args)

    monkeypatch.setattr(assemble, "_read_logs", counted)
    sources = assemble.Sources(world, intake_root(world), state_root(world))
    window = make_window(None, None)
    forked = assemble.build(sources, window, fork=True)
    assert read_here == []  # the child's result was used (marshal took every value)
    assert forked == assemble.build(sources, window, fork=False)
    assert forked["lessons"]["lessons"] and forked["intake"]["events"] == 5


@pytest.mark.slow
def test_knowledge_prs_carry_the_states_distill_last_read_from_github(
    world: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """state/knowledge-prs.json (what kb distill saw on GitHub) gives each PR its state; a PR
    only the ledger knows stays `opened`; entries that are not well formed are left out."""
    repo = world
    snapshot = {
        "version": 1,
        "read": "2026-11-30",
        "prs": [
            {"number": 99, "url": "https://github.com/kbkit-dev/kbkit/pull/99", "state": "merged",
             "day": "2026-11-30", "title": "Knowledge intake 2026-11-30", "rules": ["VAL-2c"]},
            {"number": 100, "url": "https://github.com/kbkit-dev/kbkit/pull/100", "state": "open",
             "day": "2026-11-30", "title": "Knowledge intake 2026-11-30 (follow-up)", "rules": []},
            {"number": 7, "url": "javascript:alert(1)//pull/7", "state": "open", "day": "x"},
            {"number": 8, "url": "https://github.com/kbkit-dev/kbkit/pull/8", "state": "gone"},
            "not an object",
        ],
    }  # fmt: skip
    (repo / "state" / "knowledge-prs.json").write_text(json.dumps(snapshot))
    curator = report_json(repo, capsys=capsys)["curator"]
    assert curator["knowledge_prs_read"] == "2026-11-30"
    assert [(p["url"].rsplit("/", 1)[1], p["state"], p["events"]) for p in curator["knowledge_prs"]] == [
        ("99", "merged", 2), ("100", "open", 0)]  # fmt: skip
    text = run(repo, "--format", "markdown").stdout
    assert "- **Knowledge PRs**: 2 knowledge PRs: 1 open, 1 merged (" in text
    assert "javascript:" not in text
    assert run(repo, "--out", str(tmp_path / "a.html")).returncode == 0
    page = (tmp_path / "a.html").read_text()
    assert "2 knowledge PRs: 1 open, 1 merged" in page
    assert "as GitHub showed them to kb distill on 2026-11-30" in page
    # without the file: what the ledger knows, and where the states would come from
    (repo / "state" / "knowledge-prs.json").unlink()
    assert run(repo, "--out", str(tmp_path / "b.html")).returncode == 0
    page = (tmp_path / "b.html").read_text()
    assert "1 knowledge PR: 1 opened (state not read)" in page
    assert "state/knowledge-prs.json" in page
