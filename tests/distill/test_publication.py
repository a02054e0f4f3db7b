"""Publication: every scenario end to end over real bare repos and a fake `gh` on PATH."""

from __future__ import annotations

import json
import shutil

import pytest

from kbkit.__main__ import main
from kbkit.distill.publication import (
    BODY_LIMIT,
    FENCE,
    REPORT_ROOM,
    REVIEW,
    SHADOW,
    fit_body,
    settings_from_env,
)
from kbkit.infra.errors import UsageError
from kbkit.intake.ledger import load_status
from kbkit.vcs import git
from tests.conftest import PINNED_NOW
from tests.distill.world import DAY, FORK, UPSTREAM, ScriptedGateway, World, world_fixture

__all__ = ["world_fixture"]  # the `world` fixture

BRANCH = f"knowledge/intake-{DAY}"
NEXT_DAY = "2026-12-01"
NEXT_BRANCH = f"knowledge/intake-{NEXT_DAY}"
REPORT = f"## kbkit report, {DAY} to {DAY}"  # the day's `kb report --format markdown`
FULL = {"POST_MODE": "review", "KNOWLEDGE_PR_ENABLED": "true", "KNOWLEDGE_FORK_SLUG": FORK}


@pytest.mark.parametrize(
    ("missing", "why"),
    [
        ("POST_MODE", "POST_MODE is not `review`"),
        ("KNOWLEDGE_PR_ENABLED", "KNOWLEDGE_PR_ENABLED is not `true`"),
        ("KNOWLEDGE_FORK_SLUG", "KNOWLEDGE_FORK_SLUG"),
    ],
)
def test_review_gate_needs_all_three(missing: str, why: str) -> None:
    env = {k: v for k, v in FULL.items() if k != missing}
    settings = settings_from_env(env, f"https://github.com/{UPSTREAM}.git", "main")
    assert settings.mode == SHADOW
    assert why in settings.explanation and "\n" not in settings.explanation
    full = settings_from_env(FULL, f"https://github.com/{UPSTREAM}.git", "main")
    assert full.mode == REVIEW and full.upstream_slug == UPSTREAM


def test_a_fork_slug_equal_to_the_upstream_slug_is_refused(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    same = FULL | {"KNOWLEDGE_FORK_SLUG": UPSTREAM.upper()}
    with pytest.raises(UsageError, match="must not hold write access upstream"):
        settings_from_env(same, f"https://github.com/{UPSTREAM}.git", "main")
    world.review()
    monkeypatch.setenv("KNOWLEDGE_FORK_SLUG", UPSTREAM)
    keys = world.record(1)
    replies = world.root / "replies.jsonl"
    replies.write_text("")
    argv = ["distill", "--repo", str(world.root / "project"), "--knowledge-repo",
            str(world.upstream), "--model", f"replay:{replies}"]  # fmt: skip
    assert main(argv) == 2
    assert "must not hold write access upstream" in capsys.readouterr().err
    assert world.states(keys) == ["pending"] and world.gh()["prs"] == []


def test_review_gate_incomplete_runs_shadow_and_touches_no_fork(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    world.review()
    monkeypatch.delenv("KNOWLEDGE_PR_ENABLED")
    world.env.pop("KNOWLEDGE_PR_ENABLED")
    keys = world.record(1)
    report = world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    assert report.outcome == "shadowed" and report.url is None
    assert world.states(keys) == ["shadowed"]
    assert git.rev_parse(world.fork, f"refs/heads/{BRANCH}") is None
    assert world.gh()["prs"] == []


def test_create_pr_then_reuse_it_the_same_day(world: World) -> None:
    world.review()
    first = world.record(1)
    report = world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    assert report.outcome == "published"
    assert report.url == f"https://github.com/{UPSTREAM}/pull/1"
    assert world.states(first) == ["published"]
    row = load_status(world.intake)[first[0]]
    assert row["url"] == report.url and row["batch_id"] == report.batch_id
    fork_tip = git.rev_parse(world.fork, f"refs/heads/{BRANCH}")
    assert fork_tip == report.commit
    pr = world.gh()["prs"][0]
    assert pr["headRefName"] == BRANCH and pr["baseRefName"] == "main"
    assert "merged_pr acme/app#1" in pr["body"] and "kb check-knowledge-tree" in pr["body"]
    second = world.record(2)
    again = world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}))
    assert again.url == report.url  # reused, not a second PR
    assert len(world.gh()["prs"]) == 1
    comments = world.gh()["prs"][0]["comments"]
    assert len(comments) == 1 and "merged_pr acme/app#2" in comments[0]["body"]
    assert world.states(second) == ["published"]
    history = world.branch_commits(world.fork, BRANCH)
    assert report.commit in history and again.commit in history  # built on, never reset


