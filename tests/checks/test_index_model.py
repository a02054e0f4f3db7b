"""The index model: a YAML table of contents changed between runs is seen by warm runs, and
tables of contents read as PyYAML's own parser reads them."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import pytest
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


def _docset(tmp_path: Path, pages: int = 700) -> Path:
    """A DocFX docset large enough for the parallel load: toc.yml lists every page of
    docs/a/ but the last, and an entry that names nothing."""
    repo = tmp_path / "docset"
    (repo / "docs" / "a").mkdir(parents=True)
    (repo / "kbkit.yaml").write_text("version: 1\nextends: docfx\nknowledge_root: docs\n")
    items = []
    for number in range(pages):
        (repo / "docs" / "a" / f"p{number}.md").write_text(f"# Page {number}\n\nText.\n")
        if number < pages - 1:
            items.append(f"  - name: Page {number}\n    href: p{number}.md\n")
    items.append("  - name: Gone\n    href: gone.md\n")
    (repo / "docs" / "a" / "toc.yml").write_text("items:\n" + "".join(items))
    return repo


def test_tables_read_ahead_give_the_findings_of_tables_read_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A check reads and resolves the docset's tables of contents while helpers parse its
    pages; its findings are those of a check that reads them after the parse, and every
    table read ahead is taken (made once, not again after the parse)."""
    import os

    from kbkit.checks import index_model

    monkeypatch.setattr(os, "cpu_count", lambda: 2)  # a parse helper, even on one CPU
    repo = _docset(tmp_path)
    made: list[str] = []
    real_table = index_model._table_toc

    def making(repo: Path, path: str, *args: object) -> object:
        made.append(path)
        return real_table(repo, path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(index_model, "_table_toc", making)
    ahead, _ = run_validators(repo, load_policy(repo), ("tree", "lint"), TODAY, use_cache=False)
    assert made == ["docs/a/toc.yml"]
    assert index_model._TOCS_AHEAD == {}
    rules = {(f.rule_id, f.path) for f in ahead}
    assert ("tree/page-unregistered", "docs/a/p699.md") in rules
    assert any(rule == "tree/link-broken" and path == "docs/a/toc.yml" for rule, path in rules)
    monkeypatch.setattr(index_model, "read_tables_ahead", lambda *args: None)
    made.clear()
    after, _ = run_validators(repo, load_policy(repo), ("tree", "lint"), TODAY, use_cache=False)
    assert made == ["docs/a/toc.yml"]  # read after the parse instead
    assert ahead == after


def test_a_table_changed_after_it_was_read_ahead_is_read_again(tmp_path: Path) -> None:
    from kbkit.checks import index_model

    repo = _docset(tmp_path, pages=3)
    policy = load_policy(repo)
    toc = repo / "docs" / "a" / "toc.yml"
    files = frozenset({"a/toc.yml", "a/p0.md", "a/p1.md", "a/p2.md"})
    index_model.read_tables_ahead(repo, policy, files)
    assert "docs/a/toc.yml" in index_model._TOCS_AHEAD
    before = {(f.rule_id, f.path) for f in run_validators(repo, policy, ("tree",), TODAY)[0]}
    assert ("tree/page-unregistered", "docs/a/p1.md") not in before
    index_model.read_tables_ahead(repo, policy, files)
    toc.write_text("items:\n  - name: Only\n    href: p0.md\n")
    found = run_validators(repo, policy, ("tree",), TODAY, use_cache=False)[0]
    rules = {(f.rule_id, f.path) for f in found}
    assert ("tree/page-unregistered", "docs/a/p1.md") in rules  # the table as it is now
    assert index_model._TOCS_AHEAD == {}


def test_a_table_that_cannot_be_read_ahead_fails_the_check_as_before(tmp_path: Path) -> None:
    from kbkit.checks import index_model
    from kbkit.infra.errors import UsageError

    repo = _docset(tmp_path)
    toc = repo / "docs" / "a" / "toc.yml"
    toc.write_text("items: [unclosed\n")
    index_model.read_tables_ahead(repo, load_policy(repo), frozenset({"a/toc.yml"}))
    assert index_model._TOCS_AHEAD == {}
    with pytest.raises(UsageError, match="invalid table of contents YAML"):
        run_validators(repo, load_policy(repo), ("tree",), TODAY, use_cache=False)


def test_a_table_of_contents_that_leads_outside_the_repository_is_refused_unread(
    tmp_path: Path,
) -> None:
    """A `toc.yml` symlinked to a file outside the repository: the check exits 2 naming the
    path, and nothing of the outside file reaches a finding or a message, whether the
    table was read ahead (a large docset) or not."""
    from kbkit.checks import index_model
    from kbkit.infra.boundary import OutsideRepository

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "toc.yml").write_text("items:\n  - name: Secret\n    href: private-name.md\n")
    for pages in (3, 700):
        repo = _docset(tmp_path / str(pages), pages=pages)
        toc = repo / "docs" / "a" / "toc.yml"
        toc.unlink()
        toc.symlink_to(outside / "toc.yml")
        with pytest.raises(OutsideRepository) as refused:
            run_validators(repo, load_policy(repo), ("tree", "lint"), TODAY, use_cache=False)
        assert "docs/a/toc.yml" in str(refused.value)
        assert "private-name" not in str(refused.value)
        assert index_model._TOCS_AHEAD == {}


def test_a_sidebars_file_that_leads_outside_the_repository_is_refused_unread(
    tmp_path: Path,
) -> None:
    from kbkit.checks import index_model
    from kbkit.infra.boundary import OutsideRepository

    (tmp_path / "outside.js").write_text("module.exports = {docs: ['private-name']};\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "sidebars.js").symlink_to(tmp_path / "outside.js")
    with pytest.raises(OutsideRepository, match="the sidebars file sidebars.js leads outside"):
        index_model._table_bytes(repo, repo / "sidebars.js", "the sidebars file")
