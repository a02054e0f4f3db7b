"""Open knowledge PRs stay mergeable: rebuilt on main when it moves, rules that stopped
applying leave with a comment and their events go back to pending."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from kbkit.intake.ledger import load_status
from kbkit.vcs import git
from tests.distill.world import UPSTREAM, VAL, ScriptedGateway, World, section, world_fixture

pytestmark = pytest.mark.slow  # make test-all: whole distill runs against the GitHub stand-in

__all__ = ["world_fixture"]

NEXT_DAY = "2026-12-01"


def merges_cleanly(world: World, head: str) -> bool:
    git.fetch(world.clone)
    done = git.run_git(
        world.clone, "merge-tree", "--write-tree", "origin/main", head, check=False, code=True
    )
    return done == "0"


def append_rule(rule_id: str) -> Callable[[str], str]:
    """A person adds a rule at the end of the validators page, on main."""

    def edit(text: str) -> str:
        return text.rstrip("\n") + "\n\n" + section(rule_id, "PR #99", "Added by hand") + "\n"

    return edit


def two_open_prs(world: World) -> None:
    world.review()
    world.record(1)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}), scheduled=True)
    world.record(2)
    world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}), scheduled=True, day=NEXT_DAY)
    assert [p["state"] for p in world.prs()] == ["OPEN", "OPEN"]


@pytest.mark.parametrize("method", ["merge", "squash", "rebase"])
def test_when_one_pr_merges_the_other_is_rebuilt_on_main_and_merges_cleanly(
    world: World, method: str
) -> None:
    two_open_prs(world)
    second = world.prs()[1]
    assert merges_cleanly(world, second["headRefOid"])  # both append at the same spot...
    world.merge_pr(1, method=method)
    assert not merges_cleanly(world, second["headRefOid"])  # ...so after one merge: conflict
    world.record(3)
    day3 = world.run(ScriptedGateway({"acme/app#3": "VAL-2e"}), scheduled=True, day="2026-12-02")
    assert any("knowledge PR #2 rebuilt on main" in note for note in day3.notes)
    _, second, third = world.prs()
    assert merges_cleanly(world, second["headRefOid"]) and merges_cleanly(
        world, third["headRefOid"]
    )
    assert second["record"].rule_ids() == ["VAL-2d"]
    assert "`main` moved" in second["comments"][-1]["body"]
    world.merge_pr(2, method=method)
    assert not merges_cleanly(world, world.prs()[2]["headRefOid"])  # same spot again
    quiet = world.run(ScriptedGateway(), scheduled=True, day="2026-12-03")  # nothing pending
    assert quiet.outcome == "nothing-pending"
    assert any("knowledge PR #3 rebuilt on main" in note for note in quiet.notes)
    world.merge_pr(3, method=method)  # GitHub refuses a conflicting merge: this one goes
    page = world.main_page()
    assert [page.count(f"### VAL-2{c} ") for c in "cde"] == [1, 1, 1]  # each exactly once


def test_a_rule_whose_id_a_hand_edit_took_leaves_the_pr_and_its_event_is_pending_again(
    world: World,
) -> None:
    two_open_prs(world)
    world.commit_on_main(VAL, append_rule("VAL-2d"))  # a person took the second PR's ID
    gateway = ScriptedGateway({"acme/app#2": "VAL-2e"})
    world.run(gateway, scheduled=True, day=NEXT_DAY)
    first, second = world.prs()
    assert second["state"] == "CLOSED"
    assert "rule-id-taken" in second["comments"][-1]["body"]
    assert "kbkit closes this PR" in second["comments"][-1]["body"]
    assert second["record"].rule_ids() == [] and second["record"].dropped[0]["rule_id"] == "VAL-2d"
    assert merges_cleanly(world, first["headRefOid"])  # rebuilt too: main moved under it
    # the event went back to pending; that day's PR is closed now, so the scheduled run
    # deferred it, and the next day distills it again against the new main
    assert gateway.calls == 0
    row = load_status(world.intake)[("merged_pr", "acme/app#2")]
    assert row["state"] == "pending" and "no longer lists it" in row["reason"]
    report = world.run(gateway, day="2026-12-02")
    assert report.outcome == "published" and gateway.calls == 1
    assert world.prs()[2]["record"].rule_ids() == ["VAL-2e"]


def test_a_pr_keeps_the_rules_that_still_apply(world: World) -> None:
    world.review()
    world.record(1, 2)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c", "acme/app#2": "VAL-2d"}))
    world.commit_on_main(VAL, append_rule("VAL-2c"))
    world.record(3)
    report = world.run(ScriptedGateway({"acme/app#3": "VAL-2e"}))
    (pr,) = world.prs()
    assert pr["state"] == "OPEN" and pr["record"].rule_ids() == ["VAL-2d", "VAL-2e"]
    assert "## No longer applies" in pr["body"] and "`VAL-2c`" in pr["body"]
    first, second = pr["record"].batches
    assert first.sources == (("merged_pr", "acme/app#2"),)  # #1 left with its rule...
    # ...went back to pending and was distilled again, against the new main, in this run
    assert report.events == ("merged_pr acme/app#1", "merged_pr acme/app#3")
    assert second.sources == (("merged_pr", "acme/app#1"), ("merged_pr", "acme/app#3"))
    status = load_status(world.intake)
    assert [status[k]["state"] for k in pr["record"].sources()] == ["published"] * 3
    assert merges_cleanly(world, pr["headRefOid"])


def test_a_rule_already_on_main_word_for_word_stays_published(world: World) -> None:
    world.review()
    world.record(1)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    copy = section("VAL-2c", "acme/app#1")  # someone copied the PR's rule to main by hand
    world.commit_on_main(VAL, lambda text: text.rstrip("\n") + "\n\n" + copy + "\n")
    world.record(2)
    world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}))
    first, follow_up = world.prs()  # nothing was left to propose in the first: closed
    assert first["state"] == "CLOSED" and first["record"].dropped == ()
    assert "On `main` already, word for word: `VAL-2c`" in first["comments"][-1]["body"]
    assert follow_up["state"] == "OPEN" and follow_up["record"].rule_ids() == ["VAL-2d"]
    assert load_status(world.intake)[("merged_pr", "acme/app#1")]["state"] == "published"
    assert world.main_page().count("### VAL-2c ") == 1


def test_main_moving_during_the_run_is_caught_before_it_ends(world: World) -> None:
    """A reviewer merges while the run works: when it ends, every open PR still merges."""
    two_open_prs(world)
    moved: list[str] = []

    def during(method: str, path: str) -> None:
        if method == "POST" and path.endswith("/comments") and not moved:
            moved.append(path)  # the run is adding its batch: a hand edit lands on main
            world.commit_on_main(VAL, append_rule("VAL-3a"))

    world.hub.during = during
    world.record(3)
    report = world.run(ScriptedGateway({"acme/app#3": "VAL-2e"}), day=NEXT_DAY)
    assert moved and any("main moved during the run" in note for note in report.notes)
    for pr in world.prs():
        assert pr["state"] != "OPEN" or merges_cleanly(world, pr["headRefOid"])


def test_main_moving_again_while_the_open_prs_are_rebuilt_is_caught_too(world: World) -> None:
    """A second edit lands while the run brings the PRs up to date after the first one (it
    reads the PRs back after its fetch of main): the run looks at main again."""
    two_open_prs(world)
    moved: list[str] = []

    def during(method: str, path: str) -> None:
        if method == "POST" and path.endswith("/comments") and not moved:
            moved.append("edit")  # the run is adding its batch
            world.commit_on_main(VAL, append_rule("VAL-3a"))
        elif method == "GET" and "/pulls" in path and moved == ["edit"]:
            moved.append("again")  # the run reads the PRs back to rebuild them
            world.commit_on_main(VAL, append_rule("VAL-3b"))

    world.hub.during = during
    world.record(3)
    report = world.run(ScriptedGateway({"acme/app#3": "VAL-2e"}), day=NEXT_DAY)
    assert moved == ["edit", "again"]
    assert sum("main moved during the run" in note for note in report.notes) == 2
    for pr in world.prs():
        assert pr["state"] != "OPEN" or merges_cleanly(world, pr["headRefOid"])


def test_a_dry_run_only_says_which_prs_it_would_rebuild(world: World) -> None:
    two_open_prs(world)
    world.merge_pr(1)
    before = world.prs()[1]["headRefOid"]
    world.record(3)
    report = world.run(ScriptedGateway({"acme/app#3": "VAL-2e"}), dry_run=True, day=NEXT_DAY)
    assert any("knowledge PR #2 would be rebuilt" in note for note in report.notes)
    assert world.prs()[1]["headRefOid"] == before and world.prs()[1]["comments"] == []


def test_a_pr_whose_record_a_reviewer_deleted_is_left_alone_and_still_holds_its_ids(
    world: World,
) -> None:
    world.review()
    world.record(1)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    world.hub.pulls[UPSTREAM][0].body = "I rewrote the description by hand."
    world.record(2)
    same_day = world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}))
    assert same_day.outcome == "deferred" and "has no record" in same_day.notes[-1]
    again = ScriptedGateway({"acme/app#2": "VAL-2c"})
    tomorrow = world.run(again, day=NEXT_DAY)  # the head still holds VAL-2c: taken
    assert (
        "IDs taken by open pull requests (never use, never anchor on): VAL-2c" in again.prompts[0]
    )
    assert tomorrow.rejected[0]["reason"] == "rule-id-taken"
    assert load_status(world.intake)[("merged_pr", "acme/app#1")]["state"] == "published"


def reviewer_pushes(world: World, edit: Callable[[Path], None], message: str) -> str:
    """A reviewer pushes a fix-up commit onto the bot's branch of PR #1 in the fork."""
    branch = world.prs()[0]["headRefName"]
    work = world.root / "reviewer"
    git.run_git(world.root, "clone", "--quiet", "--branch", branch, str(world.fork), str(work))
    edit(work)
    git.run_git(work, "add", "-A")
    git.run_git(work, "commit", "--quiet", "--author", "Rita Reviewer <rita@example.com>",
                "-m", message)  # fmt: skip
    git.run_git(work, "push", "--quiet", "origin", branch)
    sha = git.run_git(work, "rev-parse", "HEAD").strip()
    shutil.rmtree(work)
    return sha