def test_merged_then_manual_rerun_opens_a_follow_up_with_only_new_commits(world: World) -> None:
    world.review()
    world.record(1)
    first = world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    world.merge_pr(1)
    keys = world.record(2)
    scheduled = world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}), scheduled=True)
    assert scheduled.outcome == "deferred" and "at most one PR a day" in scheduled.notes[-1]
    assert world.states(keys) == ["pending"] and len(world.gh()["prs"]) == 1
    manual = world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}))
    assert manual.outcome == "nothing-pending"  # the committed batch was republished first
    assert world.states(keys) == ["published"]
    prs = world.gh()["prs"]
    assert len(prs) == 2 and prs[1]["state"] == "OPEN" and "Follow-up of #1 " in prs[1]["body"]
    # what the follow-up PR shows: commits on its head that the base (upstream main) lacks
    git.fetch(world.clone)
    shown = git.run_git(world.clone, "rev-list", BRANCH, "^origin/main").split()
    second = git.commit_messages(world.clone, BRANCH, "acme/app#2")
    assert len(shown) == 1 and shown == [second[0][0]] and first.commit not in shown


def test_closed_then_rerun_opens_a_new_pr(world: World) -> None:
    world.review()
    world.record(1)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    world.merge_pr(1, state="CLOSED")
    keys = world.record(2)
    report = world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}))
    assert report.outcome == "published"
    assert report.url is not None and report.url.endswith("/pull/2")
    assert world.states(keys) == ["published"]


def test_crash_between_push_and_pr_is_recovered_next_run(world: World) -> None:
    world.review()
    keys = world.record(1)
    world.set_gh(fail={"pr create": "HTTP 502: Bad Gateway"})
    report = world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    assert report.outcome == "failed" and "502" in report.notes[-1]
    assert world.states(keys) == ["pending"]
    assert git.rev_parse(world.fork, f"refs/heads/{BRANCH}") == report.commit  # pushed
    world.set_gh(fail={})
    gateway = ScriptedGateway({"acme/app#1": "VAL-2c"})
    again = world.run(gateway)
    assert gateway.calls == 0  # nothing re-distilled: the committed batch was published
    assert world.states(keys) == ["published"] and len(world.gh()["prs"]) == 1
    assert again.outcome == "nothing-pending"
    assert len(world.branch_commits(world.clone, BRANCH)) == 2  # seed + one batch, no double


def test_push_rejected_keeps_rows_pending(world: World) -> None:
    world.review()
    world.record(1)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    # someone rewrote the fork's day branch after our push (a force-push elsewhere)
    other = world.root / "other"
    git.run_git(world.root, "clone", "--quiet", "--branch", "main", str(world.fork), str(other))
    (other / "x.txt").write_text("x\n")
    git.run_git(other, "checkout", "--quiet", "-b", BRANCH)
    git.commit_paths(other, ["x.txt"], "diverge\n")
    git.run_git(other, "push", "--quiet", "--force", "origin", BRANCH)
    keys = world.record(2)
    report = world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}))
    assert report.outcome == "failed" and "rejected" in report.notes[-1]
    assert world.states(keys) == ["pending"]
    comments = world.gh()["prs"][0]["comments"]
    assert comments == []  # nothing announced that did not reach the fork


def test_gh_missing_keeps_rows_pending(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    world.review()
    (world.bin / "gh").unlink()
    only_git = world.root / "only-git"  # a PATH with git and nothing else: no gh anywhere
    only_git.mkdir()
    (only_git / "git").symlink_to(shutil.which("git") or "/usr/bin/git")
    monkeypatch.setenv("PATH", str(only_git))
    keys = world.record(1)
    report = world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    assert report.outcome == "failed" and "gh (the GitHub CLI) is not installed" in report.notes[-1]
    assert world.states(keys) == ["pending"]


def test_no_rules_never_marks_done_while_a_batch_is_unpublished(world: World) -> None:
    world.review()
    committed = world.record(1)
    world.set_gh(fail={"pr list": "HTTP 503"})
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    fresh = world.record(2)
    nothing = ScriptedGateway(reply=json.dumps({"proposals": []}))
    with pytest.raises(Exception, match="still unpublished"):
        world.run(nothing)
    assert nothing.calls == 0
    assert world.states(committed + fresh) == ["pending", "pending"]
    world.set_gh(fail={})
    report = world.run(nothing)
    assert report.outcome == "no-rules"
    assert world.states(committed + fresh) == ["published", "shadowed"]


def test_shadow_is_the_default(world: World) -> None:
    keys = world.record(1, 2)
    report = world.run(ScriptedGateway({"acme/app#1": "VAL-2c", "acme/app#2": "VAL-2d"}))
    assert report.outcome == "shadowed" and world.states(keys) == ["shadowed", "shadowed"]
    assert git.current_branch(world.clone) == BRANCH
    assert report.artifacts is not None
    names = sorted(p.name for p in report.artifacts.iterdir())
    assert names == [
        "apply.json", "batch.json", "commit.txt", "pr-body.md", "prompt.md", "reply.txt",
        "schema.json", "validation.json", "validators.txt",
    ]  # fmt: skip
    assert (report.artifacts / "commit.txt").read_text().strip() == report.commit


def test_a_wiped_work_clone_builds_on_the_published_day_branch(world: World) -> None:
    world.review()
    world.record(1)
    first = world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    shutil.rmtree(world.clone)
    keys = world.record(2)
    again = world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}))
    assert again.outcome == "published" and again.url == first.url
    assert first.commit in world.branch_commits(world.fork, BRANCH)
    assert world.states(keys) == ["published"] and len(world.gh()["prs"]) == 1


