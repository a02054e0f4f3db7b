"""Heading ids numbered as GitHub and DocFX number repeats, however many repeats a page has."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbkit.pages.anchors import DOCFX, GITHUB, heading_ids, html_ids, page_anchors, slug


def _numbered(texts: list[str], style: str, given: dict[int, str]) -> list[str]:
    """github-slugger's rule, written plainly: the slug, else the first free `slug-N`."""
    seen: set[str] = set()
    out = []
    for place, text in enumerate(texts):
        candidate = given.get(place) or slug(text, style)
        if place not in given:
            base, number = candidate, 0
            while candidate in seen:
                number += 1
                candidate = f"{base}-{number}"
        seen.add(candidate)
        out.append(candidate)
    return out


def test_repeated_headings_take_the_first_free_number() -> None:
    texts = ["Remarks", "Remarks-1", "Remarks", "Remarks", "Remarks 1", "Remarks"]
    assert list(page_anchors(texts)) == [
        "remarks",
        "remarks-1",
        "remarks-2",
        "remarks-3",
        "remarks-1-1",
        "remarks-4",
    ]


def test_random_pages_number_their_ids_as_the_plain_rule_does() -> None:
    rng = random.Random(28)
    words = ["Remarks", "Example", "Remarks-1", "Example-2", "Remarks 2", "Parameters"]
    for _ in range(500):
        texts = [rng.choice(words) for _ in range(rng.randint(1, 60))]
        given = {
            p: rng.choice(["remarks-3", "example-1", "x"])
            for p in range(len(texts))
            if rng.random() < 0.1
        }
        written = [f"{t} {{ #{given[p]} }}" if p in given else t for p, t in enumerate(texts)]
        for style in (GITHUB, DOCFX):
            assert list(page_anchors(texts, style)) == _numbered(texts, style, {})
            assert heading_ids(written, style, attr_list=True) == _numbered(texts, style, given)


SLUGGER = (
    Path(__file__).resolve().parents[2] / ".venv" / "node" / "docusaurus" / "node_modules"
) / "github-slugger"


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("node") is None or not SLUGGER.is_dir(),
    reason="node and github-slugger (installed with the Docusaurus oracle by .ci/run) are absent",
)
def test_github_slugs_agree_with_github_slugger(tmp_path: Path) -> None:
    """The real github-slugger (Docusaurus's, npm) is the oracle for the `github` style on
    headings in many scripts: marks kept (Bengali, Hindi, Thai), other numbers dropped."""
    rng = random.Random(7)
    pieces = [
        '"না" বলতে শেখা',
        "अपने प्रोजेक्ट का स्वामित्व",
        "ภาษาไทย ที่นี่",
        "x² and ½ — Ⅻ",
        "naïve café",
        "テスト ケース",
        "Ελληνικά Κείμενα",
        "Привет, мир!",
        "עברית ✓",
        "emoji 🎉 party",
        "tab\there",
        "snake_case and kebab-case",
        "Ǆ titlecase",
        "١٢٣ ٤",
        "combining e\u0301 and n\u0303",
        "zero\u200bwidth",
        "under‿tie",
        "50% off (!)",
    ]
    texts = pieces + [" ".join(rng.sample(pieces, 3)) for _ in range(60)]
    script = tmp_path / "slug.mjs"
    script.write_text(
        f"import GithubSlugger from {json.dumps(str(SLUGGER / 'index.js'))}\n"
        "const texts = JSON.parse(process.argv[2])\n"
        "console.log(JSON.stringify(texts.map((t) => GithubSlugger.slug(t))))\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        ["node", str(script), json.dumps(texts)], capture_output=True, text=True, check=True
    )
    expected = json.loads(done.stdout)
    assert [slug(text) for text in texts] == expected


def test_html_ids_reads_id_and_name_attributes() -> None:
    text = '<a id="first"></a>\n<div class="x" name=\'second\'>\n<span id = "third">'
    assert html_ids(text) == ["first", "second", "third"]


def test_a_tag_never_closed_ends_at_the_next_tag() -> None:
    # a shell sample's `<<EOF` opens no tag that runs on to the ids below it
    text = '```sh\ncat <<EOF\nx\nEOF\n```\n\n<a id="kept"></a>\n' + "<a id\n" * 3
    assert html_ids(text) == ["kept"]


def test_a_less_than_sign_inside_a_tag_leaves_its_id_found() -> None:
    assert html_ids('<a title="x<y" id="z">') == ["z"]
    assert html_ids("<a <b id='w'>") == ["w"]


def test_no_quoted_attribute_value_means_no_ids() -> None:
    assert html_ids("<a id=x> the idea of a name") == []


def test_attribute_lists_give_their_ids() -> None:
    from kbkit.pages.anchors import attr_list_ids

    text = '{: #first .note }\n{ id="second" key=v }\n{op="a",result="b"}\n{key=a=b #third}'
    assert attr_list_ids(text) == ["first", "second", "third"]
    assert heading_ids(["Title {#custom}", "Other { #x data-a=b=c }"], attr_list=True) == [
        "custom",
        "x",
    ]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["x", "x_1", "x_2", "x_01", "", "_1", "y", "y_3", "x_1_1"]), max_size=30
    )
)
def test_python_markdown_ids_repeat_as_its_own_unique_numbers_them(slugs: list[str]) -> None:
    from markdown.extensions.toc import unique

    from kbkit.pages import anchors

    seen: set[str] = set()
    counters: dict[str, int] = {}
    ours = []
    for candidate in slugs:
        ours.append(anchors._unique(candidate, seen, anchors.PYTHON_MARKDOWN, counters))
        seen.add(ours[-1])
    theirs: set[str] = set()
    assert ours == [unique(candidate, theirs) for candidate in slugs]


def test_the_word_and_mark_table_keeps_what_the_per_character_rule_keeps() -> None:
    """Every code point, through a fresh table, as the rule reads it one character at a
    time: `-` and space kept, letters, marks, decimal digits, letter numbers and
    connectors kept, everything else dropped."""
    import sys
    import unicodedata

    from kbkit.pages.anchors import _WordAndMarks

    def kept(char: str) -> bool:
        category = unicodedata.category(char)
        return char in "- " or category[0] in "LM" or category in ("Nd", "Nl", "Pc")

    every = "".join(map(chr, range(sys.maxunicode + 1)))
    table = _WordAndMarks()
    assert every.translate(table) == "".join(filter(kept, every))
    assert every.translate(table) == "".join(filter(kept, every))  # and once remembered
    assert slug("“না” বলতে শেখা x² ½ Ⅻ_a-b") == "না-বলতে-শেখা-x--ⅻ_a-b"
