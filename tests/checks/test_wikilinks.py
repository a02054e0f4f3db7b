"""Wikilinks (`links.wikilinks`): resolved by file name as Obsidian does, counted as inbound
links for orphans, and covered by the incremental reuse layer's per-page digests."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from kbkit.checks import incremental
from kbkit.checks.link_model import Resolver
from kbkit.checks.runner import load_for_checks, run_validators
from kbkit.policy.model import load_policy

TODAY = date(2026, 11, 30)
BOTH = ("tree", "lint")


def make_repo(tmp_path: Path, pages: dict[str, str], links: str) -> Path:
    repo = tmp_path / "repo"
    root = repo / "knowledge"
    root.mkdir(parents=True)
    (root / "policy.yaml").write_text(
        f"links: {{{links}}}\nindex: {{model: none}}\nroots: [general, repos]\n"
    )
    for rel, text in pages.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return repo


def resolver(repo: Path) -> Resolver:
    return Resolver(load_for_checks(repo, load_policy(repo)))


PAGES = {
    "general/_index.md": "# G\n",
    "general/a/note.md": "# Note in a\n",
    "general/a/b/note.md": "# Note in a/b\n",
    "general/z/note.md": "# Note in z\n",
    "general/a/b/page.md": "# Page\n",
    "general/Topic.md": "# Topic\n",
    "general/img.png": "x",
    "repos/_index.md": "# R\n",
    "repos/note.md": "# Repos note\n",
}


def test_a_name_resolves_as_obsidian_resolves_it(tmp_path: Path) -> None:
    found = resolver(make_repo(tmp_path, PAGES, "wikilinks: true"))
    # a path from the root first, `.md` implied
    assert found.wikilink("general/Topic", "repos/_index.md") == "general/Topic.md"
    # several files of that name: the one in the page's own folder ...
    assert found.wikilink("note", "general/a/b/page.md") == "general/a/b/note.md"
    # ... else the shortest path (fewest folders, then characters, then by name)
    assert found.wikilink("note", "general/_index.md") == "repos/note.md"
    assert found.wikilink("a/note", "general/_index.md") == "general/a/note.md"
    assert found.wikilink("b/note", "repos/_index.md") == "general/a/b/note.md"
    # the end of a path matches whole folder names only
    assert found.wikilink("/note", "general/z/note.md") == "general/z/note.md"
    assert found.wikilink("x/note", "general/_index.md") is None
    # relative names, embeds by full file name, the page itself for [[#heading]]
    assert found.wikilink("../a/note", "general/z/note.md") == "general/a/note.md"
    assert found.wikilink("./note", "general/z/note.md") == "general/z/note.md"
    assert found.wikilink("img.png", "repos/_index.md") == "general/img.png"
    assert found.wikilink("", "repos/note.md") == "repos/note.md"
    # letter case counts unless the policy says otherwise
    assert found.wikilink("topic", "repos/_index.md") is None
    folded = resolver(make_repo(tmp_path / "ci", PAGES, "wikilinks: true, case_insensitive: true"))
    assert folded.wikilink("topic", "repos/_index.md") == "general/Topic.md"
    assert folded.wikilink("A/B/NOTE", "repos/_index.md") == "general/a/b/note.md"


def test_a_vault_per_root_keeps_names_inside_the_page_root(tmp_path: Path) -> None:
    found = resolver(make_repo(tmp_path, PAGES, "wikilinks: true, vault_per_root: true"))
    assert found.wikilink("Topic", "repos/note.md") is None  # in general/, another vault
    assert found.wikilink("note", "repos/_index.md") == "repos/note.md"
    assert found.wikilink("note", "general/_index.md") == "general/a/note.md"
    assert found.wikilink("a/b/page", "general/_index.md") == "general/a/b/page.md"


def orphans(repo: Path) -> list[str]:
    findings, _ = run_validators(repo, load_policy(repo), ("lint",), TODAY, use_cache=False)
    return sorted(f.path for f in findings if f.rule_id == "lint/orphan")


def test_wikilinks_are_inbound_links_for_orphans_only_when_switched_on(tmp_path: Path) -> None:
    head = '---\ntitle: "{0}"\ntype: guide\ntags: [x]\ncreated: 2026-01-01\nupdated: 2026-11-01\n---\n# {0}\n\n'
    pages = {
        "general/_index.md": head.format("Index") + "[[guide]] ![[Other|embedded]]\n",
        "general/guide.md": head.format("Guide") + "[[guide#Guide]] links itself only\n",
        "general/sub/Other.md": head.format("Other") + "text\n",
        "repos/_index.md": "# R\n",
    }
    off = make_repo(tmp_path / "off", pages, "wikilinks: false")
    assert orphans(off) == ["knowledge/general/guide.md", "knowledge/general/sub/Other.md"]
    on = make_repo(tmp_path / "on", pages, "wikilinks: true")
    assert orphans(on) == []
    (on / "knowledge/general/_index.md").write_text(head.format("Index") + "[[guide]]\n")
    assert orphans(on) == ["knowledge/general/sub/Other.md"]


def test_a_warm_run_reports_a_wikilink_an_edit_broke(tmp_path: Path) -> None:
    pages = {
        "general/_index.md": "# G\n\n[[guide]] [[faq#Setup]]\n",
        "general/guide.md": "# Guide\n",
        "general/faq.md": "# FAQ\n\n## Setup\n",
        "repos/_index.md": "# R\n",
    }
    repo = make_repo(tmp_path, pages, "wikilinks: true, anchors: true")
    policy = load_policy(repo)

    def broken() -> list[tuple[str, int, str]]:
        findings, _ = run_validators(repo, policy, ("tree",), TODAY)  # cached
        cold, _ = run_validators(repo, policy, ("tree",), TODAY, use_cache=False)
        assert findings == cold
        return [(f.path, f.line, f.rule_id) for f in findings if f.rule_id.startswith("tree/link")]

    assert broken() == []
    assert isinstance(incremental.try_reuse(repo, policy, ("tree",), TODAY, 0), incremental.Reused)
    index = repo / "knowledge/general/_index.md"
    index.write_text("# G\n\n[[guide-old]] [[faq#Setup]]\n")  # the edit breaks a wikilink
    assert broken() == [("knowledge/general/_index.md", 3, "tree/link-broken")]
    index.write_text("# G\n\n[[guide]] [[faq#Setup]]\n")
    assert broken() == []
    faq = repo / "knowledge/general/faq.md"
    faq.write_text("# FAQ\n\n## Install\n")  # the heading a wikilink names is gone
    assert broken() == [("knowledge/general/_index.md", 3, "tree/link-anchor")]


def test_aliases_name_a_page_only_when_switched_on(tmp_path: Path) -> None:
    pages = {**PAGES, "general/Topic.md": "---\naliases: [Subject, [odd]]\n---\n# Topic\n"}
    off = resolver(make_repo(tmp_path / "off", pages, "wikilinks: true"))
    assert off.wikilink("Subject", "repos/_index.md") is None
    on = resolver(make_repo(tmp_path / "on", pages, "wikilinks: true, aliases: true"))
    assert on.wikilink("subject", "repos/_index.md") == "general/Topic.md"
    assert on.wikilink("x/Subject", "repos/_index.md") is None  # an alias is a name, no path


def test_in_a_vault_markdown_links_resolve_by_name_too(tmp_path: Path) -> None:
    head = '---\ntitle: "{0}"\ntype: guide\ntags: [x]\ncreated: 2026-01-01\nupdated: 2026-11-01\n---\n# {0}\n\n'
    pages = {
        "general/_index.md": head.format("Index") + "[g](guide.md) [i](pic.png) [n](nope.md)\n",
        "general/sub/guide.md": head.format("Guide") + "text\n",
        "general/sub/pic.png": "x",
        "repos/_index.md": "# R\n",
    }
    repo = make_repo(tmp_path, pages, "wikilinks: true")
    findings, _ = run_validators(repo, load_policy(repo), BOTH, TODAY, use_cache=False)
    assert [
        (f.path, f.rule_id) for f in findings if f.rule_id in ("tree/link-broken", "lint/orphan")
    ] == [
        ("knowledge/general/_index.md", "tree/link-broken")  # nope.md only
    ]
    plain = make_repo(tmp_path / "plain", pages, "wikilinks: false")
    findings, _ = run_validators(plain, load_policy(plain), BOTH, TODAY, use_cache=False)
    assert sum(f.rule_id == "tree/link-broken" for f in findings) == 3
    assert [f.path for f in findings if f.rule_id == "lint/orphan"] == [
        "knowledge/general/sub/guide.md"
    ]


def test_the_checks_of_one_run_ask_which_file_a_name_opens_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the link check and lint's orphan check read the same wikilinks: one resolver serves
    # the whole run, so each name is looked up once, and a later run looks again
    pages = {**PAGES, "general/Topic.md": "# Topic\n\n[[note]] and [[page]]\n"}
    repo = make_repo(tmp_path, pages, "wikilinks: true")
    asked: list[tuple[str, str]] = []
    named = Resolver._named

    def counting(self: Resolver, name: str, vault: str) -> tuple[dict[str, str], str | None]:
        asked.append((name, vault))
        return named(self, name, vault)

    monkeypatch.setattr(Resolver, "_named", counting)
    policy = load_policy(repo)
    findings, _ = run_validators(repo, policy, BOTH, TODAY, use_cache=False)
    assert sorted(asked) == [("note", ""), ("page", "")]
    assert not [f for f in findings if f.rule_id == "lint/orphan" and "page.md" in f.path]
    run_validators(repo, policy, BOTH, TODAY, use_cache=False)
    assert len(asked) == 4
