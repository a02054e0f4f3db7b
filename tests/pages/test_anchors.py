"""Heading ids numbered as GitHub and DocFX number repeats, however many repeats a page has."""

from __future__ import annotations

import random

from kbkit.pages.anchors import DOCFX, GITHUB, heading_ids, page_anchors, slug


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
