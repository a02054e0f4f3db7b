"""The rule registry (`kbkit.checks.rules`): every rule declared once, in its family, and
everything said about a rule made from that declaration."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.kbtree import make_tree

from kbkit.checks.fixes import FIXES
from kbkit.checks.rules import FAMILIES, all_rules, family, unknown_rule
from kbkit.checks.scopes import apply_severities
from kbkit.rulebook.findings import Finding
from kbkit.rulebook.rule import Rule

PACKAGE = Path(__file__).resolve().parents[3] / "tools" / "kbkit"
RULES_DIR = PACKAGE / "checks" / "rules"


def declared_in_source() -> dict[str, Path]:
    """Every `Rule("id", ...)` written anywhere in the package, by id, and where."""
    found: dict[str, Path] = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Rule":
                first = node.args[0] if node.args else None
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    assert first.value not in found, f"{first.value} declared twice"
                    found[first.value] = path
    return found


def test_every_rule_is_declared_once_in_its_familys_init() -> None:
    where = declared_in_source()
    assert set(where) == set(all_rules())
    for rule_id, path in where.items():
        family_name = rule_id.split("/", 1)[0]
        assert path == RULES_DIR / family_name / "__init__.py", rule_id


def test_the_registry_lists_every_family_folder() -> None:
    folders = {p.name for p in RULES_DIR.iterdir() if (p / "__init__.py").is_file()}
    assert {module.__name__.rsplit(".", 1)[-1] for module in FAMILIES} == folders
    for module in FAMILIES:
        prefix = module.__name__.rsplit(".", 1)[-1] + "/"
        assert module.RULES and all(rule.id.startswith(prefix) for rule in module.RULES)
        named = [v for v in vars(module).values() if isinstance(v, Rule)]
        assert sorted(named) == sorted(module.RULES), f"{prefix}: a declared rule is not listed"


def test_declarations_import_only_the_rulebook() -> None:
    """A family's declarations are data every layer reads (the policy's schema, the walk's
    problems, the engine): they import nothing but what a rule is."""
    inits = [RULES_DIR / "__init__.py", *sorted(RULES_DIR.glob("*/__init__.py"))]
    assert len(inits) == 4
    for init in inits:
        for node in ast.walk(ast.parse(init.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module not in (
                None,
                "__future__",
                "types",
            ):
                assert node.module.startswith(("kbkit.rulebook", "kbkit.checks.rules")), (
                    f"{init}: imports {node.module}"
                )
                if node.module.startswith("kbkit.checks.rules"):
                    assert init == RULES_DIR / "__init__.py"  # the registry reads its families
            elif isinstance(node, ast.Import):
                assert all(a.name in ("functools",) for a in node.names), init


def test_fixable_says_exactly_which_rules_kb_fix_fixes() -> None:
    assert {rule.id for rule in all_rules().values() if rule.fixable} == set(FIXES)


def test_a_finding_takes_its_severity_from_the_declaration_not_from_where_it_was_made() -> None:
    # A finding made with the wrong severity (a cached result, an older version's finding):
    # the declaration decides.
    made = [
        Finding("knowledge/a.md", 3, "tree/link-broken", "warning", "x"),
        Finding("knowledge/a.md", 4, "lint/orphan", "error", "y"),
        Finding("lessons.jsonl", 1, "lessons-malformed-row", "warning", "not a kb check rule"),
    ]
    rated = {f.rule_id: f.severity for f in apply_severities(made, None)}
    assert rated == {
        "tree/link-broken": "error",
        "lint/orphan": "warning",
        "lessons-malformed-row": "warning",
    }


def test_family_and_unknown_rule() -> None:
    assert set(family("kb/")) == {
        "kb/unreadable",
        "kb/symlink-folder",
        "kb/suppression-unused",
        "kb/suppression-invalid",
    }
    assert unknown_rule("tree/link-brokn") == (
        "unknown rule 'tree/link-brokn': did you mean 'tree/link-broken'?"
    )


@pytest.mark.slow
def test_flipping_one_declared_severity_shows_everywhere(tmp_path: Path) -> None:
    """The one edit a maintainer makes to a rule's severity, in a copy of the package: `kb
    check`, `kb rules`, `kb rule ID` and SARIF all follow, and nothing else needed changing."""
    copy = tmp_path / "pkg"
    shutil.copytree(PACKAGE, copy / "kbkit", ignore=shutil.ignore_patterns("__pycache__"))
    declarations = copy / "kbkit" / "checks" / "rules" / "tree" / "__init__.py"
    text = declarations.read_text(encoding="utf-8")
    declared = '    "tree/link-broken",\n    ERROR,\n'
    assert text.count(declared) == 1
    declarations.write_text(text.replace(declared, '    "tree/link-broken",\n    WARNING,\n'))
    repo = make_tree(tmp_path / "repo", {"deploy": "See [the runbook](runbook.md)."})

    def kb(*args: str) -> subprocess.CompletedProcess[str]:
        env = {"PYTHONPATH": str(copy), "NO_COLOR": "1", "PATH": "/usr/bin:/bin"}
        return subprocess.run(
            [sys.executable, "-m", "kbkit", *args],
            cwd=repo,
            capture_output=True,
            text=True,
            env=env,
        )

    assert kb("rule", "tree/link-broken").stdout.startswith("tree/link-broken (warning,")
    listed = {row["id"]: row for row in json.loads(kb("rules", "--format", "json").stdout)["rules"]}
    assert listed["tree/link-broken"]["severity"] == "warning"
    checked = kb("check", "--format", "json")
    assert checked.returncode == 0, checked.stderr  # a warning does not fail the check
    found = json.loads(checked.stdout)["findings"]
    assert [(f["rule"], f["severity"]) for f in found] == [("tree/link-broken", "warning")]
    sarif = json.loads(kb("check", "--format", "sarif").stdout)["runs"][0]
    assert sarif["tool"]["driver"]["rules"][0]["defaultConfiguration"]["level"] == "warning"
    assert [r["level"] for r in sarif["results"]] == ["warning"]
    # and the package as shipped says error, for the same tree
    shipped = subprocess.run(
        [sys.executable, "-m", "kbkit", "check", "--format", "json"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert shipped.returncode == 1
    assert [f["severity"] for f in json.loads(shipped.stdout)["findings"]] == ["error"]
