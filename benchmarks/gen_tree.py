"""Synthetic knowledge trees shaped like a real team's (for `make bench` and scale tests).

Shape per repo (about 500 pages): a root rules/architecture page, 6 work topics with pages,
a `guides/` group and an `incidents/` group, `components/` with 12 owners and `models/` with
40 owners (filesystem marker). `general/` holds 10 topics with rules and guides. Every page
has valid frontmatter, 2-3 resolvable links, and rule pages carry 8-14 rule sections. The
trees pass both validators with the default policy (tags from the generated policy.yaml).
`--flat N` puts N pages into one registered folder instead.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

TAGS = ["general", "review", "ci", "docs", "debug", "components", "models", "serving", "config"]
WORDS = [
    "request",
    "cache",
    "scheduler",
    "worker",
    "batch",
    "token",
    "queue",
    "config",
    "runtime",
    "model",
    "layer",
    "kernel",
    "memory",
    "pipeline",
    "stage",
    "review",
    "owner",
    "index",
    "guide",
    "rule",
    "latency",
    "budget",
    "shard",
    "replica",
    "backend",
    "adapter",
]
DAY = "2026-11-01"


def _para(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def _front(title: str, kind: str, tags: list[str]) -> str:
    return (
        f'---\ntitle: "{title}"\ncreated: 2026-08-01\nupdated: {DAY}\ntype: {kind}\n'
        f'tags: [{", ".join(tags)}]\nsources: ["PR #1"]\n---\n'
    )


def _body(rng: random.Random, size: int, links: list[str]) -> str:
    parts = []
    for i, target in enumerate(links):
        parts.append(f"See [{target.rsplit('/', 1)[-1]} {i}]({target}) for the details.")
    while sum(len(p) for p in parts) < size:
        parts.append(_para(rng, rng.randint(20, 60)))
        roll = rng.random()
        if roll < 0.15:
            parts.append("```bash\nmake check\nkb check --format json\n```")
        elif roll < 0.25:
            rows = "".join(
                f"| `{rng.choice(WORDS)}` | {_para(rng, 6)} |\n" for _ in range(rng.randint(1, 4))
            )
            parts.append("| key | value |\n|---|---|\n" + rows.rstrip("\n"))
        elif roll < 0.37:
            parts.append(_bullets(rng))
        elif roll < 0.43:
            parts.append(_steps(rng))
        elif roll < 0.47:
            parts.append(f"## Notes {len(parts)}")
        elif roll < 0.472:  # about 2% of pages quote someone (the corpus: 1.4%)
            parts.append(f"> {_para(rng, 12)}\n> {_para(rng, 8)}")
    return "\n\n".join(parts) + "\n"


def _bullets(rng: random.Random) -> str:
    """A bullet list, some items with nested items (as real guides have)."""
    out = []
    for _ in range(rng.randint(2, 4)):
        out.append(f"- **{rng.choice(WORDS)}**: {_para(rng, rng.randint(5, 15))}")
        if rng.random() < 0.4:
            out += [f"  - `{rng.choice(WORDS)}` {_para(rng, 6)}" for _ in range(rng.randint(1, 3))]
    return "\n".join(out)


def _steps(rng: random.Random) -> str:
    """Numbered steps, one with a fenced command inside the item."""
    return (
        f"1. {_para(rng, 8)}\n2. {_para(rng, 6)}:\n   ```bash\n   kb check --format json\n   ```\n"
        f"3. {_para(rng, 10)}"
    )


def _rules(rng: random.Random, prefix: str, groups: int, links: list[str]) -> str:
    out = [f"# {prefix} rules\n", f"Only `{prefix}-<digit><letter>` IDs are auditable rules.\n"]
    for g in range(1, groups + 1):
        out.append(f"## Group {g}\n")
        for letter in "abc"[: rng.randint(2, 3)]:
            out.append(
                f"### {prefix}-{g}{letter} — {_para(rng, 4)[:-1]}\n\n"
                f"- Trigger: {_para(rng, 25)}\n- Must: {_para(rng, 30)}\n"
                f"- Must not: {_para(rng, 20)}\n- Acceptance: {_para(rng, 20)} ^[PR #{g}]\n"
            )
    out.append(f"Related: [index]({links[0]}).\n")
    return "\n".join(out)


class Writer:
    def __init__(self, root: Path, rng: random.Random) -> None:
        self.root, self.rng, self.count, self.prefixes = root, rng, 0, 0

    def page(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
        self.count += 1

    def index(
        self, folder: str, pages: list[str], children: list[str], marker: bool = False
    ) -> None:
        rows = [f"| [{p}]({p}) | {_para(self.rng, 6)} |" for p in pages]
        rows += (
            []
            if marker
            else [f"| [{c}/]({c}/_index.md) | {_para(self.rng, 6)} |" for c in children]
        )
        table = "| page | about |\n|---|---|\n" + "\n".join(rows) + "\n" if rows else ""
        note = "<!-- children: filesystem -->\n\n" if marker else ""
        tag = "models" if marker else "general"
        self.page(
            f"{folder}/_index.md",
            _front(f"{folder} index", "index", [tag])
            + note
            + f"# {folder}\n\n{_para(self.rng, 30)}\n\n"
            + table,
        )

    def guide(self, folder: str, name: str, size: int, sibling: str = "_index.md") -> str:
        self.page(
            f"{folder}/{name}",
            _front(name, "guide", ["review"]) + f"# {name}\n\n" + _body(self.rng, size, [sibling]),
        )
        return name

    def rules(self, folder: str) -> str:
        self.prefixes += 1
        prefix = "P" + "".join(chr(65 + (self.prefixes // 26**i) % 26) for i in range(3))
        self.page(
            f"{folder}/rules.md",
            _front(f"{folder} rules", "rule", ["review"])
            + _rules(self.rng, prefix, self.rng.randint(4, 5), ["_index.md"]),
        )
        return "rules.md"

    def incident(self, folder: str, n: int) -> str:
        name = f"2026-10-{n % 28 + 1:02d}-incident-{n}.md"
        self.page(
            f"{folder}/{name}",
            f"# Incident {n}\n\n- ID: `inc-{folder.replace('/', '-')}-{n}`\n"
            f"- Owner: `{folder}`\n- State: verified\n- Search terms: {_para(self.rng, 5)}\n"
            f"- Scope: {_para(self.rng, 8)}\n\n{_body(self.rng, 1700, ['_index.md'])}",
        )
        return name


def owner(w: Writer, folder: str, features: int, with_rules: bool = True) -> None:
    pages = ["architecture.md"]
    w.page(
        f"{folder}/architecture.md",
        _front("architecture", "architecture", ["components"])
        + "# Architecture\n\n"
        + _body(w.rng, 3500, ["_index.md", "rules.md" if with_rules else "_index.md"]),
    )
    if with_rules:
        pages.append(w.rules(folder))
    pages += [w.guide(folder, f"feature-{i}.md", 4000) for i in range(features)]
    w.index(folder, pages, [])


def repo(w: Writer, name: str) -> None:
    base = f"repos/{name}"
    pages = [w.rules(base)]
    w.page(
        f"{base}/architecture.md",
        _front("architecture", "architecture", ["components"])
        + "# Architecture\n\n"
        + _body(w.rng, 4000, ["_index.md", "rules.md"]),
    )
    pages.append("architecture.md")
    topics = [f"topic-{i}" for i in range(6)]
    for topic in topics:
        folder = f"{base}/{topic}"
        tpages = [w.guide(folder, f"page-{i}.md", 4500) for i in range(2)]
        w.index(
            f"{folder}/guides",
            [w.guide(f"{folder}/guides", f"guide-{i}.md", 5000) for i in range(15)],
            [],
        )
        w.index(
            f"{folder}/incidents", [w.incident(f"{folder}/incidents", i) for i in range(10)], []
        )
        w.index(folder, tpages, ["guides", "incidents"])
    comps = [f"comp-{i}" for i in range(12)]
    for comp in comps:
        owner(w, f"{base}/components/{comp}", 5)
    w.index(f"{base}/components", [], comps)
    models = [f"model-{i}" for i in range(40)]
    for i, model in enumerate(models):
        owner(w, f"{base}/models/{model}", 3, with_rules=i % 2 == 0)
    w.index(f"{base}/models", [], models, marker=True)
    w.index(base, pages, topics + ["components", "models"])


def generate(out: Path, pages: int, seed: int = 7, flat: bool = False) -> int:
    rng = random.Random(seed)
    w = Writer(out / "knowledge", rng)
    (out / "knowledge").mkdir(parents=True, exist_ok=True)
    (out / "knowledge" / "policy.yaml").write_text(f"taxonomy:\n  tags: [{', '.join(TAGS)}]\n")
    if flat:
        names = [w.guide("general/flat", f"page-{i:06d}.md", 4000) for i in range(pages)]
        w.index("general/flat", names, [])
        w.index("general", [], ["flat"])
        w.page("repos/_index.md", _front("repos", "index", ["general"]) + "# Repos\n")
        return w.count
    topics = [f"topic-{i}" for i in range(10)]
    for topic in topics:
        folder = f"general/{topic}"
        w.index(
            f"{folder}/guides",
            [w.guide(f"{folder}/guides", f"g-{i}.md", 5000) for i in range(15)],
            [],
        )
        w.index(folder, [w.rules(folder)], ["guides"])
    w.index("general", [], topics)
    repos = []
    while w.count < pages:
        repos.append(f"repo-{len(repos)}")
        repo(w, repos[-1])
    w.index("repos", [], repos)
    return w.count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--flat", action="store_true")
    args = parser.parse_args(argv)
    print(generate(args.out, args.pages, args.seed, args.flat))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
