"""A month of the daily loop, simulated: the shipped workflow, run day after day on a fresh
runner, against a stateful GitHub stand-in driven by the real `gh`.

The world: a team repository (a real bare git repository: main, which the bot never pushes,
and the bot's state branch) whose closed pull requests the stand-in serves, 5-40 a day
(drafts, closed unmerged, hostile titles); the upstream knowledge repository and the bot's
fork as real bare repositories; a model provider (an OpenAI-compatible endpoint reached
through the real `llm` library) that reads the prompt and proposes the next free rule IDs.

Each day: reviewers merge the PRs they are done with after 0-5 days (merge commit, squash or
rebase, only when GitHub would: no conflict, and the team's required check `kb check` passes
on the merge result) and close some; people edit the same rule pages by hand on main (a rule
with main's next ID, a reworded bullet); then the workflow's steps run in a fresh folder with
a fresh HOME, exactly as `examples/github-actions/kbkit-daily.yml` writes them. During a run,
main may move (a merge or a hand edit in the middle of distill), the state branch may refuse
pushes, and gh calls fail (HTTP 502 as an error object, an HTML page or an empty body;
a primary or secondary rate limit) or hang past KBKIT_GH_TIMEOUT at random. Drawn days
also bring a model whose every proposal is refused, a run that fires at 23:59 or 00:00 UTC
(GitHub's cron is late or early), a person force-pushing the knowledge repository's main
(the last commit rewritten), and once a month its default branch renamed (main -> trunk,
open PRs retargeted as GitHub does).

After every day the invariants of issue #25 are checked from the outside (git and the
stand-in's own state, never kbkit's word), and one row of the month table is kept.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import yaml

from kbkit.demo import make_knowledge_repo
from kbkit.distill.pr_record import decode
from kbkit.intake.sources.drop import render_comment
from tests.conftest import PROJECT
from tests.distill.github_standin import Fault, PullState, StandIn, git, serve

WORKFLOW = PROJECT / "examples" / "github-actions" / "kbkit-daily.yml"
TEAM, UPSTREAM, FORK = "acme/app", "acme/knowledge", "kb-bot/knowledge"
START = date(2026, 12, 1)
RUN_AT = "05:17:00"  # the workflow's cron
BIN = Path(sys.executable).parent
HEADING = re.compile(r"^#{2,6} ([A-Z][A-Z0-9]*(?:-[A-Z][A-Z0-9]*)*-\d+[a-z]) ", re.M)
HOSTILE = [
    "Fix @acme/security's review of #123",
    "Revert GH-2 (ping @dev3)",
    "Cache: see acme/app#9 and @acme/infra",
]


# --- the model provider -----------------------------------------------------------------


class SimModel:
    """Reads kbkit's prompt like a careful model: one rule per event on a page of the
    catalog, the next ID no listed ID uses (existing or taken by an open PR); now and then
    also a row that reuses an ID (rejected), or nothing at all."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.calls = 0
        self.lock = threading.Lock()
        self.refuse_all = False  # today every proposal reuses a taken ID: all refused

    def reply(self, prompt: str) -> str:
        with self.lock:
            self.calls += 1
            return json.dumps({"proposals": self._proposals(prompt)})

    def _proposals(self, prompt: str) -> list[dict[str, Any]]:
        limit = int(re.search(r"at most (\d+) proposals", prompt).group(1))  # type: ignore[union-attr]
        sources = json.loads("[" + re.search(r"source IDs: (.*)\)\n", prompt).group(1) + "]")  # type: ignore[union-attr]
        pages = _pages(prompt)
        numbered = [page for page in pages if page.existing]
        if self.refuse_all and numbered:  # each proposal reuses an ID the page has: refused
            return [_row(numbered[0], numbered[0].existing[-1], None, s) for s in sources[:limit]]
        if not pages or self.rng.random() < 0.03:
            return []  # nothing durable in this evidence
        rows: list[dict[str, Any]] = []
        for source in sources[:limit]:
            page = pages[sum(map(ord, source)) % len(pages)]
            rule_id, group = page.next_id()
            rows.append(_row(page, rule_id, group, source))
        if self.rng.random() < 0.1 and rows and pages[0].existing:
            bad = dict(rows[0], rule_id=pages[0].existing[-1])  # reuses an ID: refused
            bad["section"] = rows[0]["section"].replace(rows[0]["rule_id"], bad["rule_id"], 1)
            bad["target"] = pages[0].target
            rows.append(bad)
        return rows[: max(limit, 1)]


@dataclass
class _Page:
    target: str
    prefix: str
    level: int
    existing: list[str]
    taken: list[str]
    used: list[str] = field(default_factory=list)

    def next_id(self) -> tuple[str, str | None]:
        ids = self.existing + self.taken + self.used
        groups = [int(m.group(1)) for i in ids if (m := re.search(r"-(\d+)[a-z]$", i))]
        group = max(groups or [1])
        letters = [i[-1] for i in ids if re.search(rf"-{group}[a-z]$", i)]
        if letters and max(letters) == "z":
            group, letter, heading = group + 1, "a", f"{group + 1}. More lessons"
        else:
            letter, heading = chr(ord(max(letters)) + 1) if letters else "a", None
        rule_id = f"{self.prefix}-{group}{letter}"
        self.used.append(rule_id)
        return rule_id, heading


def _pages(prompt: str) -> list[_Page]:
    found = []
    for block in prompt.split("\n- target `")[1:]:
        target = block.split("`", 1)[0]
        prefix = re.search(r"\n  prefix: ([A-Z][A-Z0-9-]*);", block)
        level = re.search(r"sections `(#+) ", block)
        if prefix is None or level is None or "bullet-style" in block.split("\n  groups")[0]:
            continue
        existing = re.search(r"\n  existing IDs: (.*)", block)
        taken = re.search(r"\n  IDs taken by open pull requests[^:]*: (.*)", block)
        found.append(
            _Page(
                target,
                prefix.group(1),
                len(level.group(1)),
                _ids(existing.group(1) if existing else ""),
                _ids(taken.group(1) if taken else ""),
            )
        )
    return found


def _ids(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip() and t.strip() != "(none)"]


def _row(page: _Page, rule_id: str, group: str | None, source: str) -> dict[str, Any]:
    section = "\n".join(
        [
            f"{'#' * page.level} {rule_id} — Keep the lesson of {source}",
            "",
            "- Trigger: a change like the one the evidence describes.",
            "- Must: repeat what the merged fix did and test it.",
            "- Must not: skip the test the fix added.",
            f"- Acceptance: the test exists and passes. ^[{source}]",
        ]
    )
    return {
        "target": page.target,
        "rule_id": rule_id,
        "title": f"Keep the lesson of {source}",
        "after": None,
        "group": group,
        "section": section,
        "citations": [source],
        "rationale": "the evidence shows a repeatable fix",
        "table_rows": None,
        "new_page": None,
    }