def retitle(title: str) -> Callable[[str], str]:
    return lambda text: re.sub(r"(?m)^title: .*$", f"title: {title}", text, count=1)


def test_a_reviewers_commit_survives_a_rebuild(world: World) -> None:
    world.review()
    world.record(1)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}), scheduled=True)

    def add_note(work: Path) -> None:
        (work / "REVIEW-NOTES.md").write_text("# Review notes\n\nVAL-2c reads well.\n")

    reviewer_pushes(world, add_note, "Review: a note on VAL-2c")
    world.commit_on_main(VAL, append_rule("VAL-2z"))  # main moves under the PR
    world.record(2)
    day2 = world.run(ScriptedGateway({}), scheduled=True, day=NEXT_DAY)
    assert any("knowledge PR #1 rebuilt on main" in note for note in day2.notes)
    pr = world.prs()[0]
    head = pr["headRefOid"]
    assert merges_cleanly(world, head)
    assert git.run_git(world.clone, "log", "-1", "--format=%an|%s", head).strip() == (
        "Rita Reviewer|Review: a note on VAL-2c"
    )
    assert git.run_git(world.clone, "show", f"{head}:REVIEW-NOTES.md").endswith("reads well.\n")
    assert pr["record"].rule_ids() == ["VAL-2c"]
    assert "Kept 1 commit(s) pushed to this branch by people" in pr["comments"][-1]["body"]
    assert "Review: a note on VAL-2c" in pr["comments"][-1]["body"]


def test_a_reviewers_commit_that_no_longer_applies_leaves_the_pr_alone(world: World) -> None:
    world.review()
    world.record(1)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}), scheduled=True)
    page = f"knowledge/{VAL}.md"

    def reword(work: Path) -> None:
        path = work / page
        path.write_text(retitle('"Validator rules (reviewed)"')(path.read_text()))

    pushed = reviewer_pushes(world, reword, "Review: retitle the page")
    world.commit_on_main(VAL, retitle('"Validator rules, kept"'))  # the same line, otherwise
    day2 = world.run(ScriptedGateway({}), scheduled=True, day=NEXT_DAY)
    pr = world.prs()[0]
    assert pr["headRefOid"] == pushed  # untouched: the reviewer's work is all there
    last = pr["comments"][-1]["body"]
    assert "no longer apply on it, so kbkit leaves this PR exactly as it is" in last
    assert f"`{pushed[:12]}` Review: retitle the page" in last
    assert any("left as it is: 1 commit(s) by people" in note for note in day2.notes)
