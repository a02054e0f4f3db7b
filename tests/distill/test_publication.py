"""Publication: every scenario end to end over real bare repositories, with the real `gh`
talking to a stateful GitHub stand-in."""

from __future__ import annotations

import json
import shutil

import pytest

from kbkit.__main__ import main
from kbkit.distill.pr_body import BODY_LIMIT, FENCE, REPORT_ROOM, fit_body
from kbkit.distill.publication import REVIEW, SHADOW, settings_from_env
from kbkit.infra import inert
from kbkit.infra.errors import KbkitError, UsageError
from kbkit.intake.ledger import load_status
from kbkit.vcs import git
from tests.conftest import PINNED_NOW
from tests.distill.world import DAY, FORK, UPSTREAM, VAL, ScriptedGateway, World, world_fixture

__all__ = ["world_fixture"]  # the `world` fixture

BRANCH = f"knowledge/intake-{DAY}"
FOLLOW_UP = f"{BRANCH}-2"
NEXT_DAY = "2026-12-01"
NEXT_BRANCH = f"knowledge/intake-{NEXT_DAY}"
REPORT = f"## kbkit report, {DAY} to {DAY}"  # the day's `kb report --format markdown`
FULL = {
    "KBKIT_POST_MODE": "review",
    "KBKIT_KNOWLEDGE_PR_ENABLED": "true",
    "KBKIT_KNOWLEDGE_FORK_SLUG": FORK,
}


def added_rules(world: World, rev: str) -> list[str]:
    """The rule headings a PR head adds to the validators page against upstream main."""
    git.fetch(world.clone)
    diff = git.run_git(world.clone, "diff", f"origin/main...{rev}", "--", f"knowledge/{VAL}.md")
    return [line[5:].split(" — ")[0] for line in diff.splitlines() if line.startswith("+### ")]


@pytest.mark.parametrize(
    ("missing", "why"),
    [
        ("KBKIT_POST_MODE", "KBKIT_POST_MODE is not `review`"),
        ("KBKIT_KNOWLEDGE_PR_ENABLED", "KBKIT_KNOWLEDGE_PR_ENABLED is not `true`"),
        ("KBKIT_KNOWLEDGE_FORK_SLUG", "KBKIT_KNOWLEDGE_FORK_SLUG"),
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
    same = FULL | {"KBKIT_KNOWLEDGE_FORK_SLUG": UPSTREAM.upper()}
    with pytest.raises(UsageError, match="must not hold write access upstream"):
        settings_from_env(same, f"https://github.com/{UPSTREAM}.git", "main")
    world.review()
    monkeypatch.setenv("KBKIT_KNOWLEDGE_FORK_SLUG", UPSTREAM)
    keys = world.record(1)
    replies = world.root / "replies.jsonl"
    replies.write_text("")
    argv = ["distill", "--repo", str(world.root / "project"), "--knowledge-repo",
            str(world.upstream), "--model", f"replay:{replies}"]  # fmt: skip
    assert main(argv) == 2
    assert "must not hold write access upstream" in capsys.readouterr().err
    assert world.states(keys) == ["pending"] and world.prs() == []


@pytest.mark.slow
def test_review_gate_incomplete_runs_shadow_and_touches_no_fork(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    world.review()
    monkeypatch.delenv("KBKIT_KNOWLEDGE_PR_ENABLED")
    world.env.pop("KBKIT_KNOWLEDGE_PR_ENABLED")
    keys = world.record(1)
    report = world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    assert report.outcome == "shadowed" and report.url is None
    assert world.states(keys) == ["shadowed"]
    assert git.rev_parse(world.fork, f"refs/heads/{BRANCH}") is None
    assert world.prs() == [] and world.hub.log == []  # GitHub was never asked


@pytest.mark.slow
def test_create_pr_then_reuse_it_the_same_day(world: World) -> None:
    world.review()
    first = world.record(1)
    report = world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    assert report.outcome == "published"
    assert report.url == f"https://{world.hub.host}/{UPSTREAM}/pull/1"
    assert world.states(first) == ["published"]
    row = load_status(world.intake)[first[0]]
    assert row["url"] == report.url and row["batch_id"] == report.batch_id
    assert git.rev_parse(world.fork, f"refs/heads/{BRANCH}") == report.commit
    (pr,) = world.prs()
    assert pr["headRefName"] == BRANCH and pr["baseRefName"] == "main"
    assert "`merged_pr acme/app#1`" in pr["body"] and "kb check-knowledge-tree" in pr["body"]
    assert pr["record"].sources() == first and pr["record"].rule_ids() == ["VAL-2c"]
    second = world.record(2)
    again = world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}))
    assert again.url == report.url  # reused, not a second PR
    (pr,) = world.prs()
    assert len(pr["comments"]) == 1 and "`merged_pr acme/app#2`" in pr["comments"][0]["body"]
    assert world.states(second) == ["published"]
    history = world.branch_commits(world.fork, BRANCH)
    assert report.commit in history and again.commit in history  # built on, never reset
    assert pr["record"].rule_ids() == ["VAL-2c", "VAL-2d"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "method",
    [
        pytest.param("merge", marks=pytest.mark.stress),
        "squash",
        pytest.param("rebase", marks=pytest.mark.stress),
    ],
)  # merge commits and rebases: test_refresh.py (make test); all three here under `make stress`
def test_after_a_merge_a_rerun_by_hand_opens_a_follow_up_with_only_the_new_rule(
    world: World, method: str
) -> None:
    """Content decides what is published, not ancestry: after a squash or a rebase merge the
    day branch's commits are not in main, yet the follow-up carries only the new rule."""
    world.review()
    world.record(1)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    world.merge_pr(1, method=method)
    keys = world.record(2)
    gateway = ScriptedGateway({"acme/app#2": "VAL-2d"})
    scheduled = world.run(gateway, scheduled=True)
    assert scheduled.outcome == "deferred" and "at most one PR a day" in scheduled.notes[-1]
    assert gateway.calls == 0 and world.states(keys) == ["pending"] and len(world.prs()) == 1
    manual = world.run(gateway)
    assert manual.outcome == "published" and world.states(keys) == ["published"]
    first, follow_up = world.prs()
    assert follow_up["state"] == "OPEN" and follow_up["headRefName"] == FOLLOW_UP
    assert "Follow-up of #1 " in follow_up["body"]
    assert added_rules(world, follow_up["headRefOid"]) == ["VAL-2d"]
    assert world.main_page().count("### VAL-2c ") == 1
    merged = git.run_git(world.clone, "merge-tree", "--write-tree", "origin/main", follow_up["headRefOid"])  # fmt: skip
    assert merged.strip()  # merges cleanly (git merge-tree exits 1 on a conflict)


