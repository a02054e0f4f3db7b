"""`make demo`: the whole pipeline, offline, on the embedded sample, in a temporary folder.

Copies kbkit's own `knowledge/` (plus the validator shims) into a throwaway knowledge
repository, records the sample PRs and drop records, distills them with the recorded
replies in `intake/samples/replay.jsonl`, commits on the day branch of a work clone and
leaves a shadow artifact. A second run over the same folder adds nothing.

Every commit the demo makes is dated on the demo's day (its history a few weeks before), so
the commits, and the report's look at the tree's past, are the same on every run: the
sample repository's history has the tree three weeks before the day without its pre-commit
guide (which three pages already linked: three broken links), and the guide a week before.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kbkit.distill import job
from kbkit.distill.models import Gateway, ReplayGateway, ReplayMissError, request_hash
from kbkit.distill.publication import settings_from_env
from kbkit.infra.errors import KbkitError
from kbkit.infra.jsonl import atomic_write_text
from kbkit.intake.json_pages import decode_pages, read_source
from kbkit.intake.ledger import load_events, record_events
from kbkit.intake.repo_identity import RepoIdentity
from kbkit.intake.sources.drop import collect_drops
from kbkit.intake.sources.github import files_diff, files_endpoint
from kbkit.intake.sources.github_pulls import parse_pulls
from kbkit.intake.sources.github_reviews import RecordedReader, attach_discussion
from kbkit.vcs import git

DAY = "2026-11-30"  # fixed: the replay keys are hashes of a deterministic prompt
SLUG = "kbkit-dev/kbkit"
SHIMS = ("check_knowledge_tree.py", "check_wiki_lint.py")
LATE_PAGE = "knowledge/repos/kbkit/ci/guides/use-kbkit-as-a-pre-commit-hook.md"
HISTORY = (  # the sample repository's commits: days before DAY, message
    (21, "Sample knowledge tree (kbkit's own), before its pre-commit guide\n"),
    (8, "Add the pre-commit hook guide\n"),
)


def project_root() -> Path:
    """The checkout this module runs from (the demo needs its knowledge/ and intake/samples/)."""
    root = Path(__file__).resolve().parents[2]
    if not (root / "intake" / "samples").is_dir():
        raise SystemExit("kb demo: run it from a kbkit checkout (`make demo`)")
    return root


def make_knowledge_repo(project: Path, dest: Path, *, history: bool = False) -> None:
    """A real git repository holding the sample tree and the validator shims in one commit;
    with `history`, in the demo's short dated history (HISTORY)."""
    shutil.copytree(project / "knowledge", dest / "knowledge")
    (dest / "tools").mkdir()
    for shim in SHIMS:
        shutil.copyfile(project / "tools" / shim, dest / "tools" / shim)
    (dest / ".gitignore").write_text(".kbkit-cache/\n.kbkit-journal/\n")
    git.run_git(dest, "init", "--quiet", "--initial-branch=main")
    if not history:
        git.commit_paths(dest, ["."], "Sample knowledge tree (kbkit's own)\n")
        return
    late = dest / LATE_PAGE
    text = late.read_bytes()
    late.unlink()
    (before, first), (after, second) = HISTORY
    with commit_dates(_day_minus(before)):
        git.commit_paths(dest, ["."], first)
    late.write_bytes(text)
    with commit_dates(_day_minus(after)):
        git.commit_paths(dest, [LATE_PAGE], second)


def _day_minus(days: int) -> str:
    from datetime import date, timedelta

    return (date.fromisoformat(DAY) - timedelta(days=days)).isoformat()


@contextlib.contextmanager
def commit_dates(day: str) -> Iterator[None]:
    """git commits made inside are dated `day` at noon UTC (author and committer)."""
    names = ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE")
    saved = {name: os.environ.get(name) for name in names}
    os.environ.update({name: f"{day}T12:00:00+00:00" for name in names})
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def record(project: Path, work: Path, intake: Path) -> int:
    samples = project / "intake" / "samples"
    identity = RepoIdentity(SLUG, {})
    label, data = read_source(str(samples / "github-pulls.json"))
    scan = parse_pulls(label, decode_pages(label, data), identity)
    # what GitHub answered about PR 38's files and review, recorded: the scan's review step
    reader = RecordedReader(samples / "github-reviews.json")
    for row in scan.rows:
        files = files_endpoint(SLUG, row["number"])
        if files in reader.answers:
            attach_discussion(row, files_diff(files, reader.get(files)), reader)
    added = len(record_events(intake, scan.rows).added)
    drops = work / "drops"
    if not drops.exists():
        shutil.copytree(samples / "drops", drops)
    added += len(collect_drops(drops, intake, identity).imported)
    return added


