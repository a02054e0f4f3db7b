"""`kb rule RULE-ID` explains a rule from the validators' registries; `kb rules` lists them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kbkit.checks.rules import all_rules


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
        table, legend = done.stdout.split("\n\n")
        listed = [line.split()[0] for line in table.splitlines()]
        assert legend == "[*]: `kb fix` fixes findings of this rule.\n"
    assert listed == sorted(all_rules())
