"""`make demo`: the whole pipeline, offline, on the embedded sample, in a temporary folder.

Copies kbkit's own `knowledge/` (plus the validator shims) into a throwaway knowledge
repository, records the sample PRs and drop records, distills them with the recorded
replies in `intake/samples/replay.jsonl`, commits on the day branch of a work clone and
leaves a shadow artifact. A second run over the same folder adds nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from kbkit import distill, git
from kbkit.intake.bugfixes import collect_drops
from kbkit.intake.json_pages import decode_pages, read_source
from kbkit.intake.ledger import record_events
from kbkit.intake.merged_prs import parse_pulls
from kbkit.intake.repo_identity import RepoIdentity
from kbkit.models import ReplayGateway
from kbkit.publication import settings_from_env

DAY = "2026-11-30"  # fixed: the replay keys are hashes of a deterministic prompt
SLUG = "kbkit-dev/kbkit"
SHIMS = ("check_knowledge_tree.py", "check_wiki_lint.py")


def project_root() -> Path:
    """The checkout this module runs from (the demo needs its knowledge/ and intake/samples/)."""
    root = Path(__file__).resolve().parents[2]
    if not (root / "intake" / "samples").is_dir():
        raise SystemExit("kb demo: run it from a kbkit checkout (`make demo`)")
    return root


def make_knowledge_repo(project: Path, dest: Path) -> None:
    """A real git repository holding the sample tree and the validator shims."""
    shutil.copytree(project / "knowledge", dest / "knowledge")
    (dest / "tools").mkdir()
    for shim in SHIMS:
        shutil.copyfile(project / "tools" / shim, dest / "tools" / shim)
    (dest / ".gitignore").write_text(".kbkit-cache/\n.kbkit-journal/\n")
    git.run_git(dest, "init", "--quiet", "--initial-branch=main")
    git.commit_paths(dest, ["."], "Sample knowledge tree (kbkit's own)\n")


def record(project: Path, work: Path, intake: Path) -> int:
    samples = project / "intake" / "samples"
    identity = RepoIdentity(SLUG, {})
    label, data = read_source(str(samples / "github-pulls.json"))
    scan = parse_pulls(label, decode_pages(label, data), identity)
    added = len(record_events(intake, scan.rows).added)
    drops = work / "drops"
    if not drops.exists():
        shutil.copytree(samples / "drops", drops)
    added += len(collect_drops(drops, intake, identity).imported)
    return added


def main(argv: list[str] | None = None) -> int:
    """Run the demo; print a short human summary."""
    parser = argparse.ArgumentParser(prog="python -m kbkit.demo", description=__doc__)
    parser.add_argument("--dir", type=Path, help="work here instead of a new temporary folder")
    args = parser.parse_args(argv)
    started = time.monotonic()
    project = project_root()
    work = args.dir or Path(tempfile.mkdtemp(prefix="kbkit-demo-"))
    work.mkdir(parents=True, exist_ok=True)
    upstream = work / "knowledge-repo"
    if not upstream.exists():
        make_knowledge_repo(project, upstream)
    intake = work / "intake"
    added = record(project, work, intake)
    options = distill.Options(
        intake_dir=intake,
        state_dir=work / "state",
        knowledge_repo=str(upstream),
        day=DAY,
        gateway=ReplayGateway(
            Path(
                os.environ.get("KBKIT_DEMO_REPLAY")
                or project / "intake" / "samples" / "replay.jsonl"
            )
        ),
        settings=settings_from_env({}, str(upstream), "main"),
        quiet=True,
    )
    report = distill.run(options)
    print(f"kbkit demo in {work}")
    print(f"recorded {added} new event(s) from intake/samples/ (4 merged PRs, 3 bugfix runs)")
    if report.outcome == "nothing-pending":
        print("nothing pending: this run adds nothing (every sample event was already distilled)")
        print(f"done in {time.monotonic() - started:.1f}s")
        return 0
    print(f"batch {report.batch_id}: {len(report.events)} event(s) taken")
    for event in report.events:
        print(f"  - {event}")
    print(f"proposals: {len(report.accepted)} accepted, {len(report.rejected)} rejected")
    for row in report.accepted:
        print(f"  accepted {row['rule_id']} on {row['target']}: {row['title']}")
    for row in report.rejected:
        print(f"  rejected {row['rule_id']} ({row['reason']}): {row['message']}")
    print(f"pages changed: {', '.join(report.pages) or 'none'}")
    if report.commit:
        print(f"{options.settings.explanation}")
        print(git.show_stat(work / "state" / "clone", report.commit).rstrip())
    print(f"outcome: {report.outcome}; artifact: {report.artifacts}")
    for note in report.notes:
        print(f"note: {note}")
    print(f"done in {time.monotonic() - started:.1f}s; run `python -m kbkit.demo --dir {work}` "
          "again to see that a second run adds nothing")  # fmt: skip
    return 0 if report.outcome in ("shadowed", "no-rules") else 1


if __name__ == "__main__":
    raise SystemExit(main())