class _Rekey:
    """A gateway that answers with the recorded reply and notes the current request key."""

    name = "rekey"

    def __init__(self, reply: str):
        self.reply = reply
        self.key: str | None = None

    def complete(self, prompt: str, schema: dict[str, Any]) -> str:
        self.key = request_hash(prompt, schema)
        return self.reply


def rekey(project: Path) -> int:
    """Maintainers: keep the recorded reply, key it to today's prompt (after a prompt change)."""
    path = project / "intake" / "samples" / "replay.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    if len(rows) != 1:
        raise SystemExit(f"{path}: expected exactly one recorded reply, found {len(rows)}")
    with tempfile.TemporaryDirectory(prefix="kbkit-demo-rekey-") as folder:
        work = Path(folder)
        make_knowledge_repo(project, work / "knowledge-repo")
        record(project, work, work / "intake")
        gateway = _Rekey(rows[0]["reply"])
        options = _options(work, gateway)
        report = job.run(options._replace(dry_run=True))
    rows[0]["key"] = gateway.key
    atomic_write_text(path, json.dumps(rows[0], ensure_ascii=False) + "\n")
    print(f"{path}: keyed to {gateway.key}; the reply gives {len(report.accepted)} accepted, "
          f"{len(report.rejected)} rejected: check that this is still the demo you want")  # fmt: skip
    return 0


def _options(work: Path, gateway: Gateway) -> job.Options:
    upstream = work / "knowledge-repo"
    return job.Options(
        intake_dir=work / "intake",
        state_dir=work / "state",
        knowledge_repo=str(upstream),
        day=DAY,
        gateway=gateway,
        settings=settings_from_env({}, str(upstream), "main"),
        quiet=True,
    )


def main(argv: list[str] | None = None) -> int:
    """Run the demo; print a short human summary."""
    parser = argparse.ArgumentParser(prog="python -m kbkit.demo", description=__doc__)
    parser.add_argument("--dir", type=Path, help="work here instead of a new temporary folder")
    parser.add_argument("--rekey", action="store_true", help=rekey.__doc__)
    args = parser.parse_args(argv)
    if args.rekey:
        return rekey(project_root())
    try:
        with commit_dates(DAY):  # distill's commit too
            return _demo(args.dir)
    except KbkitError as exc:
        print(f"kbkit demo: error: {exc}", file=sys.stderr)
        if isinstance(exc, ReplayMissError):
            print(
                "kbkit demo: the curator's prompt changed since the sample reply was keyed; "
                "maintainers run `python -m kbkit.demo --rekey` and review the result",
                file=sys.stderr,
            )
        return exc.exit_code