@pytest.mark.slow
def test_closed_then_rerun_opens_a_new_pr_without_the_closed_rule(world: World) -> None:
    world.review()
    world.record(1)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    world.merge_pr(1, state="CLOSED")
    keys = world.record(2)
    report = world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}))
    assert report.outcome == "published" and report.url is not None
    assert report.url.endswith("/pull/2") and world.states(keys) == ["published"]
    assert added_rules(world, world.prs()[1]["headRefOid"]) == ["VAL-2d"]


@pytest.mark.slow
def test_two_open_prs_never_take_the_same_rule_id(world: World) -> None:
    """Day 1's PR is still open on day 2: its rule is taken in the prompt and in validation,
    so day 2 cannot open a second PR adding it (the two would conflict)."""
    world.review()
    world.record(1)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}), scheduled=True)
    world.record(2)
    again = ScriptedGateway({"acme/app#2": "VAL-2c"})
    tomorrow = world.run(again, scheduled=True, day=NEXT_DAY)
    prompt = again.prompts[0]
    assert "IDs taken by open pull requests (never use, never anchor on): VAL-2c" in prompt
    assert tomorrow.outcome == "refused"  # the model's fault: the event is proposed again
    (rejected,) = tomorrow.rejected
    assert rejected["reason"] == "rule-id-taken" and "open pull request #1" in rejected["message"]
    assert len(world.prs()) == 1
    row = load_status(world.intake)[("merged_pr", "acme/app#2")]
    assert row["state"] == "pending" and row["attempts"] == 1
    assert row["reason"] == "every proposal refused (VAL-2c: rule-id-taken)"
    world.record(3)
    fine = world.run(ScriptedGateway({"acme/app#3": "VAL-2d"}), scheduled=True, day=NEXT_DAY)
    assert fine.outcome == "published"
    assert [p["record"].rule_ids() for p in world.prs()] == [["VAL-2c"], ["VAL-2d"]]


