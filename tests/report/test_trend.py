"""`kbkit.report.trend`: the tree's findings and pages on past days, from its git history,
each point what `kb check` says of a fresh clone of that day's commit."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from kbkit.report import trend
from kbkit.report.window import Window
from tests.gitrepo import commit_files, git, init_repo
from tests.report.figures import command_json
from tests.report.test_report import report_json

FRONT = '---\ntitle: "{t}"\ncreated: 2026-01-01\nupdated: {u}\ntype: guide\ntags: [guide]\nsources: []\n---\n# {t}\n'
INDEX = '---\ntitle: "{t}"\ncreated: 2026-01-01\nupdated: 2026-11-01\ntype: index\ntags: [index]\nsources: []\n---\n# {t}\n\n'


def page(title: str, updated: str = "2026-11-01", body: str = "") -> str:
    return FRONT.format(t=title, u=updated) + body + "\n"


def dated_commit(repo: Path, day: str, files: dict[str, str], message: str,
                 monkeypatch: pytest.MonkeyPatch) -> str:  # fmt: skip
    monkeypatch.setenv("GIT_AUTHOR_DATE", f"{day}T10:00:00+00:00")
    monkeypatch.setenv("GIT_COMMITTER_DATE", f"{day}T10:00:00+00:00")
    try:
        return commit_files(repo, files, message)
    finally:
        monkeypatch.delenv("GIT_AUTHOR_DATE")
        monkeypatch.delenv("GIT_COMMITTER_DATE")


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository whose tree gets better: a broken link on the 3rd, fixed on the 10th, a
    page added on the 20th (and an untracked draft in the working tree now)."""
    repo = init_repo(tmp_path / "team")
    guides = "knowledge/general/guides"
    dated_commit(repo, "2026-11-03", {
        "knowledge/policy.yaml": "taxonomy:\n  tags: [guide, index]\n",
        "knowledge/general/_index.md": INDEX.format(t="General") + "- [Guides](guides/_index.md)\n",
        f"{guides}/_index.md": INDEX.format(t="Guides") + "- [A](a.md)\n- [B](b.md)\n",
        f"{guides}/a.md": page("A", body="See [gone](gone.md)."),
        f"{guides}/b.md": page("B", updated="2024-01-01"),
    }, "first tree", monkeypatch)  # fmt: skip
    dated_commit(repo, "2026-11-10", {f"{guides}/a.md": page("A", body="See [b](b.md).")},
                 "fix the link", monkeypatch)  # fmt: skip
    dated_commit(repo, "2026-11-20", {
        f"{guides}/_index.md": INDEX.format(t="Guides") + "- [A](a.md)\n- [B](b.md)\n- [C](c.md)\n",
        f"{guides}/c.md": page("C"),
    }, "add C", monkeypatch)  # fmt: skip
    (repo / guides / "draft.md").write_text(page("Draft"))  # unregistered, uncommitted
    monkeypatch.setenv("KBKIT_NOW", "2026-11-30T12:00:00Z")
    return repo


def check_at(repo: Path, commit: str, day: str, scratch: Path) -> dict[str, Any]:
    """`kb check --format json --today DAY` in a fresh clone checked out at `commit`."""
    clone = scratch / f"clone-{commit[:8]}-{day}"
    git(scratch, "clone", "-q", str(repo), str(clone))
    git(clone, "checkout", "-q", commit)
    summary = command_json("check", "--repo", str(clone), "--format", "json", "--today", day)[
        "summary"
    ]
    return {"pages": summary["pages"], "errors": summary["errors"], "warnings": summary["warnings"]}


def test_sample_days_are_the_windows_mondays_and_its_last_day() -> None:
    days = trend.sample_days(Window(date(2026, 11, 1), date(2026, 11, 30)))
    assert [d.isoformat() for d in days] == [
        "2026-11-02", "2026-11-09", "2026-11-16", "2026-11-23", "2026-11-30"]  # fmt: skip
    assert all(d.weekday() == 0 for d in days[:-1])
    # tomorrow's default window samples the same past days (what the cache keeps)
    today = trend.sample_days(Window(date(2026, 11, 3), date(2026, 12, 2)))
    tomorrow = trend.sample_days(Window(date(2026, 11, 4), date(2026, 12, 3)))
    assert today[:-1] == tomorrow[:-1]
    long = trend.sample_days(Window(date(2025, 1, 1), date(2026, 11, 30)))
    assert len(long) <= trend.MAX_POINTS and long[-1] == date(2026, 11, 30)
    assert len({(b - a).days for a, b in zip(long, long[1:-1], strict=False)}) == 1  # one step
    assert trend.sample_days(Window(date(2026, 11, 30), date(2026, 11, 30))) == [date(2026, 11, 30)]


