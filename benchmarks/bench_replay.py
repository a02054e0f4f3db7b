"""`kb lessons replay` at scale: 100k closed tasks and 1M evidence rows (issue #15: <= 30 s).

The store is generated into a temp folder: 20k lessons (half negative, with the
`(prior false_positive)` / `(prior duplicate)` sentences extraction writes) and 10 evidence
rows per task, each task closing at its own minute. The target figure is the whole process
with the fold cache current (extract and forget leave it so); the cold run that builds the
cache is printed too, without a target, as `bench_lessons` does for `show`.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kbkit.infra.jsonl import encode_row
from kbkit.lessons.extraction import lesson_id

TASKS = 100_000
PER_TASK = 10
LESSONS = 20_000
COMPANIES = [f"company-{i}" for i in range(50)]
CLASSES = ["sqli", "xss", "ssrf", "idor", "rce", "csrf"]
TARGET = 30.0


def generate(root: Path, rng: random.Random) -> None:
    store = root / "intake" / "lessons"
    store.mkdir(parents=True)
    by_company: dict[str, list[str]] = {company: [] for company in COMPANIES}
    with (store / "lessons.jsonl").open("wb") as out:
        for n in range(LESSONS):
            company, cue = COMPANIES[n % len(COMPANIES)], rng.choice(CLASSES)
            subject = f"synthetic finding {n % 2_000}"
            if n % 2:
                kind, action = "positive", f"Confirmed {cue}: {subject}"
            else:
                prior = "false_positive" if n % 4 else "duplicate"
                kind = "negative"
                action = f"Do not re-report without new mechanics: {subject} (prior {prior})"
            lid = lesson_id(kind, company, "web", cue, action)
            by_company[company].append(lid)
            row = {"id": lid, "kind": kind, "company": company, "category": "web", "cue": cue}
            row.update(action=action, subject=subject, status="candidate")
            out.write(encode_row(row))
    with (store / "evidence.jsonl").open("wb") as out:
        for t in range(TASKS):
            company = COMPANIES[t % len(COMPANIES)]
            at = f"2026-{1 + t // 10_000:02d}-{1 + t // 400 % 25:02d}T{t // 20 % 20:02d}:{t % 20:02d}:00Z"
            for f in range(PER_TASK):
                row = {"lesson": rng.choice(by_company[company]), "source_kind": "finding"}
                row.update(source_id=f"T{t}/F{f}", task=f"T{t}", at=at)
                out.write(encode_row(row))


def main(argv: list[str] | None = None) -> int:
    with tempfile.TemporaryDirectory(prefix="kbkit-bench-replay-") as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        generate(root, random.Random(15))
        print(
            f"generated {TASKS:,} tasks, {TASKS * PER_TASK:,} evidence rows in "
            f"{time.perf_counter() - start:.1f}s"
        )
        env = {k: v for k, v in os.environ.items() if k != "KBKIT_INTAKE_ROOT"}
        command = [sys.executable, "-m", "kbkit", "lessons", "replay", "--repo", str(root)]
        times = []
        for _ in range(2):  # cold (folds the logs, writes the cache), then as usually run
            start = time.perf_counter()
            done = subprocess.run(command, check=True, env=env, capture_output=True, text=True)
            times.append(time.perf_counter() - start)
        print(done.stdout.rstrip())
        cold, took = times
        print(f"replay, whole process, cold (builds the fold cache): {cold:.1f}s (no target)")
        print(
            f"replay, whole process, cache current (as after extract): {took:.1f}s  "
            f"target <= {TARGET:.0f}s  ratio {took / TARGET:.2f}"
        )
    return 0 if took <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