@pytest.mark.slow
def test_a_lost_status_push_on_a_fresh_runner_opens_no_second_pr(world: World) -> None:
    """The next day's runner has neither state/ nor the status rows the last run wrote:
    GitHub's knowledge PRs say what is published, so nothing is distilled twice."""
    world.review()
    keys = world.record(1)
    status = world.intake / "status.jsonl"
    before = status.read_bytes()
    first = world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}), scheduled=True)
    status.write_bytes(before)  # the push of these status rows was rejected
    shutil.rmtree(world.state)  # a fresh runner
    assert world.states(keys) == ["pending"]
    gateway = ScriptedGateway({"acme/app#1": "VAL-2x"})
    report = world.run(gateway, scheduled=True, day=NEXT_DAY)
    assert gateway.calls == 0 and report.outcome == "nothing-pending"
    row = load_status(world.intake)[keys[0]]
    assert row["state"] == "published" and row["url"] == first.url
    assert "read back from GitHub" in row["reason"] and len(world.prs()) == 1


@pytest.mark.slow
def test_a_fresh_runner_keeps_the_review_evidence_of_earlier_batches(world: World) -> None:
    world.review()
    world.record(1)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    shutil.rmtree(world.state)  # a second same-day run on a fresh runner
    world.record(2)
    world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}))
    (pr,) = world.prs()
    assert "transcript not found" not in pr["body"]
    assert pr["body"].count("findings before: 0, after: 0") == 4  # two batches, two validators
    assert "`merged_pr acme/app#1`" in pr["body"] and "`merged_pr acme/app#2`" in pr["body"]


@pytest.mark.slow
def test_a_refused_pr_creation_is_an_attempt_and_the_next_run_publishes_the_commit(
    world: World,
) -> None:
    world.review()
    keys = world.record(1)
    world.fail("pr create", 422)
    report = world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    assert report.outcome == "failed" and "Validation Failed" in report.notes[-1]
    assert world.states(keys) == ["pending"] and load_status(world.intake)[keys[0]]["attempts"] == 1
    assert git.rev_parse(world.fork, f"refs/heads/{BRANCH}") == report.commit  # pushed
    world.heal()
    gateway = ScriptedGateway({"acme/app#1": "VAL-2c"})
    again = world.run(gateway)
    assert gateway.calls == 0  # nothing re-distilled: the committed batch was published
    assert world.states(keys) == ["published"] and len(world.prs()) == 1
    assert again.outcome == "nothing-pending"


@pytest.mark.slow
def test_github_down_or_hanging_is_exit_4_and_counts_no_attempt(world: World) -> None:
    world.review()
    keys = world.record(1)
    world.fail("pr create", 502)
    with pytest.raises(KbkitError, match="GitHub failed") as failed:
        world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    assert failed.value.exit_code == 4
    row = load_status(world.intake)[keys[0]]
    assert row["state"] == "pending" and row["attempts"] == 0
    world.heal()
    world.monkeypatch.setenv("KBKIT_GH_TIMEOUT", "2")
    world.fail("pr create", late=6)  # GitHub opens the PR; its answer never arrives in time
    with pytest.raises(KbkitError, match="did not finish within 2s") as hung:
        world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    assert hung.value.exit_code == 4 and world.states(keys) == ["pending"]
    world.heal()
    gateway = ScriptedGateway({"acme/app#1": "VAL-2c"})
    report = world.run(gateway)  # the PR GitHub opened is read back: no second one
    assert gateway.calls == 0 and report.outcome == "nothing-pending"
    assert world.states(keys) == ["published"] and len(world.prs()) == 1


@pytest.mark.slow
@pytest.mark.parametrize(("call", "page"), [("pr create", "html"), ("pr list", "empty")])
def test_github_error_pages_are_exit_4_and_count_no_attempt(
    world: World, call: str, page: str
) -> None:
    """GitHub's front end answers many 502/503/504s with an HTML page or no body (gh: `HTTP
    502`): as many outages as the attempt cap, and more, leave the rows pending, uncharged."""
    world.review()
    world.monkeypatch.setenv("KBKIT_GH_RETRY_PAUSE", "0.01")
    keys = world.record(1)
    world.fail(call, 503, page=page)
    for _ in range(4):  # the cap is three attempts: one outage more than it
        with pytest.raises(KbkitError, match="GitHub failed") as failed:
            world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
        assert failed.value.exit_code == 4
    row = load_status(world.intake)[keys[0]]
    assert row["state"] == "pending" and row["attempts"] == 0
    world.heal()
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    assert world.states(keys) == ["published"] and len(world.prs()) == 1


