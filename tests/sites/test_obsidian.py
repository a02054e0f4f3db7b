"""Obsidian: init finds the vault (`.obsidian/` at the top or one folder down) and reads its
pages as Obsidian links them: by name, letter case ignored."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbkit.sites import detect_site


def vault(folder: Path) -> Path:
    (folder / ".obsidian").mkdir(parents=True)
    (folder / ".obsidian" / "app.json").write_text("{}\n")
    (folder / "Guides").mkdir()
    (folder / "Home.md").write_text(
        "# Home\n\nStart with [[getting started]] and [[Queries#Filters]].\n"
    )
    (folder / "Guides" / "Getting Started.md").write_text("# Getting Started\n\nBack [[Home]].\n")
    (folder / "Guides" / "Queries.md").write_text("# Queries\n\n## Filters\n\nSee [[Home]].\n")
    return folder


def test_a_vault_at_the_top_is_read_as_obsidian_links_it(tmp_path: Path) -> None:
    vault(tmp_path)
    site = detect_site(tmp_path)
    assert site is not None and site.generator == "Obsidian" and site.root == "."
    assert site.keys["links"]["wikilinks"] is True
    assert site.keys["links"]["case_insensitive"] is True


def test_a_vault_one_folder_down_is_its_root(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.ts").write_text("export {}\n")
    (tmp_path / "README.md").write_text("# Plugin\n")
    vault(tmp_path / "docs")
    site = detect_site(tmp_path)
    assert site is not None and (site.generator, site.root) == ("Obsidian", "docs")


def test_settings_without_pages_are_no_vault(tmp_path: Path) -> None:
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.ts").write_text("export {}\n")
    assert detect_site(tmp_path) is None


@pytest.mark.slow
def test_init_alone_catches_a_broken_wikilink_and_a_missing_heading(tmp_path: Path) -> None:
    vault(tmp_path)
    (tmp_path / "Guides" / "Queries.md").write_text(
        "# Queries\n\n## Filters\n\nSee [[Home]], [[Hom]] and [[Home#Nowhere]].\n"
    )
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    kb = [sys.executable, "-m", "kbkit"]
    subprocess.run([*kb, "init"], cwd=tmp_path, check=True, capture_output=True)
    done = subprocess.run(
        [*kb, "check", "--format", "json"], cwd=tmp_path, capture_output=True, text=True
    )
    found = {(row["path"], row["rule"]) for row in json.loads(done.stdout)["findings"]}
    assert ("Guides/Queries.md", "tree/link-broken") in found
    assert ("Guides/Queries.md", "tree/link-anchor") in found
    assert not any(path in ("Home.md", "Guides/Getting Started.md") for path, _ in found)


def test_folders_publish_leaves_out_and_the_templates_folder_are_unpublished(
    tmp_path: Path,
) -> None:
    vault(tmp_path)
    (tmp_path / ".obsidian" / "publish.json").write_text('{"excluded": ["_meta", "Drafts/"]}')
    (tmp_path / ".obsidian" / "templates.json").write_text('{"folder": "_meta/templates"}')
    site = detect_site(tmp_path)
    assert site is not None
    assert site.keys["unpublished"] == ["/_meta/", "/Drafts/", "/_meta/templates/"]


def test_unreadable_vault_settings_are_no_error(tmp_path: Path) -> None:
    vault(tmp_path)
    (tmp_path / ".obsidian" / "publish.json").write_text("{not json")
    site = detect_site(tmp_path)
    assert site is not None and "unpublished" not in site.keys


@pytest.mark.slow
def test_templates_are_no_orphans_and_no_broken_links(tmp_path: Path) -> None:
    vault(tmp_path)
    (tmp_path / ".obsidian" / "templates.json").write_text('{"folder": "Templates"}')
    (tmp_path / "Templates").mkdir()
    (tmp_path / "Templates" / "New page.md").write_text(
        "# {{title}}\n\n![[insert-name-here.png]]\n"
    )
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    kb = [sys.executable, "-m", "kbkit"]
    subprocess.run([*kb, "init"], cwd=tmp_path, check=True, capture_output=True)
    done = subprocess.run(
        [*kb, "check", "--format", "json"], cwd=tmp_path, capture_output=True, text=True
    )
    assert json.loads(done.stdout)["findings"] == []


def test_a_vault_without_its_settings_folder_is_told_by_its_links(tmp_path: Path) -> None:
    """`.obsidian/` is per user and often not committed: pages that link by name
    (`[[Page]]`) more than by path are a vault all the same; pages linked by path are not."""
    for n in range(6):
        (tmp_path / "notes").mkdir(exist_ok=True)
        (tmp_path / f"notes/Page {n}.md").write_text(f"# {n}\n\nSee [[Page {(n + 1) % 6}]].\n")
    site = detect_site(tmp_path)
    assert site is not None and (site.generator, site.root) == ("Obsidian", ".")
    assert site.config == "[[wikilinks]]" and site.keys["links"]["wikilinks"] is True
    for n in range(6):
        (tmp_path / f"notes/Page {n}.md").write_text(f"# {n}\n\nSee [next](Page%20{n}.md).\n")
    site = detect_site(tmp_path)
    assert site is None or site.generator != "Obsidian"


@pytest.mark.slow
def test_a_propertys_wikilinks_are_links_as_obsidian_makes_them(tmp_path: Path) -> None:
    """`categories: ["[[Books]]"]` links Books (kepano-obsidian's categories are linked so
    only): Books is no orphan, and a property naming a note nobody wrote is broken, at its
    key's line."""
    vault(tmp_path)
    (tmp_path / "Books.md").write_text("# Books\n\nEvery book.\n")
    (tmp_path / "Dune.md").write_text(
        '---\ncategories:\n  - "[[Books]]"\ngenre: "[[Science fiction|SF]]"\nyear: 1965\n---\n'
        "# Dune\n\nSee [[Home]].\n"
    )
    (tmp_path / "Home.md").write_text((tmp_path / "Home.md").read_text() + "\n[[Dune]]\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    kb = [sys.executable, "-m", "kbkit"]
    subprocess.run([*kb, "init"], cwd=tmp_path, check=True, capture_output=True)
    done = subprocess.run(
        [*kb, "check", "--format", "json"], cwd=tmp_path, capture_output=True, text=True
    )
    found = {(r["path"], r["rule"], r["line"]) for r in json.loads(done.stdout)["findings"]}
    assert found == {("Dune.md", "tree/link-broken", 4)}


RECORD = "\n#Game/Moves\n\n### `= this.Name`\n*`= this.Description`*\n\n" + (
    "**Power:** `= this.Power` and a long line of the template the record shows. " * 6
)
COPY = "# Copy\n\n" + "The same long paragraph, written twice word for word. " * 12


def _records_vault(tmp_path: Path) -> None:
    """A Dataview and Bases vault (Pokerole-Obsidian-SRD's shape): record pages whose data is
    their front matter, listed by queries and Bases, never linked."""
    vault(tmp_path)
    (tmp_path / "Home.md").write_text(
        (tmp_path / "Home.md").read_text()
        + "\n```dataview\nTABLE Power\nfrom #game/moves AND -#game/old\nSORT Power\n```\n"
        + '\n```dataviewjs\ndv.table(["N"], dv.pages(\'"Items"\').map(p => [p.file.link]))\n```\n'
    )
    files = {
        "Moves/Tackle.md": "---\nName: Tackle\nPower: 2\n---\n" + RECORD,
        "Moves/Ember.md": "---\nName: Ember\nPower: 1\n---\n" + RECORD,
        "Items/Potion.md": "# Potion\n\nHeals.\n",
        "Dex/Pikachu.md": "# Pikachu\n\n#Game/Dex\n",
        "Dex/Raichu.md": "# Raichu\n\n`#game/dex` is written in code: no tag.\n",
        "Old/Thing.md": "# Thing\n\n#game/old\n",
        "Lonely/A.md": COPY,
        "Lonely/B.md": COPY,
        "Shelf/Shelf.md": '# Shelf\n\n```dataview\nLIST FROM "Shelf"\n```\n',  # lists itself
        "Shelf/Book.md": "# Book\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    (tmp_path / "Dex.base").write_text(
        'filters:\n  and:\n    - file.inFolder("Dex")\n    - \'!file.hasTag("draft")\'\n'
        "views:\n  - type: table\n    name: Dex\n"
    )


def test_pages_a_query_or_a_base_lists_are_no_orphans(tmp_path: Path) -> None:
    """A Dataview `FROM #tag` (nested tags too, case ignored, a negated one lists nothing),
    `dv.pages('"Folder"')` and a Base's `file.inFolder` list their pages; a record page whose
    body shows its own front matter (`= this.Name`) is no copy of the next one, while two
    pages of the same plain text are."""
    from kbkit.checks.runner import run_validators
    from kbkit.policy.model import load_policy
    from kbkit.policy.scaffold import initialize
    from tests.checks.test_site_trees import TODAY

    _records_vault(tmp_path)
    initialize(tmp_path, TODAY, "", detect=True)
    assert "queries: true" in (tmp_path / "kbkit.yaml").read_text()
    findings, _ = run_validators(tmp_path, load_policy(tmp_path), ("tree", "lint"), TODAY)
    found = sorted((f.path, f.rule_id) for f in findings)
    assert found == [
        ("Lonely/A.md", "lint/orphan"),
        ("Lonely/B.md", "lint/orphan"),
        ("Lonely/B.md", "tree/duplicate-page"),
        ("Old/Thing.md", "lint/orphan"),
        ("Shelf/Shelf.md", "lint/orphan"),  # its own query is no link to it
    ]


def test_a_warm_run_sees_a_changed_base(tmp_path: Path) -> None:
    from kbkit.checks.runner import run_validators
    from kbkit.policy.model import load_policy
    from kbkit.policy.scaffold import initialize
    from tests.checks.test_site_trees import TODAY

    _records_vault(tmp_path)
    initialize(tmp_path, TODAY, "", detect=True)

    def orphans() -> list[str]:
        policy = load_policy(tmp_path)
        findings, _ = run_validators(tmp_path, policy, ("lint",), TODAY, True)
        return sorted(f.path for f in findings if f.rule_id == "lint/orphan")

    assert "Dex/Raichu.md" not in orphans()
    assert "Dex/Raichu.md" not in orphans()  # warm
    (tmp_path / "Dex.base").write_text("filters: 'file.inFolder(\"Moves\")'\n")
    assert {"Dex/Raichu.md", "Dex/Pikachu.md"} <= set(orphans())  # no query lists them now


def test_init_turns_queries_on_only_for_a_vault_that_has_them(tmp_path: Path) -> None:
    plain = vault(tmp_path / "plain")
    for skipped in (".trash", "node_modules"):  # hidden and dependency folders hold no Base
        (plain / skipped).mkdir()
        (plain / skipped / "Old.base").write_text('filters: file.inFolder("Old")\n')
    site = detect_site(plain)
    assert site is not None and "queries" not in site.keys["links"]
    based = vault(tmp_path / "based")
    (based / "Books.base").write_text('filters: file.inFolder("Books")\n')
    plugin = vault(tmp_path / "plugin")
    (plugin / ".obsidian" / "community-plugins.json").write_text('["dataview"]\n')
    written = vault(tmp_path / "written")
    (written / "Home.md").write_text("# Home\n\n```dataview\nLIST FROM #book\n```\n")
    for folder in (based, plugin, written):
        site = detect_site(folder)
        assert site is not None and site.keys["links"]["queries"] is True, folder.name


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(
        st.sampled_from(("[[", "]]", "[", "]", "](", ")", "(", "`", "a", " ", "\n", "http:", "#")),
        max_size=30,
    )
)
def test_link_counts_are_what_the_patterns_find(pieces: list[str]) -> None:
    import re

    from kbkit.sites.obsidian import path_link_count, wikilink_count

    text = "".join(pieces)
    assert wikilink_count(text) == len(re.findall(r"(?<!`)\[\[[^\]\n]+\]\]", text))
    assert path_link_count(text) == len(re.findall(r"\]\((?![a-z]+:|#)[^)\s]+\)", text))