def test_a_deferred_batch_is_distilled_afresh_on_the_next_scheduled_day(world: World) -> None:
    world.review()
    world.record(1)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}), scheduled=True)
    world.merge_pr(1)
    waiting = world.record(2)
    assert world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}), scheduled=True).outcome == (
        "deferred"
    )
    fresh = world.record(3)
    both = ScriptedGateway({"acme/app#2": "VAL-2d", "acme/app#3": "VAL-2e"})
    tomorrow = world.run(both, scheduled=True, day=NEXT_DAY)
    # yesterday's committed batch is not resumed: its row joins today's fresh batch
    assert both.calls == 1 and tomorrow.events == ("merged_pr acme/app#2", "merged_pr acme/app#3")
    assert tomorrow.outcome == "published" and world.states(waiting + fresh) == ["published"] * 2
    assert any("left 1 unpublished batch(es) of earlier days" in n for n in tomorrow.notes)
    prs = world.gh()["prs"]
    assert [p["headRefName"] for p in prs] == [BRANCH, NEXT_BRANCH]  # one PR per day


def test_a_push_failing_yesterday_does_not_stall_today(world: World) -> None:
    world.review()
    keys = world.record(1)
    world.set_gh(fail={"pr list": "HTTP 503"})
    assert world.run(ScriptedGateway({"acme/app#1": "VAL-2c"})).outcome == "failed"
    assert world.states(keys) == ["pending"]
    world.set_gh(fail={})
    fresh = world.record(2)
    gateway = ScriptedGateway({"acme/app#1": "VAL-2c", "acme/app#2": "VAL-2d"})
    report = world.run(gateway, scheduled=True, day=NEXT_DAY)
    assert gateway.calls == 1 and report.outcome == "published"
    assert world.states(keys + fresh) == ["published", "published"]
    assert [p["headRefName"] for p in world.gh()["prs"]] == [NEXT_BRANCH]
    assert git.rev_parse(world.fork, f"refs/heads/{NEXT_BRANCH}") is not None


def test_same_day_rerun_still_publishes_the_committed_batch(world: World) -> None:
    world.review()
    keys = world.record(1)
    world.set_gh(fail={"pr list": "HTTP 503"})
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}), scheduled=True)
    world.set_gh(fail={})
    gateway = ScriptedGateway({"acme/app#1": "VAL-2c"})
    report = world.run(gateway, scheduled=True)
    assert gateway.calls == 0 and world.states(keys) == ["published"]
    assert report.outcome == "nothing-pending" and len(world.gh()["prs"]) == 1


def test_a_batch_added_to_an_open_pr_updates_its_body(world: World) -> None:
    world.review()
    world.record(1)
    first = world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    world.record(2)
    second = world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}))
    assert second.url == first.url
    (pr,) = world.gh()["prs"]
    assert first.batch_id in pr["body"] and second.batch_id in pr["body"]
    assert "merged_pr acme/app#2" in pr["body"]
    assert [second.batch_id in c["body"] for c in pr["comments"]] == [True]


def test_switching_from_shadow_to_review_the_same_day_publishes_every_batch(
    world: World,
) -> None:
    shadowed = world.record(1)
    assert world.run(ScriptedGateway({"acme/app#1": "VAL-2c"})).outcome == "shadowed"
    world.review()
    fresh = world.record(2)
    report = world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}))
    assert report.outcome == "published"
    assert world.states(shadowed + fresh) == ["published", "published"]
    row = load_status(world.intake)[shadowed[0]]
    assert row["url"] == report.url
    (pr,) = world.gh()["prs"]
    assert "merged_pr acme/app#1" in pr["body"] and "merged_pr acme/app#2" in pr["body"]
    assert pr["body"].count("## Batch ") == 2