@pytest.mark.slow
def test_gh_missing_is_exit_4_and_counts_no_attempt(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    world.review()
    only_git = world.root / "only-git"  # a PATH with git and nothing else: no gh anywhere
    only_git.mkdir()
    (only_git / "git").symlink_to(shutil.which("git") or "/usr/bin/git")
    monkeypatch.setenv("PATH", str(only_git))
    keys = world.record(1)
    for _ in range(4):  # as many runs as the cap allows, and one more
        with pytest.raises(KbkitError, match="gh .the GitHub CLI. is not installed") as missing:
            world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
        assert missing.value.exit_code == 4
    row = load_status(world.intake)[keys[0]]
    assert row["state"] == "pending" and row["attempts"] == 0


@pytest.mark.slow
def test_rows_the_attempt_cap_fails_leave_the_branch_with_their_commit(world: World) -> None:
    world.review()
    capped = world.record(1)
    world.fail("pr create", 422)
    assert world.run(ScriptedGateway({"acme/app#1": "VAL-2c"})).outcome == "failed"
    with pytest.raises(KbkitError, match="still unpublished"):
        world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    third = world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))  # the cap: failed, and gone
    assert third.outcome == "nothing-pending" and world.states(capped) == ["failed"]
    assert any("reached the attempt cap and left" in note for note in third.notes)
    assert git.rev_parse(world.clone, f"refs/heads/{BRANCH}") == git.rev_parse(world.clone, "origin/main")  # fmt: skip
    world.heal()
    fresh = world.record(2)
    report = world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}))
    assert report.outcome == "published" and world.states(capped + fresh) == ["failed", "published"]
    (pr,) = world.prs()
    assert added_rules(world, pr["headRefOid"]) == ["VAL-2d"]  # the failed batch did not ship


@pytest.mark.slow
def test_a_rejected_push_is_an_attempt_and_the_body_lists_only_what_the_branch_has(
    world: World,
) -> None:
    world.review()
    world.record(1)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    hook = world.fork / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'the fork is read-only today' >&2\nexit 1\n")
    hook.chmod(0o755)
    keys = world.record(2)
    report = world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}))
    assert report.outcome == "failed" and "the fork is read-only today" in report.notes[-1]
    assert world.states(keys) == ["pending"]
    (pr,) = world.prs()
    assert pr["record"].rule_ids() == ["VAL-2c"] and pr["comments"] == []
    hook.unlink()
    again = world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}))
    assert again.outcome == "nothing-pending" and world.states(keys) == ["published"]
    (pr,) = world.prs()
    assert pr["record"].rule_ids() == ["VAL-2c", "VAL-2d"]
    assert added_rules(world, pr["headRefOid"]) == ["VAL-2c", "VAL-2d"]


@pytest.mark.slow
def test_no_rules_never_marks_done_while_a_batch_is_unpublished(world: World) -> None:
    world.review()
    committed = world.record(1)
    world.fail("pr create", 422)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    fresh = world.record(2)
    nothing = ScriptedGateway(reply=json.dumps({"proposals": []}))
    with pytest.raises(KbkitError, match="still unpublished"):
        world.run(nothing)
    assert nothing.calls == 0
    assert world.states(committed + fresh) == ["pending", "pending"]
    world.heal()
    report = world.run(nothing)
    assert report.outcome == "no-rules"
    assert world.states(committed + fresh) == ["published", "shadowed"]


@pytest.mark.slow
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


@pytest.mark.slow
def test_a_wiped_work_clone_builds_on_the_published_day_branch(world: World) -> None:
    world.review()
    world.record(1)
    first = world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    shutil.rmtree(world.clone)
    keys = world.record(2)
    again = world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}))
    assert again.outcome == "published" and again.url == first.url
    assert first.commit in world.branch_commits(world.fork, BRANCH)
    assert world.states(keys) == ["published"] and len(world.prs()) == 1


