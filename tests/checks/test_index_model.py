"""The index model: a YAML table of contents changed between runs is seen by warm runs, and
tables of contents read as PyYAML's own parser reads them."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import yaml

from kbkit.checks.runner import run_validators
from kbkit.policy.model import load_policy
from kbkit.sites.config import TocLoader

TODAY = date(2026, 11, 30)
CASE = Path(__file__).resolve().parents[1] / "cases/knowledge-tree/ok/index-model-mkdocs/repo"


def unregistered(repo: Path) -> list[str]:
    findings, _ = run_validators(repo, load_policy(repo), ("tree",), TODAY)
    return [f.path for f in findings if f.rule_id == "tree/page-unregistered"]


def test_a_warm_run_sees_an_edited_mkdocs_nav(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(CASE, repo)
    assert unregistered(repo) == []
    assert unregistered(repo) == []  # warm
    nav = repo / "mkdocs.yml"
    nav.write_text(nav.read_text().replace("  - C: repos/c.md\n", ""))
    assert unregistered(repo) == ["knowledge/repos/c.md"]


TOC = """\
# a DocFX table of contents
items:
  - name: Overview
    href: index.md
  - name: "Guides: quoted, with a colon"
    expanded: true
    items:
    - name: 'Single'
      href: guides/one.md#part
    - name: Folded
      href: >-
        guides/two.md
    - {name: Flow, href: "guides/three.md?view=x"}
  - name: Tagged
    href: !ENV DOCS_HREF
  - name: Ünïcode é
    topicHref: ../other/é.md
    items: []
nav:
  - Home: index.md
  - Plugins: !!python/name:material.plugins
"""


def _with_lines(node: object) -> object:
    if isinstance(node, dict):
        return [(_with_lines(k), _with_lines(v)) for k, v in node.items()]
    if isinstance(node, list):
        return [_with_lines(item) for item in node]
    return (node, getattr(node, "line", None))


def test_a_table_of_contents_reads_as_the_pure_python_parser_reads_it() -> None:
    """The loader parses with libyaml where present; values and each string's line are the
    ones PyYAML's own (pure-Python) parser gives."""

    class PurePython(yaml.SafeLoader):
        yaml_constructors = TocLoader.yaml_constructors
        yaml_multi_constructors = TocLoader.yaml_multi_constructors

    assert TocLoader.__mro__[2] is getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # via Bounded
    fast = yaml.load(TOC, Loader=TocLoader)  # noqa: S506 - a safe loader
    pure = yaml.load(TOC, Loader=PurePython)  # noqa: S506 - a safe loader
    assert fast == pure
    assert _with_lines(fast) == _with_lines(pure)
    assert fast["items"][1]["items"][0]["href"].line == 9
    assert fast["items"][2]["href"] is None  # a tag reads as null
