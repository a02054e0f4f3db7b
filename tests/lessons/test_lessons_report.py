"""The report's direction (#15): ratios of totals, randomised headline, bounded intervals."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from kbkit.__main__ import main
from kbkit.lessons.report import (
    CAVEAT,
    METRICS,
    MIN_TASKS,
    build_report,
    ratio,
    task_arms,
)

BY_NAME = {m.name: m for m in METRICS}


def card(
    task: str, *, confirmed=0, reported=0, fp=0, dup=0, tokens=1000, tool_calls=10, category="web"
) -> dict[str, Any]:
    return {
        "task": task,
        "company": "acme",
        "category": category,
        "category_key": category.casefold(),
        "confirmed": confirmed,
        "reported": reported,
        "false_positives": fp,
        "duplicates": dup,
        "tokens": tokens,
        "tool_calls": tool_calls,
    }


def test_tokens_per_confirmed_is_a_ratio_of_totals() -> None:
    # main averaged per task over tasks that found something: 100k, hiding the 900k task
    cards = [card("A", tokens=900_000), card("B", confirmed=1, reported=1, tokens=100_000)]
    assert ratio(cards, BY_NAME["tokens_per_confirmed"]).value == 1_000_000


def test_intervals_stay_within_bounds() -> None:
    few = [card("A", confirmed=1), card("B"), card("C")]
    est = ratio(few, BY_NAME["confirmed_per_task"])
    assert est.low is not None and est.low >= 0  # a t-interval of counts went negative on main
    rates = [card(t, reported=2, fp=2) for t in "ABC"] + [card("D", reported=2, fp=1)]
    est = ratio(rates, BY_NAME["false_positive_rate"])
    assert est.high is not None and est.low is not None and est.value is not None
    assert est.high <= 1.0 and 0 <= est.low <= est.value


def test_arms_keep_history_shadow_and_never_considered_apart() -> None:
    usage = [
        {"task": "A", "mode": "inject", "assign": "hash", "lessons": ["L1"]},
        {"task": "B", "mode": "shadow", "assign": "hash", "lessons": ["L1"]},
        {"task": "C", "mode": "shadow", "assign": "none", "lessons": ["L1"]},
        {"task": "D", "mode": "inject", "assign": "none", "lessons": ["L1"]},
        {"task": "E", "mode": "inject", "assign": "none", "lessons": []},
        {"task": "A", "mode": "inject", "assign": "none", "lessons": []},  # hash wins
    ]
    assert task_arms(usage) == {
        "A": "randomised_inject",
        "B": "randomised_shadow",
        "C": "shadow",
        "D": "inject_shown",
        "E": "inject_none",
    }
    report = build_report([card(t) for t in "ABCDEF"], usage)
    assert report["arms"] == {
        "randomised_inject": 1,
        "randomised_shadow": 1,
        "inject_shown": 1,
        "inject_none": 1,
        "shadow": 1,
        "history": 1,
    }
    assert report["headline"]["kind"] == "randomised"
    labels = [c["comparison"] for c in report["observational"]]
    assert labels and all("observational" in label for label in labels)
    assert "randomised" in CAVEAT and "observational" in CAVEAT


def _trial(seed: int, fp_inject: float, fp_shadow: float, per_arm: int = 400):
    """Tasks hash-assigned to two arms; each reports 10 findings, FP with the arm's rate."""
    rng = random.Random(seed)
    cards, usage = [], []
    for n in range(2 * per_arm):
        arm = "inject" if n % 2 else "shadow"
        rate = fp_inject if arm == "inject" else fp_shadow
        fp = sum(rng.random() < rate for _ in range(10))
        tokens = rng.randint(50_000, 150_000) + (300_000 if arm == "shadow" and n % 7 == 0 else 0)
        cards.append(card(f"T{n}", confirmed=10 - fp, reported=10, fp=fp, tokens=tokens))
        usage.append({"task": f"T{n}", "mode": arm, "assign": "hash", "lessons": ["L"]})
    return build_report(cards, usage)["headline"]["metrics"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_true_halving_of_false_positives_shows_with_covering_intervals(seed: int) -> None:
    fp = _trial(seed, fp_inject=0.2, fp_shadow=0.4)["false_positive_rate"]
    assert fp["treated"]["low"] <= 0.2 <= fp["treated"]["high"]
    assert fp["control"]["low"] <= 0.4 <= fp["control"]["high"]
    diff = fp["difference"]
    assert diff["value"] < 0 and diff["high"] < 0  # the right direction, clearly
    assert diff["low"] <= -0.2 <= diff["high"]  # covering the truth
    assert fp["relative"] == pytest.approx(-0.5, abs=0.1)
    assert fp["mde"] < 0.2 and fp["required_n_per_arm"] < 400


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_null_case_shows_no_effect(seed: int) -> None:
    fp = _trial(seed, fp_inject=0.3, fp_shadow=0.3)["false_positive_rate"]
    assert fp["difference"]["low"] <= 0 <= fp["difference"]["high"]


def test_the_report_is_deterministic() -> None:
    assert _trial(5, 0.2, 0.4) == _trial(5, 0.2, 0.4)


def test_report_command_drops_forgotten_tasks(tmp_path: Path, make_task, capsys) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(
        "".join(
            json.dumps(make_task(t, findings=[("F1", "confirmed", "sqli", t)])) + "\n"
            for t in ("T1", "T2")
        )
    )
    assert main(["lessons", "extract", "--from", str(tasks), "--repo", str(tmp_path)]) == 0
    assert main(["lessons", "forget", "--source", "task:T1", "--repo", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["lessons", "report", "--repo", str(tmp_path), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["arms"]["history"] == 1
    assert main(["lessons", "report", "--repo", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "1 closed task(s)" in out and "randomised comparison: none yet" in out


def _uneven(per_category: dict[str, tuple[int, int, float, float]]):
    """Hash-assigned arms spread unevenly over categories: (inject tasks, shadow tasks,
    inject FP rate, shadow FP rate) per category; every task reports 10 findings."""
    cards, usage = [], []
    for category, (n_inject, n_shadow, fp_inject, fp_shadow) in per_category.items():
        for arm, count, rate in (("inject", n_inject, fp_inject), ("shadow", n_shadow, fp_shadow)):
            for n in range(count):
                task = f"{category}-{arm}-{n}"
                fp = round(rate * 10)
                cards.append(card(task, confirmed=10 - fp, reported=10, fp=fp, category=category))
                usage.append({"task": task, "mode": arm, "assign": "hash", "lessons": ["L"]})
    return cards, usage


def test_uneven_assignment_over_an_easy_and_a_hard_category_is_not_reversed(capsys) -> None:
    # inject is 10 points worse on false positives in both categories, but mostly ran the
    # easy one: pooled, it looked 22 points better ("difference -32.0%" in the run)
    cards, usage = _uneven({"easy": (90, 10, 0.2, 0.1), "hard": (10, 90, 0.6, 0.5)})
    fp = build_report(cards, usage)["headline"]["metrics"]["false_positive_rate"]
    arms = {
        arm: [c for c, u in zip(cards, usage, strict=True) if u["mode"] == arm]
        for arm in ("inject", "shadow")
    }
    pooled = [
        ratio(arms[arm], BY_NAME["false_positive_rate"]).value for arm in ("inject", "shadow")
    ]
    assert pooled == pytest.approx([0.24, 0.46])  # pooled, inject looks 22 points better
    assert fp["difference"]["value"] == pytest.approx(0.10)
    assert 0 < fp["difference"]["low"] < 0.10 < fp["difference"]["high"] < 0.2
    assert [s["difference"]["value"] for s in fp["strata"]] == pytest.approx([0.10, 0.10])
    assert fp["treated"]["value"] - fp["control"]["value"] == pytest.approx(0.10)


def test_the_report_command_shows_the_stratified_difference_and_each_category(
    tmp_path: Path, capsys
) -> None:
    from kbkit.commands import lessons_report

    cards, usage = _uneven({"easy": (90, 10, 0.2, 0.1), "hard": (10, 90, 0.6, 0.5)})
    folder = tmp_path / "intake" / "lessons"
    folder.mkdir(parents=True)
    (folder / "outcomes.jsonl").write_text(
        "".join(
            json.dumps({"task": c["task"], "card": c, "at": "2026-11-01T00:00:00Z"}) + "\n"
            for c in cards
        )
    )
    (folder / "usage.jsonl").write_text("".join(json.dumps(u) + "\n" for u in usage))
    assert lessons_report.main(["--repo", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.strip().startswith("FP rate"))
    assert "difference +10.0% [" in line and "within 2 categories" in line
    assert "    easy: +10.0% [" in out and "    hard: +10.0% [" in out


def test_two_tasks_per_arm_are_not_enough_for_a_number(capsys) -> None:
    cards, usage = _uneven({"web": (2, 2, 0.3, 0.2)})
    fp = build_report(cards, usage)["headline"]["metrics"]["false_positive_rate"]
    assert not fp["enough"] and fp["difference"] is None
    assert fp["treated"]["value"] is None and fp["treated"]["n"] == 2
    assert fp["required_n_per_arm"] is None  # never "0 task(s) per arm"


def test_identical_tasks_still_get_intervals_of_honest_width() -> None:
    # main printed "75.0% [75.0%, 75.0%]" and "0 task(s) per arm": no spread among tasks
    cards, usage = _uneven({"web": (MIN_TASKS, MIN_TASKS, 0.8, 0.7)})
    fp = build_report(cards, usage)["headline"]["metrics"]["false_positive_rate"]
    assert fp["enough"]
    for arm in ("treated", "control"):
        assert fp[arm]["high"] - fp[arm]["low"] > 0.05
    assert fp["difference"]["low"] < fp["difference"]["value"] < fp["difference"]["high"]
    assert fp["required_n_per_arm"] >= MIN_TASKS
