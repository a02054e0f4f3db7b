"""`kb lessons report`: the randomised comparison first, observational ones labelled."""

from __future__ import annotations

import argparse
import json
from typing import Any

from kbkit.infra.paths import REPO_HELP
from kbkit.lessons.report import METRICS, MIN_TASKS, build_report, outcome_cards
from kbkit.lessons.store import LessonStore

TITLES = {
    "confirmed_per_task": ("confirmed/task", False),
    "tokens_per_confirmed": ("tokens/confirmed", False),
    "tool_calls_per_confirmed": ("tool calls/confirmed", False),
    "false_positive_rate": ("FP rate", True),
    "duplicate_rate": ("dup rate", True),
}


def _num(value: float, rate: bool, signed: bool = False) -> str:
    if rate:
        return f"{value:+.1%}" if signed else f"{value:.1%}"
    return f"{value:+.2f}" if signed else f"{value:.2f}"


def _cell(estimate: dict[str, Any], rate: bool) -> str:
    if estimate["value"] is None:
        if 0 < estimate["n"] < MIN_TASKS:
            return f"not enough tasks (n={estimate['n']})"
        return "n/a"
    value = _num(estimate["value"], rate)
    if estimate["low"] is None:
        return f"{value} (n={estimate['n']})"
    return f"{value} [{_num(estimate['low'], rate)}, {_num(estimate['high'], rate)}] (n={estimate['n']})"


def _print_comparison(comparison: dict[str, Any]) -> None:
    print(
        f"{comparison['comparison']}  (tasks {comparison['tasks'][0]} vs {comparison['tasks'][1]})"
    )
    for name, (title, rate) in TITLES.items():
        metric = comparison["metrics"][name]
        if not metric["enough"]:
            sizes = f"{metric['treated']['n']} vs {metric['control']['n']} task(s)"
            print(
                f"  {title:<22} not enough tasks ({sizes}; at least "
                f"{metric['minimum_tasks_per_arm']} per arm)"
            )
            continue
        line = (
            f"  {title:<22} {_cell(metric['treated'], rate)}  vs  {_cell(metric['control'], rate)}"
        )
        diff = metric["difference"]
        strata = [s for s in metric["strata"] if s["weight"] > 0]
        if diff is not None:
            line += (
                f"; difference {_num(diff['value'], rate, True)} "
                f"[{_num(diff['low'], rate, True)}, {_num(diff['high'], rate, True)}]"
                f" within {len(strata)} categor{'y' if len(strata) == 1 else 'ies'}"
            )
        print(line)
        for stratum in metric["strata"]:
            cut = stratum["difference"]
            if cut is None:
                shown = f"not enough tasks ({stratum['tasks'][0]} vs {stratum['tasks'][1]})"
            else:
                shown = (
                    f"{_num(cut['value'], rate, True)} "
                    f"[{_num(cut['low'], rate, True)}, {_num(cut['high'], rate, True)}]"
                )
            print(f"    {stratum['stratum']}: {shown}")
        if comparison["kind"] == "randomised" and metric["mde"] is not None:
            need = metric["required_n_per_arm"]
            print(
                f"    minimum detectable effect {_num(metric['mde'], rate)}; "
                f"{need if need is not None else 'n/a'} task(s) per arm to detect a 25% change"
            )


def main(argv: list[str] | None = None) -> int:
    """Join the usage log with the outcome cards recorded by `kb lessons extract`."""
    parser = argparse.ArgumentParser(
        prog="kb lessons report",
        description="Outcome metrics as ratios of totals over tasks, compared within each "
        "category and combined with Mantel-Haenszel weights, with 95% score intervals "
        "(Wilson/Newcombe for rates, Poisson score for counts, Student's t for costs). The "
        "headline compares the arms of `kb lessons bundle --assign hash` in inject mode "
        "(randomised); comparisons of injected tasks with shadow or never-considered tasks "
        f"are labelled observational. Fewer than {MIN_TASKS} tasks in an arm: 'not enough "
        "tasks' instead of a number. Outcome cards of forgotten sources are left out.",
    )
    parser.add_argument("--repo", default=None, metavar="DIR", help=REPO_HELP)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    store = LessonStore.for_repo(args.repo)
    cards = outcome_cards(store, store.state())
    report = build_report(cards, store.usage_rows())
    if args.format == "json":
        print(json.dumps({"version": 1, **report}, ensure_ascii=False, indent=2))
        return 0
    arms = report["arms"]
    print(f"{len(cards)} closed task(s) with outcome cards. {report['methods']}")
    print("arms: " + ", ".join(f"{arm} {n}" for arm, n in arms.items()))
    print()
    if report["headline"] is None:
        print(
            "randomised comparison: none yet (run bundles with KBKIT_LESSONS=inject --assign hash)"
        )
    else:
        _print_comparison(report["headline"])
    for comparison in report["observational"]:
        print()
        _print_comparison(comparison)
    for group in report["groups"]:
        print(f"\n{group['group']}: {group['value']}")
        for arm, metrics in group["arms"].items():
            cells = "; ".join(
                f"{TITLES[m.name][0]} {_cell(metrics[m.name], TITLES[m.name][1])}" for m in METRICS
            )
            print(f"  {arm:<18} tasks={metrics['tasks']}: {cells}")
    print(f"\n{report['caveat']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