@pytest.mark.slow
def test_after_a_merge_the_next_scheduled_day_opens_its_own_pr(world: World) -> None:
    world.review()
    world.record(1)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}), scheduled=True)
    world.merge_pr(1, method="squash")
    waiting = world.record(2)
    assert world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}), scheduled=True).outcome == (
        "deferred"
    )
    fresh = world.record(3)
    both = ScriptedGateway({"acme/app#2": "VAL-2d", "acme/app#3": "VAL-2e"})
    tomorrow = world.run(both, scheduled=True, day=NEXT_DAY)
    assert both.calls == 1 and tomorrow.events == ("merged_pr acme/app#2", "merged_pr acme/app#3")
    assert tomorrow.outcome == "published" and world.states(waiting + fresh) == ["published"] * 2
    assert [p["headRefName"] for p in world.prs()] == [BRANCH, NEXT_BRANCH]  # one PR per day


@pytest.mark.slow
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
    assert load_status(world.intake)[shadowed[0]]["url"] == report.url
    (pr,) = world.prs()
    assert pr["record"].sources() == shadowed + fresh
    assert pr["body"].count("## Batch ") == 2


@pytest.mark.slow
def test_the_pr_body_carries_the_days_report_rebuilt_for_each_added_batch(world: World) -> None:
    world.review()
    world.record(1)
    first = world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    body = world.prs()[0]["body"]
    assert body.count(REPORT) == 1 and body.index("## Batch ") < body.index(REPORT)
    report = body[body.index(REPORT) :]
    assert "- **Tree**: Healthy: no findings on 29 pages" in report
    assert "- **Proposed**: 1 proposal in 1 batch: 1 accepted" in report
    assert first.batch_id is not None
    assert first.batch_id.replace("_", "\\_") in report  # the batches table
    assert f"_Generated {PINNED_NOW} by `kb report`" in report  # kbkit's clock: deterministic
    assert "_(from intake/events.jsonl, intake/status.jsonl" in report, report
    assert str(world.root) not in body
    world.record(2)
    second = world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}))
    (pr,) = world.prs()
    report = pr["body"][pr["body"].index(REPORT) :]
    assert pr["body"].count(REPORT) == 1 and "- **Proposed**: 2 proposals in 2 batches" in report
    assert second.batch_id is not None
    assert second.batch_id.replace("_", "\\_") in report
    assert REPORT not in pr["comments"][0]["body"]  # the comment names only the new batch


@pytest.mark.slow
def test_a_report_that_cannot_be_built_never_fails_the_publication(world: World) -> None:
    world.review()
    keys = world.record(1)
    (world.intake / "cursor.json").write_text("{not json")  # kb report reads it, distill not
    report = world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    assert report.outcome == "published" and world.states(keys) == ["published"]
    body = world.prs()[0]["body"]
    (line,) = [x for x in body.splitlines() if "could not be built" in x]
    assert line.startswith("The report could not be built: `InputError: ")
    assert "cursor.json: not a valid cursor file" in line and "## Batch " in body


@pytest.mark.slow
def test_the_shadow_artifact_carries_the_body_review_would_send(world: World) -> None:
    keys = world.record(1)
    report = world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    assert report.outcome == "shadowed" and report.artifacts is not None
    body = (report.artifacts / "pr-body.md").read_text()
    assert body.startswith(f"Knowledge intake for {DAY}, distilled by `kb distill`.")
    assert f"## Batch {report.batch_id} ({(report.commit or '')[:12]})" in body
    assert f"- `{keys[0][0]} {keys[0][1]}`" in body and body.count(REPORT) == 1
    assert f"_Generated {PINNED_NOW} by `kb report`" in body


HOSTILE = "Ask @acme/security and @dev1 about #12, GH-7 and acme/app#3"


@pytest.mark.slow
def test_posted_text_mentions_nobody_and_links_nothing(world: World) -> None:
    """Titles copied into the PR body, its comments, the report's "oldest pending" line and
    the commit messages keep their words and lose their live mentions and references."""
    world.review()
    world.record(1, 2, 3, title=HOSTILE)
    gateway = ScriptedGateway({"acme/app#3": "VAL-2c"})
    world.run(gateway, max_events=1)  # the others wait: the body names the oldest of them
    world.record(4, title=HOSTILE)
    world.run(ScriptedGateway({"acme/app#4": "VAL-2d"}), max_events=1)
    (pr,) = world.prs()
    texts = [pr["body"], *(c["body"] for c in pr["comments"])]
    for text in texts:
        assert inert.markdown(text) == text  # nothing left to make inert
    assert "@&#8203;acme/security" in pr["body"] and "#&#8203;12" in pr["body"]
    assert "GH&#8203;-7" in pr["body"] or "G&#8203;H-7" in pr["body"] or "GH-&#8203;7" in pr["body"]
    messages = git.run_git(world.fork, "log", "--format=%B", BRANCH, "--not", "main")
    assert inert.plain(messages) == messages and "acme/app#\u200b4" in messages


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


