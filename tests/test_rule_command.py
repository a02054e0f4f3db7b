"""`kb rule RULE-ID` explains a rule from the validators' registries; `kb rules` lists them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kbkit.checks.rules import all_rules
from tests.kbtree import make_tree


def kb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kbkit", *args], capture_output=True, text=True)


def test_every_declared_rule_says_why_how_to_fix_and_shows_an_example() -> None:
    rules = all_rules()
    assert len(rules) > 50
    for rule in rules.values():
        assert rule.why and rule.fix and rule.example and rule.summary, rule.id
        assert rule.severity in ("error", "warning"), rule.id


def test_kb_rule_prints_what_why_fix_and_suppress() -> None:
    done = kb("rule", "tree/link-broken")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[0] == "tree/link-broken (error, kb check-knowledge-tree)"
    for label in ("What:", "Why:", "Fix:", "Suppress:"):
        assert any(line.startswith(label) for line in lines), label
    assert "kb-disable-next-line tree/link-broken: reason" in done.stdout


def test_kb_rule_json_carries_version_and_the_registry_severity() -> None:
    document = json.loads(kb("rule", "lint/orphan", "--format", "json").stdout)
    assert document["version"] == 1
    assert document["rule"]["severity"] == all_rules()["lint/orphan"].severity == "warning"


def test_an_unknown_rule_is_a_usage_error_with_the_nearest_id() -> None:
    done = kb("rule", "tree/link-brokn")
    assert done.returncode == 2
    assert "did you mean tree/link-broken?" in done.stderr


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_kb_rules_lists_every_rule(fmt: str) -> None:
    done = kb("rules", "--format", fmt)
    assert done.returncode == 0
    if fmt == "json":
        listed = [rule["id"] for rule in json.loads(done.stdout)["rules"]]
    else:
        head, table, legend = done.stdout.split("\n\n")
        assert head.startswith("the rules, as ") and head.endswith(" sets them:")
        listed = [line.split()[0] for line in table.splitlines()]
        assert legend == "[*]: `kb fix` fixes findings of this rule.\n"
    assert listed == sorted(all_rules())


def test_kb_rules_shows_what_this_repositorys_policy_checks(tmp_path: Path) -> None:
    repo = make_tree(
        tmp_path / "repo",
        policy='rules:\n  lint/orphan: "off"\n  lint/stale: error\n'
        'overrides:\n  - files: ["general/**"]\n    rules: {tree/link-broken: warning}\n',
    )
    done = subprocess.run(
        [sys.executable, "-m", "kbkit", "rules", "--format", "json"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["policy"].endswith("policy.yaml")
    rows = {row["id"]: row for row in document["rules"]}
    assert (rows["lint/orphan"]["severity"], rows["lint/orphan"]["default"]) == ("off", "warning")
    assert (rows["lint/stale"]["severity"], rows["lint/stale"]["default"]) == ("error", "warning")
    assert rows["tree/link-broken"]["overrides"] == 1
    assert rows["lint/title-unquoted"]["fixable"] is True
    text = subprocess.run(
        [sys.executable, "-m", "kbkit", "rules"], cwd=repo, capture_output=True, text=True
    ).stdout
    assert "off (default warning)" in text and "1 path glob(s) differ" in text
    defaults = subprocess.run(
        [sys.executable, "-m", "kbkit", "rules", "--defaults", "--format", "json"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert {r["id"]: r["severity"] for r in json.loads(defaults.stdout)["rules"]}[
        "lint/orphan"
    ] == ("warning")