def _demo(folder: Path | None) -> int:
    started = time.monotonic()
    project = project_root()
    work = folder or Path(tempfile.mkdtemp(prefix="kbkit-demo-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"kbkit demo in {work} (offline; the model is the recorded reply in "
          "intake/samples/replay.jsonl)")  # fmt: skip
    first = _pass(project, work, "first run")
    second = _pass(project, work, "second run (same folder)")
    from kbkit.lessons import demo as lessons_demo  # the lessons part (owned there)

    lessons_ok = lessons_demo.run(project, work) == 0
    checked = _check(work / "state" / "clone")
    print(f"\n== report: {write_report(work)}   # open it in a browser (offline)")
    print(f"done in {time.monotonic() - started:.1f}s")
    print(NEXT)
    ok = first in ("shadowed", "no-rules", "nothing-pending") and second == "nothing-pending"
    return 0 if ok and lessons_ok and checked else 1


NEXT = """
next, in a repository of your own:
  kb init              # finds your docs (or sets up knowledge/), writes the policy and the hook
  kb check             # both validators; `kb rule RULE-ID` explains a finding
  pre-commit install   # from now on a commit that breaks the tree is blocked"""


def _check(clone: Path) -> bool:
    """`kb check` on the knowledge tree the demo's runs published to (both validators, as the
    curator's gate ran them): True when it passes."""
    from kbkit.checks.runner import run_validators
    from kbkit.infra import clock
    from kbkit.policy.model import load_policy

    policy = load_policy(clone)
    findings, pages = run_validators(
        clone, policy, ("tree", "lint"), clock.today(), use_cache=False
    )
    verdict = "passes" if not findings else f"leaves {len(findings)} finding(s)"
    print(f"\n== kb check on {clone / policy.knowledge_root}: {verdict} ({pages} page(s))")
    return not findings


def write_report(work: Path) -> Path:
    """The last step: `kb report` of the demo run (the work clone's tree, the demo's ledgers
    and artifacts, and the lessons repository's store) as one HTML file; its window covers
    the demo's day and today."""
    from datetime import date, timedelta

    from kbkit.infra import clock
    from kbkit.lessons import demo as lessons_demo
    from kbkit.report.assemble import Sources, build
    from kbkit.report.html import FileLinks
    from kbkit.report.page import render_html
    from kbkit.report.window import DEFAULT_DAYS, Window

    today, day = clock.today(), date.fromisoformat(DAY)
    window = Window(min(day, today - timedelta(days=DEFAULT_DAYS - 1)), max(day, today))
    sources = Sources(
        work / "state" / "clone",
        work / "intake",
        work / "state",
        shown_from=work,
        lessons=lessons_demo.store_dir(work),
    )
    out = work / "report.html"
    files = FileLinks(work.resolve(), work.resolve())  # the page sits in `work`
    atomic_write_text(out, render_html(build(sources, window, use_cache=False), files))
    return out


def _pass(project: Path, work: Path, label: str) -> str:
    """Record the sample events and distill them once; print what happened."""
    upstream = work / "knowledge-repo"
    if not upstream.exists():
        make_knowledge_repo(project, upstream, history=True)
    added = record(project, work, work / "intake")
    options = _options(work, ReplayGateway(project / "intake" / "samples" / "replay.jsonl"))
    report = job.run(options)
    print(f"\n== {label}: recorded {added} new event(s) from intake/samples/ "
          "(4 merged PRs, 3 bugfix runs)")  # fmt: skip
    if report.outcome == "nothing-pending":
        print("nothing pending: this run adds nothing (no new event, no commit, no artifact)")
        return report.outcome
    print(f"batch {report.batch_id}: {len(report.events)} event(s) taken")
    for event in report.events:
        print(f"  - {event}")
    print(f"proposals: {len(report.accepted)} accepted, {len(report.rejected)} rejected")
    for row in report.accepted:
        print(f"  accepted {row['rule_id']} on {row['target']}: {row['title']}")
    _trace(work, report.artifacts)
    for row in report.rejected:
        print(f"  rejected {row['rule_id']} ({row['reason']}): {row['message']}")
    print(f"pages changed: {', '.join(report.pages) or 'none'}")
    if report.commit:
        print(f"{options.settings.explanation}")
        print(f"$ git show --stat {report.commit[:12]}   # in {work / 'state' / 'clone'}, "
              f"branch {report.branch}")  # fmt: skip
        print(git.show_stat(work / "state" / "clone", report.commit).rstrip())
    print(f"outcome: {report.outcome}; artifact: {report.artifacts}")
    for note in report.notes:
        print(f"note: {note}")
    return report.outcome


def _trace(work: Path, artifacts: Path | None) -> None:
    """Each accepted rule that cites a review note, traced to the reviewer's words."""
    if not artifacts or not (Path(artifacts) / "validation.json").is_file():
        return
    accepted = json.loads((Path(artifacts) / "validation.json").read_text("utf-8"))["accepted"]
    notes = {
        note["id"]: note
        for event in load_events(work / "intake").values()
        for note in (event.get("discussion") or {}).get("notes", [])
    }
    for proposal in accepted:
        for cited in proposal["citations"]:
            note = notes.get(cited)
            if note is None:
                continue
            where = f" on {note['path']}" if note.get("path") else ""
            if note.get("line"):
                start = f"{note['start_line']}-" if note.get("start_line") else ""
                where += f" line(s) {start}{note['line']}"
            state = f"; {note['state'].replace('_', ' ')}" if note.get("state") else ""
            became = (
                f"; {note['accepted']} accepted (in the final diff)" if note.get("accepted") else ""
            )
            kind = {"inline": "inline comment", "review": "review", "conversation": "comment"}
            print(f"    {proposal['rule_id']} cites {cited}: {kind[note['kind']]} by "
                  f"{note['author']} ({note['association']}, {note['role']}){where}{state}{became}")  # fmt: skip
            said = note["text"].split("\n\n")[0].replace("\n", " ")
            print(f'      "{said[:240]}{"…" if len(said) > 240 else ""}"')


if __name__ == "__main__":
    raise SystemExit(main())