def test_rule_titles_and_sources_in_the_commit_message_mention_nobody() -> None:
    """A proposed title copied into the batch commit keeps its words but no live mention or
    reference (GitHub would notify the team and cross-link issue 12 on every push); the
    source trailers too, and they read back as the source ids they were."""
    from kbkit.distill.work_clone import commit_message, parse_trailers
    from kbkit.infra.inert import ZWSP

    sources = [("merged_pr", "acme/app#12"), ("bugfix_run", "run-1")]
    message = commit_message("b1", "2026-12-01", sources, ["VAL-2c — ask @acme/security about #12"])
    assert f"- VAL-2c — ask @{ZWSP}acme/security about #{ZWSP}12\n" in message
    assert f"Kbkit-Source: merged_pr acme/app#{ZWSP}12\n" in message
    parsed = parse_trailers("0" * 40, message)
    assert parsed is not None and parsed.sources == tuple(sources)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["shadow", "review"])
def test_a_renamed_default_branch_is_followed(world: World, mode: str) -> None:
    """The knowledge repository renames its default branch (main -> trunk, as GitHub does:
    the old one is gone): a host that keeps state/ follows it the next day instead of
    stopping on the branch its clone was made with."""
    if mode == "review":
        world.review()
    first = world.record(1)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}), scheduled=True)
    for bare in (world.upstream, world.fork):
        git.run_git(bare, "branch", "-m", "main", "trunk")
        git.run_git(bare, "symbolic-ref", "HEAD", "refs/heads/trunk")
    second = world.record(2)
    report = world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}), scheduled=True, day=NEXT_DAY)
    assert report.outcome == ("published" if mode == "review" else "shadowed")
    assert world.states(first + second)[1] == report.outcome
    base = git.run_git(world.clone, "merge-base", "HEAD", "origin/trunk").strip()
    assert base == git.run_git(world.upstream, "rev-parse", "trunk").strip()


def test_a_base_branch_that_does_not_exist_is_a_usage_error(world: World) -> None:
    world.record(1)
    with pytest.raises(UsageError, match="has no branch 'trunk' \\(--base-branch\\)"):
        world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}), base_branch="trunk")


@pytest.mark.slow
def test_a_pr_closed_unmerged_rejects_its_events_until_requeued(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    """A person closes today's knowledge PR without merging it: its events are `rejected`
    (not published, never proposed again), counted so by `kb intake status`; `kb intake
    requeue --rejected` proposes them again in a new PR."""
    world.review()
    keys = world.record(1)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}), scheduled=True)
    world.merge_pr(1, "CLOSED")
    again = ScriptedGateway({"acme/app#1": "VAL-2c"})
    report = world.run(again, scheduled=True, day=NEXT_DAY)
    assert report.outcome == "nothing-pending" and again.calls == 0
    row = load_status(world.intake)[keys[0]]
    assert row["state"] == "rejected" and row["url"].endswith("/pull/1")
    assert row["reason"] == "knowledge PR #1 was closed without merging"
    capsys.readouterr()
    assert (
        main(["intake", "status", "--repo", str(world.root / "project"), "--format", "json"]) == 0
    )
    totals = json.loads(capsys.readouterr().out)["totals"]
    assert totals["rejected"] == 1 and totals["published"] == 0
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}), scheduled=True, day=NEXT_DAY)
    assert world.states(keys) == ["rejected"]  # stays rejected, run after run
    argv = ["intake", "requeue", "--rejected", "--reason", "reviewed again",
            "--repo", str(world.root / "project")]  # fmt: skip
    assert main(argv) == 0
    assert "acme/app#1: rejected -> pending (reviewed again)" in capsys.readouterr().out
    redo = ScriptedGateway({"acme/app#1": "VAL-2c"})
    third = world.run(redo, day="2026-12-02")
    assert redo.calls == 1 and third.outcome == "published" and str(third.url).endswith("/pull/2")
    assert world.states(keys) == ["published"]
    world.run(ScriptedGateway({}), day="2026-12-02")  # the closed PR still lists it: no matter
    assert world.states(keys) == ["published"]