@contextmanager
def model_server(model: SimModel) -> Iterator[str]:
    """The model behind an OpenAI-compatible `/v1/chat/completions`; yields its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            prompt = request["messages"][-1]["content"]
            if isinstance(prompt, list):
                prompt = "".join(part.get("text", "") for part in prompt)
            answer = {
                "id": "chatcmpl-sim",
                "object": "chat.completion",
                "created": 0,
                "model": request.get("model", "sim"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": model.reply(prompt)},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
            data = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


# --- the workflow, as a runner runs it --------------------------------------------------


class Workflow:
    """The steps of the shipped workflow, run with bash the way a GitHub runner does: `run`
    scripts with their `env`, `${{ vars.X }}`, `${{ secrets.X }}` and `${{ github.* }}`
    filled in, `if:` honoured, `uses:` steps done by the runner (checkout, upload)."""

    EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")

    def __init__(self, variables: dict[str, str], secrets: dict[str, str]):
        document = yaml.safe_load(WORKFLOW.read_text())
        self.job = document["jobs"]["intake"]
        self.variables = variables
        self.secrets = secrets
        self.outcomes: dict[str, str] = {}  # `steps.ID.outcome` of this run's steps so far
        self.unreachable: dict[str, str] = {}  # step name -> a git remote it cannot reach

    def value(self, text: str, run_id: int) -> str:
        def one(found: re.Match[str]) -> str:
            terms = (term(e.strip()) for e in found.group(1).split("||"))  # a || b: the first set
            return next((v for v in terms if v), "")

        def term(expression: str) -> str:
            if expression.startswith("vars."):
                return self.variables.get(expression[5:], "")
            if expression.startswith("secrets."):
                return self.secrets.get(expression[8:], "")
            if expression == "github.token":
                return self.secrets["GITHUB_TOKEN"]
            if expression == "github.run_id":
                return str(run_id)
            if expression in self.outcomes:
                return self.outcomes[expression]
            raise AssertionError(f"the simulation does not know ${{{{ {expression} }}}}")

        return self.EXPRESSION.sub(one, str(text))

    def run(self, runner: Path, env: dict[str, str], run_id: int, on_uses: Any, log: list[str]) -> list[tuple[str, int]]:  # fmt: skip
        """Every step in order; (step name, exit code) for each that ran."""
        outcomes: list[tuple[str, int]] = []
        failed = False
        self.outcomes = {}
        job_env = {k: self.value(v, run_id) for k, v in (self.job.get("env") or {}).items()}
        for step in self.job["steps"]:
            name = step.get("name") or step.get("uses", "")
            condition = (
                str(step.get("if", "success()")).replace("${{", "").replace("}}", "").strip()
            )
            if not self.holds(condition, failed):
                if "id" in step:
                    self.outcomes[f"steps.{step['id']}.outcome"] = "skipped"
                continue
            if "uses" in step:
                code = on_uses(step["uses"], {k: self.value(v, run_id) for k, v in (step.get("with") or {}).items()})  # fmt: skip
            elif name == "Install kbkit":
                code = 0  # the runner's PATH has this checkout's kbkit already
            else:
                step_env = {k: self.value(v, run_id) for k, v in (step.get("env") or {}).items()}
                if name in self.unreachable:  # git's own config, as a broken network would
                    step_env |= {"GIT_CONFIG_COUNT": "1",
                                 "GIT_CONFIG_KEY_0": "url./nonexistent/remote.insteadOf",
                                 "GIT_CONFIG_VALUE_0": self.unreachable[name]}  # fmt: skip
                script = self.value(step["run"], run_id)
                started = time.monotonic()
                done = subprocess.run(
                    ["bash", "-e", "-c", script],
                    cwd=runner,
                    env={**env, **job_env, **step_env},
                    capture_output=True,
                    text=True,
                    timeout=900,
                )
                code = done.returncode
                took = time.monotonic() - started
                log.append(f"--- {name} (exit {code}, {took:.1f} s)\n{done.stdout}{done.stderr}")
            outcomes.append((name, code))
            failed = failed or code != 0
            if "id" in step:
                self.outcomes[f"steps.{step['id']}.outcome"] = "success" if code == 0 else "failure"
        return outcomes

    def holds(self, condition: str, failed: bool) -> bool:
        """An `if:` of the forms the workflow uses: status functions, `steps.ID.outcome
        == 'x'` and `vars.X != 'y'` comparisons, joined by `&&`."""
        truth = []
        for part in (p.strip() for p in condition.split("&&")):
            if part in ("success()", "failure()"):
                truth.append(failed == (part == "failure()"))
            elif part in ("!cancelled()", "always()"):
                truth.append(True)  # the simulation never cancels a run
            elif (found := re.fullmatch(r"(steps\.\w+\.outcome) == '(\w+)'", part)) is not None:
                truth.append(self.outcomes.get(found.group(1)) == found.group(2))
            elif (found := re.fullmatch(r"vars\.(\w+) (==|!=) '(\w*)'", part)) is not None:
                same = self.variables.get(found.group(1), "") == found.group(3)
                truth.append(same == (found.group(2) == "=="))
            else:
                raise AssertionError(f"the simulation does not know `if: {condition}`")
        return all(truth)


# --- the month --------------------------------------------------------------------------


@dataclass
class Day:
    day: str
    team_prs: int = 0
    merged_team_prs: int = 0
    opened: int = 0
    updated: int = 0
    merged: int = 0
    closed: int = 0
    landed: int = 0
    open_after: int = 0
    states: dict[str, int] = field(default_factory=dict)
    faults: int = 0
    notes: list[str] = field(default_factory=list)
    recorded: int = 0  # events the ledgers gained today (in)
    decided: int = 0  # events that left pending today (out: published, skipped, ...)
    model_calls: int = 0
    github_calls: int = 0


class Month:
    def __init__(self, root: Path, seed: int, certs: Path, team_prs: tuple[int, int], history: int, repos: int = 1):  # fmt: skip
        self.root = root
        # The organization: one repository (its own state branch), or several on one cron
        # sharing one state branch (`KBKIT_STATE_REMOTE`), the first of them distilling.
        self.slugs = [TEAM] + [f"acme/svc{i}" for i in range(1, repos)]
        self.shared_state = root / "state.git" if repos > 1 else None
        self.numbers: dict[str, int] = {}
        self.merged_at: dict[tuple[str, str], str] = {}  # every merged team PR: its moment
        self.covered: dict[str, str] = {}  # repository -> the run time its events are saved to
        self.last_states: dict[str, int] = {}
        self.lock = threading.Lock()
        self.rng = random.Random(seed)
        self.seed = seed
        self.certs = certs
        self.clock = f"{START.isoformat()}T{RUN_AT}Z"
        self.hub = StandIn(lambda: self.clock)
        self.model = SimModel(random.Random(seed + 1))
        self.pulls_fail = random.Random(seed + 2)  # its own draws: the other days stay as they were
        self.reviewers = random.Random(seed + 3)  # likewise, for reviewers' fix-up commits
        self.fix_ups: list[tuple[int, str]] = []  # (knowledge PR, file a reviewer's commit adds)
        self.fix_up_on: set[int] = set()  # days a reviewer surely pushes (besides the draws)
        self.failed_pulls: set[int] = set()  # days whose state pull fails (besides the draws)
        # people and the clock, drawn from their own generators (the other draws stay put)
        self.people = random.Random(seed + 4)
        self.refuse_on: set[int] = set()  # days the model's every proposal is refused
        self.force_push_on: set[int] = set()  # days a person force-pushes the knowledge main
        self.edge_runs: dict[int, str] = {}  # day -> the time its run fires (23:59, 00:00)
        self.rename_on = self.people.randint(8, 22)  # the knowledge repository's main -> trunk
        self.base = "main"  # the knowledge repository's default branch
        self.run_at = RUN_AT  # the time today's run fires
        self.shadowed: set[tuple[str, str]] = set()  # events shadowed so far ("no rules")
        self.team = root / "team.git"
        self.teams = {slug: self.team if slug == TEAM else root / f"team-{slug.split('/')[1]}.git" for slug in self.slugs}  # fmt: skip
        self.upstream = root / "upstream.git"
        self.fork = root / "fork.git"
        self.number = 0
        self.delays: dict[int, int] = {}  # knowledge PR -> days reviewers take
        self.merged_rules: dict[int, list[str]] = {}  # merged PR -> the rule IDs it carried
        self.checked_heads: set[str] = set()
        self.rows: list[Day] = []
        self.team_prs, self.history = team_prs, history
        self.in_steps = False
        self.faults = 0
        self.moved_mid_run = False
        self.mid_run: tuple[int, str] | None = None
        self.requests = 0
        self.logs: list[str] = []
        self._build()
        self.last_main = len(self.main_rule_ids())

    # --- the world ------------------------------------------------------------------------
    def _build(self) -> None:
        seed = self.root / "seed"
        seed.mkdir()
        make_knowledge_repo(PROJECT, seed)
        policy = seed / "knowledge" / "policy.yaml"  # one validator run per gate, not two
        policy.write_text(policy.read_text() + "\ncurator:\n  gate: clean\n")
        git(seed, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qam", "gate: clean")
        git(self.root, "clone", "--quiet", "--bare", str(seed), str(self.upstream))
        git(self.root, "clone", "--quiet", "--bare", str(seed), str(self.fork))
        self.hub.add_repo(UPSTREAM, self.upstream)
        self.hub.add_repo(FORK, self.fork)
        control = self.root / "refuse-state-push"
        hook_text = (
            "#!/bin/sh\nwhile read old new ref; do\n"
            '  if [ "$ref" = refs/heads/main ]; then echo "protected branch: main" >&2; exit 1; fi\n'
            f'  if [ -e {control} ]; then echo "refused today: the remote is unavailable" >&2; exit 1; fi\n'
            "done\n"
        )
        for slug, bare in self.teams.items():
            team = self.root / f"seed-{slug.replace('/', '-')}"
            team.mkdir()
            git(team, "init", "--quiet", "-b", "main")
            (team / "intake").mkdir()
            (team / "intake" / "config.yaml").write_text(f"repo: {slug}\n")
            (team / "README.md").write_text("The team's application.\n")
            git(team, "add", "-A")
            git(team, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "init")
            git(self.root, "clone", "--quiet", "--bare", str(team), str(bare))
            hook = bare / "hooks" / "pre-receive"
            hook.write_text(hook_text)
            hook.chmod(0o755)
            self.hub.team[slug] = []
        if self.shared_state is not None:  # the organization's one state branch
            git(self.root, "init", "--quiet", "--bare", str(self.shared_state))
            hook = self.shared_state / "hooks" / "pre-receive"
            hook.write_text(hook_text)
            hook.chmod(0o755)
        history = START - timedelta(days=40)  # before the first run: older history
        for n in range(self.history):
            moment = f"{(history + timedelta(hours=6 * n)).isoformat()}T09:00:00Z"
            self._team_pull(moment, merged=n % 3 != 0, slug=self.slugs[n % len(self.slugs)])

    def _team_pull(self, moment: str, merged: bool, draft: bool = False, title: str | None = None, slug: str = TEAM, author: str | None = None) -> None:  # fmt: skip
        self.numbers[slug] = n = self.numbers.get(slug, 0) + 1
        if merged:
            self.merged_at[("merged_pr", f"{slug}#{n}")] = moment
        item = {
            "number": n,
            "title": title or f"Change {n}: tighten the parser",
            "html_url": f"https://github.com/{slug}/pull/{n}",
            "state": "closed",
            "user": {"login": author or f"dev{n % 5}"},
            "body": f"What PR {n} changed and why.",
            "created_at": moment,
            "updated_at": moment,
            "merged_at": moment if merged else None,
            "merge_commit_sha": f"{n:040x}" if merged else None,
            "labels": [],
            "draft": draft,
            "base": {"ref": "main", "repo": {"full_name": slug}},
        }
        patch = f"@@ -1 +1 @@\n-limit = {n}\n+limit = {n + 1}\n"
        path = f"src/m{n % 7}.py"
        self.hub.add_team_pull(slug, item, [{"filename": path, "status": "modified", "patch": patch}])  # fmt: skip
        if merged and n % 3 == 0:  # a reviewed PR: a requested change, a suggestion it took
            pull = self.hub.team[slug][-1]
            who = {"login": "reviewer1", "type": "User"}
            pull.reviews = [{"id": 5000 + n, "user": who, "author_association": "MEMBER",
                             "state": "CHANGES_REQUESTED", "submitted_at": moment,
                             "body": "Bound the limit, and ask @acme/infra about #44."}]  # fmt: skip
            pull.review_comments = [{
                "id": 9000 + n, "pull_request_review_id": 5000 + n, "user": who,
                "author_association": "MEMBER", "path": path, "line": 1, "original_line": 1,
                "diff_hunk": patch.rstrip("\n"), "created_at": moment,
                "body": f"```suggestion\nlimit = {n + 1}\n```",
                "html_url": f"https://github.com/{slug}/pull/{n}#discussion_r{9000 + n}",
            }]  # fmt: skip
            pull.threads = [{"root": 9000 + n, "isResolved": True}]

    def _fault(self, method: str, path: str) -> Fault | None:
        if not self.in_steps:
            return None
        with self.lock:  # several runners at once
            self.requests += 1
            roll = self.rng.random()
        if roll < 0.015:
            self.faults += 1  # GitHub's error object, or its front end's HTML or empty page
            return Fault("fail", 502, page=("json", "html", "empty")[self.faults % 3])
        if roll < 0.025:
            self.faults += 1
            return Fault("late", delay=5.0)
        if roll < 0.028:  # a primary rate limit (403 with its headers) or a secondary one (429)
            self.faults += 1
            return Fault("fail", 403, page="rate") if self.faults % 2 else Fault("fail", 429)
        return None

    def _during(self, method: str, path: str) -> None:
        if self.mid_run is None or not self.in_steps or "/pulls" not in path or "acme/knowledge" not in path:  # fmt: skip
            return
        left, what = self.mid_run
        if left > 1:
            self.mid_run = (left - 1, what)
            return
        self.mid_run = None
        # The person acts while the request waits for its answer, so the move is done before
        # the run reads that answer: the run must see it before it ends. (A move after the
        # run's last look at main is the next run's to catch, like the reviewers' of a day.)
        self._move_main(what)

    def _move_main(self, what: str) -> None:
        self.moved_mid_run = True  # a person on GitHub, while the run waits for an answer
        if what == "merge":
            self._review(force=True)
        else:
            self._hand_edit()

    # --- people ---------------------------------------------------------------------------
    def _review(self, force: bool = False) -> list[str]:
        done = []
        today = date.fromisoformat(self.clock[:10])
        for pull in list(self.hub.open_pulls(UPSTREAM)):
            delay = self.delays.setdefault(pull.number, self.rng.choice([0, 1, 1, 2, 3, 5]))
            created = date.fromisoformat(pull.created_at[:10])
            if not force and (today - created).days < delay:
                continue
            if self.rng.random() < 0.12:
                self.hub.close(UPSTREAM, pull.number)
                done.append(f"closed #{pull.number}")
                continue
            method = self.rng.choice(["merge", "squash", "rebase"])
            record = decode(pull.body)
            work = self.root / f"merge-{pull.number}"
            if self.hub.merge(UPSTREAM, pull.number, method, work, check=self._required_check):
                self.merged_rules[pull.number] = record.rule_ids() if record else []
                done.append(f"{method} #{pull.number}")
            else:
                done.append(f"#{pull.number} not mergeable today")
            if force:
                break
        return done

    def _fix_up(self, force: bool = False) -> list[str]:
        """A reviewer pushes a commit onto an open knowledge PR's branch in the bot's fork."""
        pulls = self.hub.open_pulls(UPSTREAM)
        if not pulls or (self.reviewers.random() > 0.25 and not force):
            return []
        pull = self.reviewers.choice(pulls)
        path = f"reviews/pr-{pull.number}-{len(self.fix_ups)}.md"
        work = self.root / "reviewer"
        git(self.root, "clone", "--quiet", "--branch", pull.head_ref, str(self.fork), str(work))
        (work / path).parent.mkdir(exist_ok=True)
        (work / path).write_text(f"# Review of #{pull.number}\n\nLooks right.\n")
        git(work, "add", path)
        git(work, "commit", "--quiet", "--author", "Rita Reviewer <rita@example.com>", "-m", f"Review fix-up for #{pull.number}")  # fmt: skip
        git(work, "push", "--quiet", "origin", pull.head_ref)
        shutil.rmtree(work)
        self.fix_ups.append((pull.number, path))
        return [f"reviewer pushed to #{pull.number}"]

    def _required_check(self, work: Path) -> bool:
        """The team's required status check on the merge result: `kb check`, and no rule ID
        twice (a stale PR whose ID a hand edit took merges textually, and must not land)."""
        done = subprocess.run([str(BIN / "kb"), "check", "--repo", str(work)], capture_output=True, text=True)  # fmt: skip
        ids = [i for page in (work / "knowledge").rglob("rules.md") for i in HEADING.findall(page.read_text())]  # fmt: skip
        return done.returncode == 0 and len(ids) == len(set(ids))

    def _hand_edit(self) -> str:
        """A person edits a rule page on main: a rule with main's next ID, or a reworded
        bullet of the page's last rule."""
        work = self.root / "hand"
        if work.exists():
            shutil.rmtree(work)
        git(self.root, "clone", "--quiet", str(self.upstream), str(work))
        pages = sorted((work / "knowledge").rglob("rules.md"))
        page = self.rng.choice(pages)
        text = page.read_text()
        ids = HEADING.findall(text)
        if self.rng.random() < 0.5 and ids:
            last = ids[-1]
            prefix, group = re.match(r"(.*)-(\d+)[a-z]$", last).groups()  # type: ignore[union-attr]
            letters = [i[-1] for i in ids if re.search(rf"-{group}[a-z]$", i)]
            rule = f"{prefix}-{group}{chr(ord(max(letters)) + 1)}"
            level = re.search(rf"^(#+) {re.escape(last)} ", text, re.M).group(1)  # type: ignore[union-attr]
            text = text.rstrip("\n") + "\n\n" + "\n".join([
                f"{level} {rule} — Written by hand",
                "",
                "- Trigger: a reviewer asks for it.",
                "- Must: write it down here.",
                "- Must not: keep it in a chat only.",
                "- Acceptance: the page has it. ^[PR #1]",
            ]) + "\n"  # fmt: skip
            what = f"hand edit: {rule}"
        else:  # the last rule's last bullet, right where new rules are appended
            lines = text.rstrip("\n").split("\n")
            last = max(i for i, line in enumerate(lines) if " ^[" in line)
            lines[last] = lines[last].replace(" ^[", " (checked twice)  ^[", 1)
            text = "\n".join(lines) + "\n"
            what = f"hand edit: reworded {page.parent.name}/rules.md"
        page.write_text(text)
        git(
            work, "-c", "user.name=Person", "-c", "user.email=p@example.com", "commit", "-qam", what
        )
        git(work, "push", "--quiet", "origin", f"HEAD:{self.base}")
        shutil.rmtree(work)
        return what

    def _force_push(self) -> str:
        """A person rewrites the knowledge repository's last commit (same files, a new
        message) and force-pushes main: every commit id after the rewrite changes."""
        work = self.root / "hand"
        if work.exists():
            shutil.rmtree(work)
        git(self.root, "clone", "--quiet", str(self.upstream), str(work))
        ident = ["-c", "user.name=Person", "-c", "user.email=p@example.com"]
        git(work, *ident, "commit", "--quiet", "--amend", "-m", "Rewritten by a person")
        git(work, "push", "--quiet", "--force", "origin", f"HEAD:{self.base}")
        shutil.rmtree(work)
        return f"force-pushed {self.base}"

    def _rename_default_branch(self) -> str:
        """The knowledge repository renames main to trunk, as GitHub's settings do: the
        branch moves, HEAD follows, open PRs are retargeted."""
        old, self.base = self.base, "trunk"
        git(self.upstream, "branch", "-m", old, self.base)
        git(self.upstream, "symbolic-ref", "HEAD", f"refs/heads/{self.base}")
        for pull in self.hub.open_pulls(UPSTREAM):
            if pull.base_ref == old:
                pull.base_ref = self.base
        return f"default branch renamed {old} -> {self.base}"

    # --- a day ------------------------------------------------------------------------------
    def day(self, index: int, model_base: str, gh_env: dict[str, str]) -> Day:
        today = START + timedelta(days=index)
        row = Day(today.isoformat())
        late_before = self.run_at > "23:00"  # yesterday's run fired at 23:59
        self.run_at = self.edge_runs.get(index) or RUN_AT
        if index > 0 and self.people.random() < 0.1:  # GitHub's cron fires late or early
            self.run_at = self.people.choice(["23:59:30", "00:00:40"])
        if late_before and self.run_at < "04:00":
            self.run_at = RUN_AT  # not a minute after yesterday's: no PR would close between
        self.clock = f"{(today - timedelta(days=1)).isoformat()}T18:00:00Z"
        for _ in range(self.rng.randint(*self.team_prs)):  # PRs closed since yesterday's run
            hour, minute = self.rng.randint(6, 23), self.rng.randint(0, 59)
            moment = f"{(today - timedelta(days=1)).isoformat()}T{hour:02d}:{minute:02d}:00Z"
            if late_before:  # yesterday's run was at 23:59: between it and today's run
                latest = int(self.run_at[:2]) if self.run_at > "04:00" else 24
                hour = min(hour - 6, latest - 1)  # (the hours before today's run)
                moment = f"{today.isoformat()}T{hour:02d}:{minute:02d}:00Z"
            merged = self.rng.random() < 0.85
            title = self.rng.choice(HOSTILE) if self.rng.random() < 0.15 else None
            slug = self.slugs[0] if len(self.slugs) == 1 else self.rng.choice(self.slugs)
            author = None
            if self.rng.random() < 0.12:  # a bot's dependency bump: triage skips it
                title, author = f"Bump lib{hour} from 1.{hour}.0 to 1.{hour}.1", "dependabot[bot]"
            self._team_pull(moment, merged, draft=self.rng.random() < 0.1, title=title, slug=slug, author=author)  # fmt: skip
            row.team_prs += 1
            row.merged_team_prs += merged
        self.clock = f"{today.isoformat()}T{'00:00:05' if self.run_at < '04:00' else '04:00:00'}Z"
        if index == self.rename_on:
            row.notes.append(self._rename_default_branch())
        if index in self.force_push_on or (index > 0 and self.people.random() < 0.05):
            row.notes.append(self._force_push())
        self.model.refuse_all = index in self.refuse_on or (index > 0 and self.people.random() < 0.06)  # fmt: skip
        if self.model.refuse_all:
            row.notes.append("the model's proposals all refused")
        if self.run_at != RUN_AT:
            row.notes.append(f"run at {self.run_at}")
        people = [self._review, lambda: [self._hand_edit()] if self.rng.random() < 0.3 else []]
        self.rng.shuffle(people)
        row.notes += self._fix_up(force=index in self.fix_up_on)
        for act in people:
            row.notes += [n for n in act() if n]
        if index == 3 or (index > 3 and self.rng.random() < 0.15):  # the mailbox gets a record
            self._mailbox_comment(today, stranger=self.rng.random() < 0.4)
        refuse = self.root / "refuse-state-push"
        if index > 0 and self.rng.random() < 0.15:
            refuse.write_text("today")
            row.notes.append("state pushes refused")
        self.mid_run = (self.rng.randint(1, 6), self.rng.choice(["merge", "edit"])) if self.rng.random() < 0.2 else None  # fmt: skip
        before = self._snapshot()
        self.clock = f"{today.isoformat()}T{self.run_at}Z"
        self.faults, self.moved_mid_run = 0, False
        pull_fails = index in self.failed_pulls or (index > 0 and self.pulls_fail.random() < 0.08)
        if pull_fails:
            row.notes.append("state pull failed")
        calls = self.model.calls
        outcomes, summary, runner = self._run_day(index, today, model_base, gh_env, pull_fails, row)  # fmt: skip
        row.model_calls = self.model.calls - calls
        self.outcomes_of_day = outcomes
        refuse.unlink(missing_ok=True)
        row.faults = self.faults
        if self.moved_mid_run:
            row.notes.append("main moved mid-run")
        failed = [name for name, code in outcomes if code]
        if failed:
            row.notes.append("failed: " + ", ".join(failed))
        after = self._snapshot()
        self._count(row, before, after, today)
        self.check(row, runner, summary, before, after, failed)
        self.rows.append(row)
        return row

    def _mailbox_comment(self, today: date, stranger: bool) -> None:
        record = json.loads((PROJECT / "tests" / "intake" / "fixtures" / "consumer_drop_record.json").read_text())  # fmt: skip
        record = record | {"run_id": f"sim-{today.isoformat()}", "repo": TEAM, "title": "Ping @acme/oncall about #7"}  # fmt: skip
        body = render_comment(record)
        login, association = ("drive-by", "NONE") if stranger else ("dev1", "MEMBER")
        self.hub.add_comment(TEAM, 1, body, login, association)

    def _run_day(self, index: int, today: date, model_base: str, gh_env: dict[str, str], pull_fails: bool, row: Day) -> tuple[list[tuple[str, int]], str, Path]:  # fmt: skip
        """Every repository's workflow on the one cron, at once (the first distills); the
        distilling run's outcomes and summary, and a folder whose `intake/` holds what the
        organization's ledgers hold after the day (the state branch and every runner's)."""
        self.in_steps = True
        self.day_logs: list[str] = []
        try:
            if len(self.slugs) == 1:
                outcomes, summary, workspace = self._run_workflow(index, today, model_base, gh_env, pull_fails)  # fmt: skip
                runs = {TEAM: (outcomes, summary, workspace)}
            else:
                with ThreadPoolExecutor(max_workers=min(len(self.slugs), 6)) as pool:
                    futures = {
                        slug: pool.submit(
                            self._run_workflow,
                            index,
                            today,
                            model_base,
                            gh_env,
                            pull_fails and slug == TEAM,
                            slug,
                        )  # fmt: skip
                        for slug in self.slugs
                    }
                    runs = {slug: future.result() for slug, future in futures.items()}
        finally:
            self.in_steps = False
            self.logs.append(f"===== {today} =====\n" + "\n".join(self.day_logs))
        for found in re.finditer(r"cost: (?:\d+ model call\(s\), )?(\d+) GitHub call", "\n".join(self.day_logs)):  # fmt: skip
            row.github_calls += int(found.group(1))
        run_at = f"{today.isoformat()}T{self.run_at}Z"
        for slug, (steps, _, _) in runs.items():
            codes = dict(steps)
            saved = codes.get("Save the intake state") == 0 or codes.get("Save the status rows") == 0  # fmt: skip
            if codes.get("Record merged PRs") == 0 and saved:
                self.covered[slug] = run_at  # every PR merged before this run is on the branch
        union = self.root / "union"
        if union.exists():
            shutil.rmtree(union)
        (union / "intake").mkdir(parents=True)
        for name in ("events.jsonl", "status.jsonl"):
            parts = [self._branch_file(name)]
            parts += [(w / "intake" / name).read_bytes() for _, _, w in runs.values() if (w / "intake" / name).is_file()]  # fmt: skip
            (union / "intake" / name).write_bytes(b"".join(p if p.endswith(b"\n") or not p else p + b"\n" for p in parts))  # fmt: skip
        outcomes, summary, _ = runs[TEAM]
        return outcomes, summary, union

    def _branch_file(self, name: str) -> bytes:
        """A ledger as the state branch holds it (b"" before the first push)."""
        where = self.shared_state or self.team
        done = subprocess.run(["git", "-C", str(where), "show", f"kbkit/intake-state:intake/{name}"], capture_output=True)  # fmt: skip
        return done.stdout if done.returncode == 0 else b""

    def _run_workflow(self, index: int, today: date, model_base: str, gh_env: dict[str, str], pull_fails: bool = False, slug: str = TEAM) -> tuple[list[tuple[str, int]], str, Path]:  # fmt: skip
        name = "runner" if slug == TEAM else f"runner-{slug.split('/')[1]}"
        runner = self.root / name  # a fresh runner every day: nothing of yesterday's
        if runner.exists():
            shutil.rmtree(runner)
        home, workspace = runner / "home", runner / "work"
        home.mkdir(parents=True)
        llm_dir = runner / "llm"
        llm_dir.mkdir()
        (llm_dir / "extra-openai-models.yaml").write_text(
            yaml.safe_dump(
                [
                    {
                        "model_id": "sim",
                        "model_name": "sim",
                        "api_base": model_base,
                        "supports_schema": True,
                    }
                ]
            )  # fmt: skip
        )
        summary = runner / "step-summary.md"
        summary.write_text("")
        env = {
            "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "GITHUB_ACTIONS": "true",
            "GITHUB_REPOSITORY": slug,
            "GITHUB_EVENT_NAME": "schedule",
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_STEP_SUMMARY": str(summary),
            "RUNNER_TEMP": str(runner / "tmp"),
            "KBKIT_NOW": f"{today.isoformat()}T{self.run_at}Z",
            "KBKIT_GH_TIMEOUT": "2.5",
            "KBKIT_GH_RETRY_PAUSE": "0.2",
            "KBKIT_SYNC_PAUSE": "0.05",
            "LLM_USER_PATH": str(llm_dir),
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONPATH": str(PROJECT / "tools"),  # this checkout's kbkit, whichever installed it
            **gh_env,
        }
        variables = {
            "KNOWLEDGE_REPO": str(self.upstream),
            "KNOWLEDGE_REPO_SLUG": UPSTREAM,
            "KNOWLEDGE_FORK_SLUG": FORK,
            "KNOWLEDGE_FORK_URL": str(self.fork),
            "KNOWLEDGE_PR_ENABLED": "true",
            "KB_DISTILL_MODEL": "llm:sim",
            "KBKIT_MAILBOX_ISSUE": "1"
            if index >= 2 and slug == TEAM
            else "",  # not configured at first
        }
        if self.shared_state is not None:  # one state branch for the organization
            variables["KBKIT_STATE_REMOTE"] = str(self.shared_state)
            variables["KBKIT_DISTILL"] = "" if slug == TEAM else "false"
        secrets = {"GITHUB_TOKEN": gh_env["GH_TOKEN"], "KNOWLEDGE_BOT_TOKEN": gh_env["GH_TOKEN"], "OPENAI_API_KEY": "sk-sim"}  # fmt: skip
        artifacts = self.root / "uploads" / today.isoformat()

        def uses(action: str, given: dict[str, str]) -> int:
            if action.startswith("actions/checkout"):
                git(runner, "clone", "--quiet", str(self.teams[slug]), str(workspace))
                return 0
            if action.startswith("actions/upload-artifact"):
                source = workspace / given["path"]
                if source.is_dir():
                    shutil.copytree(source, artifacts)
                return 0
            if action.startswith("actions/setup-python"):
                return 0
            raise AssertionError(f"the simulation has no runner for {action}")

        log: list[str] = []
        try:
            flow = Workflow(variables, secrets)
            if pull_fails:  # the state branch cannot be fetched today (a network failure)
                flow.unreachable["Bring in yesterday's intake state"] = str(self.shared_state or self.team)  # fmt: skip
            outcomes = flow.run(workspace, env, 1000 + index, uses, log)
        finally:
            self.day_logs.append(f"----- {slug} -----\n" + "\n".join(log))
        return outcomes, summary.read_text(), workspace

    # --- what happened, and the invariants ------------------------------------------------------
    def _snapshot(self) -> dict[int, tuple[str, str | None, str]]:
        return {p.number: (p.state + ("+merged" if p.merged_at else ""), self.hub.head_sha(p), p.body) for p in self.hub.pulls[UPSTREAM]}  # fmt: skip

    def _count(self, row: Day, before: dict[int, Any], after: dict[int, Any], today: date) -> None:
        for number, (state, head, body) in after.items():
            old = before.get(number)
            if old is None:
                row.opened += 1
            elif old != (state, head, body) and state == "open":
                row.updated += 1
        row.merged = sum(1 for n in row.notes if n.split(" ")[0] in ("merge", "squash", "rebase"))
        row.closed = sum(1 for p in self.hub.pulls[UPSTREAM] if p.state == "closed" and not p.merged_at and (p.closed_at or "")[:10] == today.isoformat())  # fmt: skip
        row.open_after = len(self.hub.open_pulls(UPSTREAM))
        main_ids = self.main_rule_ids()
        row.landed, self.last_main = len(main_ids) - self.last_main, len(main_ids)

    def main_rule_ids(self) -> list[str]:
        ids: list[str] = []
        for path in git(self.upstream, "ls-tree", "-r", "--name-only", self.base).split():
            if path.endswith("rules.md"):
                ids += HEADING.findall(git(self.upstream, "show", f"{self.base}:{path}"))
        return ids

    def check(self, row: Day, runner: Path, summary: str, before: dict[int, Any], after: dict[int, Any], failed: list[str]) -> None:  # fmt: skip
        """Every invariant of the daily loop, from git and the stand-in's own state."""
        main_ids = self.main_rule_ids()
        # every accepted proposal reaches main exactly once when its PR merges
        for number, rules in self.merged_rules.items():
            for rule in rules:
                assert main_ids.count(rule) == 1, f"{row.day}: {rule} of merged #{number} is on main {main_ids.count(rule)} times"  # fmt: skip
        assert len(main_ids) == len(set(main_ids)), f"{row.day}: a rule ID twice on main"
        seen: dict[str, int] = {}
        scratch = self.root / "scratch"
        if not scratch.exists():
            git(self.root, "clone", "--quiet", str(self.upstream), str(scratch))
        git(scratch, "fetch", "--quiet", "--prune", "origin")
        git(scratch, "fetch", "--quiet", str(self.fork), "+refs/heads/*:refs/fork/*")
        main = f"origin/{self.base}"
        # A run that GitHub stopped (a failure or a stall past the deadline on a call kbkit
        # does not send twice) could not bring the PRs up to date: the next run must.
        # A day whose state pull failed skips distill altogether: the same holds for it.
        distilled = any(name == "Distill and publish" and code == 0 for name, code in self.outcomes_of_day)  # fmt: skip
        for pull in self.hub.open_pulls(UPSTREAM):
            head = self.hub.head_sha(pull)
            assert head, f"{row.day}: open #{pull.number} has no head"
            # every open knowledge PR merges cleanly into upstream main
            clean = subprocess.run(["git", "-C", str(scratch), "merge-tree", "--write-tree", main, head], capture_output=True, text=True)  # fmt: skip
            assert pull.base_ref == self.base, f"{row.day}: open #{pull.number} aims at {pull.base_ref}, not {self.base}"  # fmt: skip
            assert clean.returncode == 0 or not distilled, f"{row.day}: open #{pull.number} conflicts with main"  # fmt: skip
            # no rule ID in two open PRs, or in an open PR and main
            base = git(scratch, "merge-base", main, head).strip()
            diff = git(scratch, "diff", base, head).splitlines()
            for rule in [m.group(1) for line in diff if line.startswith("+") and (m := HEADING.match(line[1:]))]:  # fmt: skip
                assert rule not in main_ids or not distilled, f"{row.day}: {rule} of open #{pull.number} is on main too"  # fmt: skip
                assert rule not in seen, (
                    f"{row.day}: {rule} is in open #{pull.number} and #{seen[rule]}"
                )
                seen[rule] = pull.number
            if clean.returncode != 0 or any(r in main_ids for r in seen if seen[r] == pull.number):
                row.notes.append(f"#{pull.number} stale until the next run")
            # `kb check` passes on every PR head
            if head not in self.checked_heads:
                git(scratch, "checkout", "--quiet", "--detach", head)
                done = subprocess.run([str(BIN / "kb"), "check", "--repo", str(scratch)], capture_output=True, text=True)  # fmt: skip
                assert done.returncode == 0, (
                    f"{row.day}: kb check fails on #{pull.number}: {done.stdout[-800:]}"
                )
                git(scratch, "checkout", "--quiet", "--detach", main)
                self.checked_heads.add(head)
        # no reviewer's commit is lost: on its PR's head while open, on main once merged
        for number, path in self.fix_ups:
            pull = next(p for p in self.hub.pulls[UPSTREAM] if p.number == number)
            where = main if pull.merged_at else self.hub.head_sha(pull) if pull.state == "open" else None  # fmt: skip
            if where is not None:
                found = subprocess.run(["git", "-C", str(scratch), "cat-file", "-e", f"{where}:{path}"], capture_output=True)  # fmt: skip
                assert found.returncode == 0, f"{row.day}: the reviewer's {path} is gone from #{number} ({where})"  # fmt: skip
        # at most one scheduled PR opened per day
        assert row.opened <= 1, f"{row.day}: {row.opened} PRs opened by one scheduled run"
        # every recorded event is pending, published (listed by exactly one PR) or failed
        listers: dict[tuple[str, str], list[PullState]] = {}
        for pull in self.hub.pulls[UPSTREAM]:
            record = decode(pull.body)
            for key in record.sources() if record else ():
                listers.setdefault(key, []).append(pull)
        states = _ledger_states(runner / "intake")
        row.states = {}
        for key, status in states.items():
            state = status.get("state", "pending")
            row.states[state] = row.states.get(state, 0) + 1
            lists = listers.get(key, [])
            assert len(lists) <= 1, f"{row.day}: {key} listed by PRs {[p.number for p in lists]}"
            if state == "published":
                # (a day without distill reads yesterday's state branch: a row a rebuild moved
                # to another PR, whose status rows a refused push lost, is put right by the
                # next run, which reads what every PR lists)
                assert (lists and status.get("url", "").endswith(f"/pull/{lists[0].number}")) or not distilled, f"{row.day}: {key} published but listed by {[p.number for p in lists]}"  # fmt: skip
                record = decode(lists[0].body) if lists else None
                rejected = lists and lists[0].state == "closed" and not lists[0].merged_at and record and record.rule_ids()  # fmt: skip
                if rejected and (lists[0].closed_at or "") >= f"{row.day}T{self.run_at}Z":
                    rejected = False  # closed by a person during the run, after it read the PRs:
                    note = f"#{lists[0].number} closed mid-run"  # the next run rejects it
                    row.notes += [note] if note not in row.notes else []
                assert not rejected or not distilled, f"{row.day}: {key} published by #{lists[0].number}, closed unmerged"  # fmt: skip
            elif state == "failed":
                assert status.get("reason"), f"{row.day}: {key} failed without a reason"
            elif state == "rejected":  # a person closed the PR that listed it, unmerged
                closed = [p for p in self.hub.pulls[UPSTREAM] if str(status.get("url")).endswith(f"/pull/{p.number}")]  # fmt: skip
                assert closed and closed[0].state == "closed" and not closed[0].merged_at, f"{row.day}: {key} rejected: {status}"  # fmt: skip
            elif state == "shadowed":
                assert str(status.get("reason", "")).startswith("no rules"), f"{row.day}: {key} shadowed: {status}"  # fmt: skip
            elif state == "skipped":  # triage, before any model call: a bot's dependency bump
                assert str(status.get("reason", "")).startswith("triage:") and not lists, f"{row.day}: {key} skipped: {status}"  # fmt: skip
            elif lists:  # pending, yet a PR lists it: only after a run that did not finish
                assert not distilled, f"{row.day}: {key} pending but listed by #{lists[0].number}"
                row.notes.append(f"{key[1]} pending, listed by #{lists[0].number} (run stopped)")
        self._check_the_organization(row, runner / "intake", states)
        # a batch whose every proposal was refused keeps its events: pending (or failed at the
        # attempt cap) with the refusal as the reason, never shadowed as if nothing were there
        shadowed = {key for key, status in states.items() if status.get("state") == "shadowed"}
        if self.model.refuse_all:
            assert shadowed <= self.shadowed, f"{row.day}: refused batches shadowed {sorted(shadowed - self.shadowed)}"  # fmt: skip
            refused = [k for k, v in states.items() if "every proposal refused" in str(v.get("reason", ""))]  # fmt: skip
            row.notes.append(f"{len(refused)} event(s) kept after refusals")
        self.shadowed = shadowed
        # a failed state pull: recorded and saved all the same, nothing distilled, and said
        if "state pull failed" in row.notes:
            ran = [name for name, _ in self.outcomes_of_day]
            assert "Record merged PRs" in ran and "Save the intake state" in ran, (
                f"{row.day}: {ran}"
            )
            assert "Distill and publish" not in ran and not (row.opened or row.updated)
            assert "The state pull failed" in summary, (
                f"{row.day}: the summary hides it:\n{summary}"
            )
            return
        # every day without a PR change says why
        changed = row.opened or row.updated
        assert f"### kb distill {row.day}" in summary, f"{row.day}: the summary has no distill section:\n{summary}"  # fmt: skip
        if not changed:
            assert "no pr opened or updated" in summary.lower(), f"{row.day}: no PR change and no reason:\n{summary}"  # fmt: skip

    def _check_the_organization(self, row: Day, intake: Path, states: dict[tuple[str, str], dict[str, Any]]) -> None:  # fmt: skip
        """No event lost, none doubled, across every repository; the day's in, out and backlog."""
        from kbkit.intake.ledger import same_source

        # none doubled: one event per PR of one repository, and only PRs that were merged
        spellings = [same_source(*key) for key in states]
        assert len(spellings) == len(set(spellings)), f"{row.day}: an event recorded twice"
        for key in states:
            if key[0] == "merged_pr":
                assert key in self.merged_at, f"{row.day}: {key} is no merged PR of any repository"  # fmt: skip
        # no event lost: every PR merged before a run that recorded and saved its repository
        # is on the state branch (the first scan reads the last 7 days only)
        path = self.root / "branch-events"
        path.mkdir(exist_ok=True)
        (path / "events.jsonl").write_bytes(self._branch_file("events.jsonl"))
        from kbkit.intake.ledger import load_events

        on_branch = set(load_events(path))
        window = f"{(START - timedelta(days=6)).isoformat()}T00:00:00Z"
        for key, moment in self.merged_at.items():
            slug = key[1].split("#")[0]
            if window <= moment < self.covered.get(slug, ""):
                assert key in on_branch, f"{row.day}: {key} (merged {moment}) is not on the state branch though {slug} was recorded and saved since"  # fmt: skip
        totals = {state: count for state, count in row.states.items()}
        known = sum(totals.values())
        decided = known - totals.get("pending", 0)
        row.recorded = known - self.last_states.get("known", 0)
        row.decided = decided - self.last_states.get("decided", 0)
        self.last_states = {"known": known, "decided": decided}

    def table(self) -> str:
        head = "| day | repos | team PRs (merged) | events in / out | backlog | PRs opened / updated / merged / closed | open after | rules landed | events: pending / published / failed / shadowed / rejected / skipped | model calls / GitHub calls | gh faults | notes |"  # fmt: skip
        lines = [head, "|" + "---|" * 12]
        for r in self.rows:
            s = r.states
            lines.append(
                f"| {r.day} | {len(self.slugs)} | {r.team_prs} ({r.merged_team_prs}) | {r.recorded} / {r.decided} | {s.get('pending', 0)} "
                f"| {r.opened} / {r.updated} / {r.merged} / {r.closed} "
                f"| {r.open_after} | {r.landed} | {s.get('pending', 0)} / {s.get('published', 0)} / {s.get('failed', 0)} / {s.get('shadowed', 0)} / {s.get('rejected', 0)} / {s.get('skipped', 0)} "
                f"| {r.model_calls} / {r.github_calls} | {r.faults} | {'; '.join(r.notes)} |"
            )  # fmt: skip
        return "\n".join(lines)


