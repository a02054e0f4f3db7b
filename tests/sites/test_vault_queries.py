"""kbkit.sites.vault_queries: Dataview's sources and Bases' filters as the plugins document
them (Dataview's "Sources" reference, Obsidian's "Bases syntax"), and a page's tags."""

from __future__ import annotations

from kbkit.pages.page import parse_page
from kbkit.sites.vault_queries import (
    base_sources,
    listed,
    page_sources,
    page_tags,
    renders_own_fields,
)


def _page(text: str):  # type: ignore[no-untyped-def]
    return parse_page("p.md", text.encode())


def test_dataview_sources_in_blocks_and_inline_queries() -> None:
    page = _page(
        '```dataview\nLIST\nFROM "Projects/Active" or #work/client and -#archived\n'
        "WHERE done\n```\n\n"
        "```dataviewjs\nfor (let p of dv.pages('\"Books\" or #read')) dv.paragraph(p.name)\n```\n\n"
        'Count: `$= dv.pages("#Todo").length` and `= this.file.name`.\n\n'
        '```js\ndv.pages(\'"NotAQuery"\')\n```\n\nTABLE x FROM "Prose" is no query.\n'
    )
    assert page_sources(page) == (
        ("folder", "Projects/Active"),
        ("tag", "work/client"),
        ("folder", "Books"),
        ("tag", "read"),
        ("tag", "todo"),
    )


def test_a_query_of_every_page_lists_none_it_can_name() -> None:
    assert page_sources(_page("```dataview\nTABLE x\nWHERE y\n```\n")) == ()
    assert page_sources(_page("```dataviewjs\ndv.pages().where(p => p.x)\n```\n")) == ()


def test_base_filters_and_views_without_negated_ones() -> None:
    data = {
        "filters": {
            "or": [
                'file.inFolder("Notes/Daily")',
                {"not": ['file.inFolder("Notes/Archive")', 'file.hasTag("old")']},
                '!file.inFolder("Drafts")',
            ]
        },
        "views": [{"type": "table", "filters": {"and": ['file.hasTag("book", "#Film")']}}],
    }
    assert base_sources(data) == (
        ("folder", "Notes/Daily"),
        ("tag", "book"),
        ("tag", "film"),
    )
    assert base_sources({"views": [{"type": "table"}]}) is None  # no filter: every page
    assert base_sources("not a mapping") == ()


def test_tags_from_front_matter_and_body_outside_code() -> None:
    page = _page(
        "---\ntags: [Project, '#Client/Acme']\ntag: solo\n---\n# Title #notatag\n\n"
        "Text #Topic/Sub, (#paren) and a#glued, #2024 and `#inline`.\n\n```\n#incode\n```\n"
    )
    assert page_tags(page) == ("project", "client/acme", "solo", "notatag", "topic/sub", "paren")


def test_listed_by_folder_file_nested_tag_or_everything() -> None:
    sources = {("folder", "Moves"), ("folder", "Items/Potion"), ("tag", "game")}
    assert listed("Moves/Sub/Tackle.md", (), sources)
    assert listed("Items/Potion.md", (), sources)
    assert not listed("Items/Ether.md", (), sources)
    assert listed("Dex/Pikachu.md", ("game/dex",), sources)
    assert not listed("Dex/Pikachu.md", ("gamer",), sources)
    assert listed("Anything.md", (), {("folder", "")})


def test_a_body_that_shows_its_own_fields() -> None:
    assert renders_own_fields(_page("---\nName: x\n---\n## `= this.Name`\n"))
    assert renders_own_fields(_page("```dataviewjs\ndv.paragraph(dv.current().Name)\n```\n"))
    assert not renders_own_fields(_page("---\nnote: this.x\n---\n# Plain\n\nthis.x\n"))