def test_the_pr_body_carries_the_days_report_rebuilt_for_each_added_batch(world: World) -> None:
    world.review()
    world.record(1)
    first = world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    body = world.gh()["prs"][0]["body"]
    assert body.count(REPORT) == 1 and body.index("## Batch ") < body.index(REPORT)
    report = body[body.index(REPORT) :]
    assert "- **Tree**: Healthy: no findings on 29 pages" in report
    assert "- **Proposed**: 1 proposal in 1 batch: 1 accepted" in report
    assert first.batch_id is not None
    assert first.batch_id.replace("_", "\\_") in report  # the batches table
    assert f"_Generated {PINNED_NOW} by `kb report`" in report  # kbkit's clock: deterministic
    # the ledgers are named as the repository holds them, not by this machine's paths
    assert "_(from intake/events.jsonl, intake/status.jsonl" in report, report
    assert str(world.root) not in body
    world.record(2)
    second = world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}))
    (pr,) = world.gh()["prs"]
    report = pr["body"][pr["body"].index(REPORT) :]
    assert pr["body"].count(REPORT) == 1 and "- **Proposed**: 2 proposals in 2 batches" in report
    assert second.batch_id is not None
    assert second.batch_id.replace("_", "\\_") in report
    assert REPORT not in pr["comments"][0]["body"]  # the comment names only the new batch


def test_a_report_that_cannot_be_built_never_fails_the_publication(world: World) -> None:
    world.review()
    keys = world.record(1)
    (world.intake / "cursor.json").write_text("{not json")  # kb report reads it, distill not
    report = world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    assert report.outcome == "published" and world.states(keys) == ["published"]
    body = world.gh()["prs"][0]["body"]
    (line,) = [x for x in body.splitlines() if "could not be built" in x]
    assert line.startswith("The report could not be built: `InputError: ")
    assert "cursor.json: not a valid cursor file" in line and "## Batch " in body


def test_the_shadow_artifact_carries_the_body_review_would_send(world: World) -> None:
    keys = world.record(1)
    report = world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    assert report.outcome == "shadowed" and report.artifacts is not None
    body = (report.artifacts / "pr-body.md").read_text()
    assert body.startswith(f"Knowledge intake for {DAY}, distilled by `kb distill`.")
    assert f"## Batch {report.batch_id} ({(report.commit or '')[:12]})" in body
    assert f"- {keys[0][0]} {keys[0][1]}" in body and body.count(REPORT) == 1
    assert f"_Generated {PINNED_NOW} by `kb report`" in body


def fence_balanced(text: str) -> bool:
    return sum(line.startswith(FENCE) for line in text.splitlines()) % 2 == 0


def test_an_over_long_body_is_cut_cleanly_report_first() -> None:
    transcript = "\n".join(f"knowledge/page-{n}.md:3: lint/x: a finding" for n in range(3000))
    main = f"intro\n\n## Batch b1\n\n{FENCE}\n{transcript}\n{FENCE}\n"
    report = "## kbkit report, d to d\n\n" + "".join(f"| r{n} | {n} |\n" for n in range(5000))
    assert len(main) > BODY_LIMIT and len(report) > REPORT_ROOM
    body = fit_body(main, report)
    assert len(body) <= BODY_LIMIT and fence_balanced(body)
    assert body.count("cut here") == 2 and body.startswith("intro\n\n## Batch b1")
    assert len(body[body.index("## kbkit report, d to d") :]) > REPORT_ROOM - 200  # its room
    small = fit_body("intro\n", report)  # short batches: only the report is cut, to the limit
    assert len(small) <= BODY_LIMIT and small.count("cut here") == 1
    assert small.startswith("intro\n## kbkit report") and len(small) > BODY_LIMIT - 200
    assert all(line.startswith(("|", "#", "_", "intro")) for line in small.splitlines() if line)
    assert fit_body(main[:1000] + FENCE + "\n", "r\n") == main[:1000] + FENCE + "\nr\n"  # fits


def test_rule_titles_in_the_commit_message_mention_nobody() -> None:
    """A proposed title copied into the batch commit keeps its words but no live mention or
    reference (GitHub would notify the team and cross-link issue 12 on every push)."""
    from kbkit.distill.work_clone import commit_message
    from kbkit.infra.inert import ZWSP

    message = commit_message("b1", "2026-12-01", [], ["VAL-2c — ask @acme/security about #12"])
    assert f"- VAL-2c — ask @{ZWSP}acme/security about #{ZWSP}12\n" in message
