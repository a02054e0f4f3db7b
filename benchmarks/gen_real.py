"""A real-shaped knowledge tree (issue #12's "speed on real pages"), for `make bench`'s check.

Real documentation pages are not the synthetic tree's prose with a few fences: they carry
front matter with many keys, long reference sections, wide tables full of links and code,
many fences (also inside list items), block quotes and notes, HTML comments and blocks,
reference-style links with their definitions at the end, and footnotes. This tree has that
shape, under the synthetic tree's layout (folders with an `_index.md` that links each page)
so both validators run their whole rule set on it. Every link resolves. Pages average about
4.7 KB, as the 9,746-page docs tree of reference/measurements.md (45 MB) does.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from benchmarks.gen_tree import TAGS, WORDS

DAY = "2026-11-01"
PAGES_PER_FOLDER = 40
LANGUAGES = ["bash", "python", "yaml", "json", "console", "text", ""]


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _sentence(rng: random.Random, n: int, siblings: list[str]) -> str:
    """Prose with the inline markup real pages use: code, emphasis, links of each kind."""
    parts = []
    for _ in range(n):
        roll = rng.random()
        word = rng.choice(WORDS)
        if roll < 0.08:
            parts.append(f"`{word}.{rng.choice(WORDS)}()`")
        elif roll < 0.12:
            parts.append(f"**{word}**")
        elif roll < 0.15:
            parts.append(f"[{word}]({rng.choice(siblings)})")
        elif roll < 0.17:
            parts.append(f"[{word}][ref-{rng.randrange(4)}]")
        elif roll < 0.18:
            parts.append(f"<https://example.com/{word}>")
        else:
            parts.append(word)
    return " ".join(parts).capitalize() + "."


def _front(rng: random.Random, title: str, kind: str) -> str:
    extra = "".join(
        f"{key}: {_words(rng, 3)}\n"
        for key in ("author", "ms.service", "ms.topic", "ms.custom", "description", "keywords")
    )
    return (
        f'---\ntitle: "{title}"\ncreated: 2026-08-01\nupdated: {DAY}\ntype: {kind}\n'
        f"tags: [{rng.choice(TAGS)}, {rng.choice(TAGS)}]\n"
        f'sources: ["PR #{rng.randrange(9999)}", "docs/{rng.choice(WORDS)}.md"]\n'
        f"{extra}ms.date: 11/{rng.randint(10, 28)}/2026\nreviewers:\n  - {rng.choice(WORDS)}\n"
        f"  - {rng.choice(WORDS)}\n---\n"
    )


def _fence(rng: random.Random, indent: str = "") -> str:
    lines = [f"{rng.choice(WORDS)} --{rng.choice(WORDS)}={rng.randrange(99)}" for _ in range(8)]
    body = "\n".join(indent + line for line in lines[: rng.randint(2, 8)])
    marker = "~~~" if rng.random() < 0.1 else "```"
    return f"{indent}{marker}{rng.choice(LANGUAGES)}\n{body}\n{indent}{marker}"


def _table(rng: random.Random, siblings: list[str]) -> str:
    columns = rng.randint(3, 6)
    head = "| " + " | ".join(_words(rng, 2) for _ in range(columns)) + " |"
    delim = "|" + "|".join(rng.choice(["---", ":---", ":---:", "---:"]) for _ in range(columns))
    rows = [
        "| "
        + " | ".join(
            [f"[`{rng.choice(WORDS)}`]({rng.choice(siblings)})"]
            + [_sentence(rng, rng.randint(1, 6), siblings) for _ in range(columns - 1)]
        )
        + " |"
        for _ in range(rng.randint(4, 20))
    ]
    return "\n".join([head, delim + "|", *rows])


def _steps(rng: random.Random, siblings: list[str]) -> str:
    out = []
    for i in range(1, rng.randint(3, 7)):
        out.append(f"{i}. {_sentence(rng, rng.randint(6, 16), siblings)}")
        if rng.random() < 0.5:
            out.append("\n" + _fence(rng, "   ") + "\n")
        if rng.random() < 0.3:
            out.append(f"   - {_sentence(rng, 6, siblings)}\n   - {_sentence(rng, 5, siblings)}")
    return "\n".join(out)


def _body(rng: random.Random, title: str, size: int, siblings: list[str]) -> str:
    parts = [
        f"# {title}\n",
        "<!-- This page is generated for benchmarks; keep its shape, not its words. -->",
        f"> [!NOTE]\n> {_sentence(rng, 14, siblings)}\n> {_sentence(rng, 10, siblings)}",
    ]
    section = 0
    while sum(len(p) for p in parts) < size:
        section += 1
        parts.append(f"## {_words(rng, 3).capitalize()} {section}")
        parts.append(_sentence(rng, rng.randint(20, 60), siblings))
        roll = rng.random()
        if roll < 0.35:
            parts.append(_fence(rng))
        elif roll < 0.55:
            parts.append(_table(rng, siblings))
        elif roll < 0.75:
            parts.append(_steps(rng, siblings))
        elif roll < 0.85:
            parts.append(f"### {_words(rng, 2).capitalize()}\n\n{_fence(rng)}\n\n{_fence(rng)}")
        elif roll < 0.9:
            parts.append(f'<div class="note">\n{_words(rng, 12)}\n</div>')
        else:
            parts.append(f"{_sentence(rng, 10, siblings)}[^{section}]")
            parts.append(f"[^{section}]: {_sentence(rng, 8, siblings)}")
    parts.append(
        "\n".join(f'[ref-{i}]: {rng.choice(siblings)} "{_words(rng, 2)}"' for i in range(4))
    )
    return "\n\n".join(parts) + "\n"


def generate_real(out: Path, pages: int, seed: int = 11, size: int = 3300) -> int:
    """Write about `pages` real-shaped pages under `out/knowledge`; returns the count."""
    rng = random.Random(seed)
    root = out / "knowledge"
    root.mkdir(parents=True, exist_ok=True)
    (root / "policy.yaml").write_text(f"taxonomy:\n  tags: [{', '.join(TAGS)}]\n")
    count = 0
    folders = []
    while count < pages:
        folder = f"topic-{len(folders)}"
        folders.append(folder)
        names = [f"page-{i}.md" for i in range(PAGES_PER_FOLDER)]
        for name in names:
            siblings = [n for n in rng.sample(names, 5) if n != name] or ["_index.md"]
            title = f"{folder} {name[:-3]}"
            text = _front(rng, title, "guide") + _body(rng, title, size, siblings)
            (root / "general" / folder).mkdir(parents=True, exist_ok=True)
            (root / "general" / folder / name).write_text(text, "utf-8")
            count += 1
        _index(root / "general" / folder, folder, [f"[{n}]({n})" for n in names])
    _index(root / "general", "general", [f"[{f}]({f}/_index.md)" for f in folders])
    _index(root / "repos", "repos", [])
    return count + len(folders) + 2


def _index(folder: Path, title: str, links: list[str]) -> None:
    rows = "".join(f"| {link} | {title} |\n" for link in links)
    table = "| page | about |\n|---|---|\n" + rows if rows else ""
    front = (
        f'---\ntitle: "{title}"\ncreated: 2026-08-01\nupdated: {DAY}\ntype: index\n'
        f'tags: [general]\nsources: ["PR #1"]\n---\n'
    )
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "_index.md").write_text(f"{front}# {title}\n\n{table}", "utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    print(generate_real(args.out, args.pages, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