@pytest.mark.slow
def test_each_past_point_is_what_kb_check_says_of_that_days_commit(
    history: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    points = report_json(history, capsys=capsys)["tree"]["trend"]["points"]
    assert [p["day"] for p in points] == ["2026-11-09", "2026-11-16", "2026-11-23", "2026-11-30"]
    log = git(history, "log", "--format=%H %cs").split()
    by_day = dict(zip(log[1::2], log[0::2], strict=True))  # day -> commit
    expected = {"2026-11-09": by_day["2026-11-03"], "2026-11-16": by_day["2026-11-10"],
                "2026-11-23": by_day["2026-11-20"]}  # fmt: skip
    for point in points[:-1]:
        assert point["commit"] == expected[point["day"]]
        figures = {k: point[k] for k in ("pages", "errors", "warnings")}
        assert figures == check_at(history, point["commit"], point["day"], tmp_path), point["day"]
    assert points[0]["errors"] > points[1]["errors"]  # the broken link, fixed
    now = points[-1]
    assert now["commit"] is None  # the working tree, with its draft: kb check's figures now
    summary = command_json("check", "--repo", str(history), "--format", "json")["summary"]
    assert {k: now[k] for k in ("pages", "errors", "warnings")} == {
        k: summary[k] for k in ("pages", "errors", "warnings")}  # fmt: skip
    assert now["pages"] == points[-2]["pages"] + 1


@pytest.mark.slow
def test_past_points_come_from_the_cache_keyed_by_tree_day_and_code(
    history: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = report_json(history, capsys=capsys)["tree"]["trend"]["points"]
    cache = history / ".kbkit-cache" / trend.CACHE_NAME
    entries = json.loads(cache.read_text())
    assert len(entries) == 3 and all(key.count(":") == 3 for key in entries)
    for value in entries.values():
        value["errors"] = 99  # a cache that lied would show here
    cache.write_text(json.dumps(entries))
    cached = report_json(history, capsys=capsys)["tree"]["trend"]["points"]
    assert [p["errors"] for p in cached[:-1]] == [99, 99, 99]
    fresh = report_json(history, "--no-cache", capsys=capsys)["tree"]["trend"]["points"]
    assert fresh == first
    assert json.loads(cache.read_text()) == entries  # --no-cache neither reads nor writes it


@pytest.mark.slow
def test_a_point_that_cannot_be_checked_says_why_and_the_rest_stands(
    history: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (history / "knowledge" / "general" / "guides" / "draft.md").unlink()
    day = (date(2026, 11, 30) - timedelta(days=4)).isoformat()
    dated_commit(
        history,
        day,
        {"knowledge/policy.yaml": "roots: [general\n"},
        "break the policy",
        monkeypatch,
    )
    dated_commit(history, "2026-11-27", {"knowledge/policy.yaml": "taxonomy:\n  tags: [guide, index]\n"},
                 "mend it", monkeypatch)  # fmt: skip
    data = report_json(history, "--since", "2026-11-20", "--until", "2026-11-29", capsys=capsys)
    points = data["tree"]["trend"]["points"]
    # the window's last day (the 29th) is checked from history; "now" is today's tree
    assert [p["day"] for p in points] == ["2026-11-23", "2026-11-29", "2026-11-30"]
    assert "error" not in points[1]
    data = report_json(history, "--since", "2026-11-20", "--until", "2026-11-26", capsys=capsys)
    broken = data["tree"]["trend"]["points"][1]
    assert broken["day"] == "2026-11-26" and "policy" in broken["error"]
    assert "/tmp" not in broken["error"] and "kbkit-trend-" not in broken["error"]


def test_without_git_there_is_only_now(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plain" / "knowledge").mkdir(parents=True)
    data = report_json(tmp_path / "plain", capsys=capsys)["tree"]["trend"]
    assert [p["commit"] for p in data["points"]] == [None] and "no git history" in data["note"]


@pytest.mark.slow
def test_the_checkout_follows_removed_folders_and_redoes_a_move_cut_short(
    history: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The past trees share one checkout, moved by their differences: a folder removed in
    history is gone from it (so a missing root is found), and a move that was cut short
    (`dirty`) is redone from scratch instead of trusted."""
    (history / "knowledge" / "general" / "guides" / "draft.md").unlink()
    git(history, "rm", "-q", "-r", "knowledge/general")
    dated_commit(history, "2026-11-24", {}, "drop general/", monkeypatch)
    data = report_json(history, "--since", "2026-11-01", "--until", "2026-11-25", capsys=capsys)
    points = {p["day"]: p for p in data["tree"]["trend"]["points"]}
    gone = points["2026-11-25"]
    assert gone["pages"] == 0 and gone == {
        "day": "2026-11-25", "commit": gone["commit"],
        **check_at(history, gone["commit"], "2026-11-25", tmp_path)}  # fmt: skip
    shadow = history / ".kbkit-cache" / trend.SHADOW_NAME
    assert not (shadow / "knowledge" / "general").exists()
    # a move cut short: the checkout holds a stray page and says `dirty`
    (shadow / "knowledge" / "general" / "stray").mkdir(parents=True)
    (shadow / "knowledge" / "general" / "stray" / "x.md").write_text("# stray\n")
    (shadow / trend.Shadow.MARK).write_text("dirty -\n")
    (history / ".kbkit-cache" / trend.CACHE_NAME).unlink()
    again = report_json(history, "--since", "2026-11-01", "--until", "2026-11-25", capsys=capsys)
    assert again["tree"]["trend"]["points"] == data["tree"]["trend"]["points"]
    assert not (shadow / "knowledge" / "general" / "stray").exists()


@pytest.mark.slow
def test_two_reports_at_once_share_the_checkout_under_its_lock(
    history: Path, tmp_path: Path
) -> None:
    import subprocess
    import sys

    from tests.conftest import PROJECT

    outs = [tmp_path / f"r{n}.json" for n in range(3)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "kbkit", "report", "--repo", str(history), "--format", "json",
             "--out", str(out)], cwd=PROJECT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for out in outs
    ]  # fmt: skip
    for proc in procs:
        assert proc.wait(timeout=120) == 0, proc.stderr.read() if proc.stderr else ""
    trends = [json.loads(out.read_text())["tree"]["trend"]["points"] for out in outs]
    assert trends[0] == trends[1] == trends[2] and all("error" not in p for p in trends[0])
