"""Every `gh` invocation kbkit makes (and the daily workflow's) uses only subcommands and
flags the real gh lists in its `--help`: recorded from real runs against the stand-in."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from kbkit.__main__ import main
from kbkit.intake.ledger import load_events
from kbkit.intake.sources.drop import render_comment
from tests.conftest import PROJECT
from tests.distill.world import ScriptedGateway, World, world_fixture

__all__ = ["world_fixture"]

pytestmark = pytest.mark.skipif(
    shutil.which("gh") is None,
    reason="the real gh CLI is not installed: `apt-get install -y gh` (.ci/run installs it)",
)

FLAG = re.compile(r"^\s+(?:-(\w), )?--([\w-]+)(?: (\S+))?\s{2,}")
TEAM = "kbkit-dev/kbkit"  # the recorded review discussion of PR 57 is this repository's


def gh_help(*command: str) -> dict[str, bool]:
    """Flags `gh COMMAND --help` lists (short and long) -> whether each takes a value."""
    out = subprocess.run(["gh", *command, "--help"], capture_output=True, text=True).stdout
    assert "FLAGS" in out, f"`gh {' '.join(command)}` is not a gh command"
    flags: dict[str, bool] = {"--help": False}
    for line in out.splitlines():
        found = FLAG.match(line)
        if found:
            short, long, value = found.groups()
            flags[f"--{long}"] = value is not None
            if short:
                flags[f"-{short}"] = value is not None
    return flags


def check_invocation(argv: list[str]) -> list[str]:
    """The problems of one recorded `gh ARGV` (empty: every word is gh's own)."""
    command = argv[:2] if argv[:1] == ["auth"] else argv[:1]
    flags = gh_help(*command)
    problems = []
    words = argv[len(command) :]
    i = 0
    while i < len(words):
        word = words[i]
        if word.startswith("-") and word != "-":
            name = word.split("=", 1)[0]
            if name not in flags:
                problems.append(f"gh {' '.join(command)}: {name} is not a flag gh 2.23 lists")
            elif flags[name] and "=" not in word:
                i += 1  # its value
        i += 1
    return problems


@pytest.mark.slow
def test_every_gh_call_kbkit_makes_is_one_gh_knows(world: World, tmp_path: Path) -> None:
    real = shutil.which("gh")
    assert real is not None
    log = tmp_path / "gh-calls"  # one file per call: its words, NUL-separated
    log.mkdir()
    shim = tmp_path / "recording-bin"
    shim.mkdir()
    (shim / "gh").write_text(f'#!/bin/sh\nprintf "%s\\0" "$@" > "$(mktemp -p {log})"\nexec {real} "$@"\n')  # fmt: skip
    (shim / "gh").chmod(0o755)
    world.monkeypatch.setenv("PATH", f"{shim}:{Path(real).parent}:/usr/bin:/bin")
    # distill in review mode: list, create, then a second batch: body edit and comment
    world.review()
    world.record(1)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    world.record(2)
    world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}))
    # the intake: the paged scan with a first-scan count, the files, the review discussion
    # (its REST pages and the GraphQL threads query), the mailbox, a post
    hub = world.hub
    hub.team[TEAM] = []
    reviews = PROJECT / "tests/intake/fixtures/reviews"
    comments = json.loads((reviews / "pr57-review-comments.json").read_text())
    for n in (56, 57):
        item: dict[str, object] = {"number": n, "title": f"t{n}", "html_url": f"https://github.com/{TEAM}/pull/{n}",
                "state": "closed", "user": {"login": "mei-lin", "type": "User"}, "body": "b",
                "created_at": "2026-11-29T10:00:00Z", "updated_at": "2026-11-29T10:00:00Z",
                "merged_at": "2026-11-29T10:00:00Z", "labels": [], "draft": False,
                "base": {"ref": "main", "repo": {"full_name": TEAM}}}  # fmt: skip
        hub.add_team_pull(TEAM, item, json.loads((reviews / "pr57-files.json").read_text()))
    pr57 = hub.team[TEAM][-1]
    pr57.reviews = json.loads((reviews / "pr57-reviews.json").read_text())
    pr57.review_comments = comments
    pr57.threads = [{"root": c["id"], "isResolved": True} for c in comments if "in_reply_to_id" not in c]  # fmt: skip
    record = json.loads((PROJECT / "tests/intake/fixtures/consumer_drop_record.json").read_text())
    hub.add_comment(TEAM, 1, render_comment(record | {"repo": TEAM}), "dev", "MEMBER")
    (tmp_path / "intake").mkdir(exist_ok=True)
    assert main(["intake", "record-prs", "--repo", TEAM]) == 0
    assert main(["intake", "mailbox", "--issue", f"{TEAM}#1", "--slug", TEAM]) == 0
    run = tmp_path / "run.json"
    run.write_bytes((PROJECT / "tests/intake/fixtures/producer_run.json").read_bytes())
    world.monkeypatch.setenv("KBKIT_ALLOW_POST", "1")
    assert main(["intake", "drop", "--run", str(run), "--mailbox", f"{TEAM}#1", "--strict"]) == 0
    calls = [path.read_text().split("\0")[:-1] for path in sorted(log.iterdir())]
    # ...and the workflow's own gh lines
    steps = yaml.safe_load((PROJECT / "examples/github-actions/kbkit-daily.yml").read_text())
    for step in steps["jobs"]["intake"]["steps"]:
        for line in str(step.get("run", "")).splitlines():
            if line.strip().startswith("gh "):
                calls.append(line.strip().split()[1:])
    problems = [p for call in calls for p in check_invocation(call)]
    assert problems == []
    used = {word for call in calls for word in call if word.startswith("-")}
    assert {"-H", "-X", "-i", "--input", "--paginate", "-f", "-F"} <= used, used  # every path ran
    assert any(call[:2] == ["api", "graphql"] for call in calls)
    events = load_events(tmp_path / "intake")
    assert events[("merged_pr", f"{TEAM}#57")]["discussion"]["notes"]  # read through real gh
    assert {tuple(c[:2]) for c in calls if c[:1] == ["auth"]} == {("auth", "setup-git")}


def test_the_check_bites() -> None:
    assert check_invocation(["api", "--paginate", "-X", "GET", "repos/a/b"]) == []
    assert check_invocation(["api", "--all-pages", "repos/a/b"]) == [
        "gh api: --all-pages is not a flag gh 2.23 lists"
    ]
    with pytest.raises(AssertionError, match="not a gh command"):
        gh_help("pull")
