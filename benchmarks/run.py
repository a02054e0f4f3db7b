"""`make bench`: run every benchmark and print its figures as ratios against named floors.

Each benchmark module exposes `main(argv: list[str] | None = None) -> int` and prints its own
table; this runner runs them in the order below and fails if any target is missed.
Run one with `python -m benchmarks.run NAME`.
"""

from __future__ import annotations

import importlib
import sys

# name -> module; explicit registry, no discovery
BENCHES: dict[str, str] = {
    "check": "benchmarks.bench_check",
    "precommit": "benchmarks.bench_precommit",
    "intake": "benchmarks.bench_intake",
    "parse": "benchmarks.bench_parse",
    "lessons": "benchmarks.bench_lessons",
    "replay": "benchmarks.bench_replay",
    "curator": "benchmarks.bench_curator",
    "hostile": "benchmarks.bench_hostile",
    "report": "benchmarks.bench_report",
    "lsp": "benchmarks.bench_lsp",
}


def main(argv: list[str] | None = None) -> int:
    names = (sys.argv[1:] if argv is None else argv) or list(BENCHES)
    failed = []
    for name in names:
        if name not in BENCHES:
            print(f"unknown benchmark {name!r}; known: {', '.join(BENCHES)}", file=sys.stderr)
            return 2
        print(f"== {name} ==", flush=True)
        if importlib.import_module(BENCHES[name]).main([]) != 0:
            failed.append(name)
    if failed:
        print(f"targets missed: {', '.join(failed)}")
        return 1
    print("all benchmark targets met")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
