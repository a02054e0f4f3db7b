"""Fixtures: work clones built from kbkit's own knowledge tree, with validator shims."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kbkit.curator import KnowledgeEvidenceBatch, KnowledgeEvidenceEvent
from tests.conftest import PROJECT

EXTRA_VALIDATORS = ("tools/check_knowledge_tree.py", "tools/check_wiki_lint.py")
WRITING = "general/writing/rules"
KBKIT = "repos/kbkit/rules"


def make_clone(dest: Path, validators: str = "pass") -> Path:
    """Copy knowledge/ into `dest`. kbkit's built-in validators always gate an apply;
    validators 'pass' also lists two extra policy commands (scripts in tools/ that exit 0,
    which tests replace), 'real' only the built-ins."""
    shutil.copytree(PROJECT / "knowledge", dest / "knowledge")
    if validators != "real":
        for path in EXTRA_VALIDATORS:
            (dest / path).parent.mkdir(parents=True, exist_ok=True)
            (dest / path).write_text(validators_script(validators))
        policy = dest / "knowledge/policy.yaml"
        listed = "".join(f"  - [{path}]\n" for path in EXTRA_VALIDATORS)
        policy.write_text(policy.read_text() + f"\nvalidators:\n{listed}")
    return dest


def validators_script(kind: str) -> str:
    return {
        "pass": "raise SystemExit(0)\n",
        "fail": "import sys\nprint('knowledge/x.md:1: tree/link-broken boom')\nsys.exit(1)\n",
        # a grandchild inherits the output pipe: the gate must kill the whole group
        "hang": "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "time.sleep(60)\n",
    }[kind]


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    return make_clone(tmp_path / "clone")


def event(source_id: str = "PR #101", **extra: Any) -> KnowledgeEvidenceEvent:
    values: dict[str, Any] = {
        "kind": "merged_pr",
        "source_id": source_id,
        "repo": "acme/kbkit",
        "title": f"Fix things ({source_id})",
        "body": "We learned something durable.",
    }
    values.update(extra)
    return KnowledgeEvidenceEvent(**values)


def batch(*source_ids: str, max_rules: int = 5) -> KnowledgeEvidenceBatch:
    return KnowledgeEvidenceBatch([event(s) for s in source_ids or ("PR #101",)], max_rules)


def section(
    rule_id: str = "WRITE-3b",
    title: str = "Link targets stay inside the tree",
    level: int = 3,
    cite: str = "PR #101",
    labels: tuple[str, str, str, str] = ("Trigger", "Must", "Must not", "Acceptance"),
    sep: str = "—",
) -> str:
    return "\n".join(
        [
            f"{'#' * level} {rule_id} {sep} {title}",
            "",
            f"- {labels[0]}: a page links a file outside the knowledge root.",
            f"- {labels[1]}: link a page inside the tree that summarizes the file, and",
            "  keep the path relative.",
            f"- {labels[2]}: link into a local checkout.",
            f"- {labels[3]}: every link resolves inside the tree. ^[{cite}]",
        ]
    )


def row(
    rule_id: str = "WRITE-3b",
    target: str = WRITING,
    after: str | None = None,
    cite: str = "PR #101",
    **kw: Any,
) -> dict[str, Any]:
    title = kw.pop("title", "Link targets stay inside the tree")
    kw_group = kw.pop("group", None)
    table_rows = kw.pop("table_rows", None)
    new_page = kw.pop("new_page", None)
    text = kw.pop("section", None) or section(rule_id, title, cite=cite, **kw)
    return {
        "target": target,
        "rule_id": rule_id,
        "title": title,
        "after": after,
        "group": kw_group,
        "section": text,
        "citations": [c.strip() for c in cite.split(";")],
        "rationale": "seen in review",
        "table_rows": table_rows,
        "new_page": new_page,
    }