def _ledger_states(intake: Path) -> dict[tuple[str, str], dict[str, Any]]:
    from kbkit.intake.ledger import load_events, load_status

    status = load_status(intake)
    return {key: status.get(key, {"state": "pending"}) for key in load_events(intake)}


def run_month(
    root: Path,
    seed: int,
    days: int,
    certs: Path,
    team_prs: tuple[int, int] = (5, 40),
    history: int = 150,
    failed_pulls: set[int] | None = None,
    fix_up_on: set[int] | None = None,
    repos: int = 1,
    refuse_on: set[int] | None = None,
    force_push_on: set[int] | None = None,
    edge_runs: dict[int, str] | None = None,
    rename_on: int | None = None,
) -> Month:
    """Simulate `days` days on `seed` (`team_prs`: how many team PRs close a day, `history`:
    closed PRs before the first day, `repos`: the organization's repositories on one cron,
    sharing one state branch; the other sets name days a thing surely happens, besides the
    draws); raises AssertionError at the first broken invariant."""
    month = Month(root, seed, certs, team_prs, history, repos)
    month.failed_pulls = failed_pulls or set()
    month.fix_up_on = fix_up_on or set()
    month.refuse_on = refuse_on or set()
    month.force_push_on = force_push_on or set()
    month.edge_runs = edge_runs or {}
    month.rename_on = month.rename_on if rename_on is None else rename_on
    month.hub.fault = month._fault
    month.hub.during = month._during
    with serve(month.hub, root, certs) as gh_env, model_server(month.model) as base:
        try:
            for index in range(days):
                month.day(index, base, gh_env)
        finally:  # every step's output, for the reader of a failure
            (root / "month.log").write_text("\n".join(month.logs))
    return month
