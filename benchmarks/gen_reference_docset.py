"""A generated C++-reference-shaped DocFX docset (issue #28's "speed on real pages"), for the
check bench: the shape of MicrosoftDocs/cpp-docs, measured on its 9,746 pages (41 MB of
markdown under `docs/`, 66 folders, 31 `toc.yml`), which costs kbkit more per byte than the
synthetic trees do.

What was measured there and is drawn here (percentiles p10 / p50 / p90 / p99, mean):
page size 0.5 / 1.8 / 9.2 / 48 KB, mean 4.6 KB, the largest 560 KB (most pages are short
compiler-error pages; a few class references are very long); headings 2 / 4 / 19 / 153, mean
11, most of a reference page's written `## <a name="x"></a> Class::Member`; links 0 / 4 / 21 /
120, mean 10.6 (relative 6.9, `#fragment` 3.6, site-root `/windows/...` 0.7, external 0.4);
tables 0.5 per page, 5.8 rows mean (member tables of `[`X::y`](#y)` links); fenced code
3.6 blocks per page; front matter in 9,741 pages, 450 bytes mean: `title`, `description`,
`ms.date`, and the `f1_keywords` / `helpviewer_keywords` flow lists whose quoted items hold
commas (`"CWnd [MFC], accHitTest"`); `> [!NOTE]` blocks, `[!INCLUDE[...](...)]` lines,
`<br/>` and `*param*<br/>` parameter lists. Every folder has a `toc.yml` (nested `items`)
listing its pages, and the repository a Learn redirect file; the policy is what `kb init`
writes for it (the `docfx` profile). Site-root links to other docsets are the site's URLs
(`links.absolute_urls`); on the real tree they were 6,709 of 6,771 findings before that.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from benchmarks.gen_tree import WORDS

AREAS = ["mfc", "atl", "standard-library", "c-runtime-library", "build", "cpp", "windows"]
ERROR_FOLDERS = ["compiler-errors-1", "compiler-errors-2", "compiler-warnings", "tool-errors"]
FOLDERS_PER_AREA = 8
POLICY = """\
# kbkit policy written by `kb init` (the docfx profile), as for MicrosoftDocs/cpp-docs
version: 1
extends: docfx
knowledge_root: docs
links: {redirects: .openpublishing.redirection.json}
"""
SITE_LINKS = [
    "/windows/win32/api/winuser/nf-winuser-createwindowexw",
    "/visualstudio/ide/reference/properties-window",
    "/windows/win32/menurc/resources",
    "/dotnet/standard/globalization-localization/index",
]


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _prose(rng: random.Random, n: int, siblings: list[str]) -> str:
    """A paragraph with inline code, emphasis and the links real pages hold."""
    parts = []
    for _ in range(n):
        roll = rng.random()
        word = rng.choice(WORDS)
        if roll < 0.05:
            parts.append(f"`{word}::{rng.choice(WORDS)}`")
        elif roll < 0.08:
            parts.append(f"**{word}**")
        elif roll < 0.09:
            parts.append(f"[{word}]({rng.choice(siblings)})")
        elif roll < 0.093:
            parts.append(f"[{word}]({rng.choice(siblings)}#remarks)")  # every page has one
        elif roll < 0.094:
            parts.append(f"[{word}](https://github.com/microsoft/{word})")
        else:
            parts.append(word)
    return " ".join(parts).capitalize() + "."


def _front(rng: random.Random, title: str, keywords: list[str]) -> str:
    f1 = ", ".join(f'"{k}"' for k in keywords)
    help_ = ", ".join(f'"{keywords[0]} [C++], {k}"' for k in keywords)
    return (
        f'---\ntitle: "{title}"\ndescription: "Learn more about: {title}"\n'
        f"ms.date: {rng.randint(1, 12)}/{rng.randint(1, 28)}/20{rng.randint(16, 26)}\n"
        f"f1_keywords: [{f1}]\nhelpviewer_keywords: [{help_}]\n"
        + (f"ms.assetid: {rng.getrandbits(128):032x}\n" if rng.random() < 0.35 else "")
        + "---\n"
    )


def _error_page(rng: random.Random, code: str, siblings: list[str]) -> str:
    """A compiler error or warning: short, one message, remarks and an example."""
    lines = [
        _front(rng, f"Compiler Error {code}", [code]),
        f"# Compiler Error {code}\n\n> {_words(rng, 8)}\n\n## Remarks\n",
        _prose(rng, rng.randint(10, 45), siblings) + "\n",
    ]
    if rng.random() < 0.3:
        lines.append(f"- {_words(rng, 12)}.\n\n- {_words(rng, 10)}.\n")
    lines.append(
        f"## Example\n\nThe following example generates {code}:\n\n```cpp\n// {code}.cpp\n"
        f"// compile with: /c\n#include <stdio.h>\nint main() {{\n   "
        f'{rng.choice(WORDS)}("{_words(rng, 3)}");   // {code}\n}}\n```\n'
    )
    return "\n".join(lines)


def _conceptual(rng: random.Random, title: str, siblings: list[str]) -> str:
    """An article: sections of prose, notes, a list, an include, sometimes a table."""
    headings = [
        f"{_words(rng, 3).capitalize()}" for _ in range(rng.choice((1, 1, 2, 2, 3, 4, 6, 9)))
    ]
    keywords = [
        title.replace(" ", "_"),
        *(_words(rng, 2) for _ in range(rng.choice((0, 0, 1, 3, 8)))),
    ]
    out = [_front(rng, title, keywords), f"# {title}\n"]
    out.append(f"## Remarks\n\n{_prose(rng, rng.randint(15, 60), siblings)}\n")
    if rng.random() < 0.3:
        out.append(f"> [!NOTE]\n> {_words(rng, 25)}.\n")
    if rng.random() < 0.05:
        out.append("[!INCLUDE[note](../../includes/vs-note.md)]\n")
    for number, heading in enumerate(headings):
        out.append(f"## {heading}\n\n{_prose(rng, rng.randint(15, 110), siblings)}\n")
        if rng.random() < 0.5:
            out.append(f"```cpp\n// {heading}\nint {rng.choice(WORDS)} = {number};\n```\n")
        if rng.random() < 0.2:
            rows = "".join(
                f"|`{rng.choice(WORDS)}`|{_words(rng, 8)} [{rng.choice(WORDS)}]"
                f"({rng.choice(siblings)})|\n"
                for _ in range(rng.randint(3, 14))
            )
            out.append(f"|Option|Description|\n|---|---|\n{rows}")
        if rng.random() < 0.1:
            out.append(f"For details, see [{_words(rng, 2)}]({rng.choice(SITE_LINKS)}).\n")
    jumps = " | ".join(f"[{h}](#{h.lower().replace(' ', '-')})" for h in headings[:3])
    out.append(f"In this article: {jumps}\n\n## See also\n")
    out.extend(f"[{_words(rng, 3)}]({rng.choice(siblings)})<br/>" for _ in range(rng.randint(1, 3)))
    return "\n".join(out) + "\n"


def _class_page(rng: random.Random, name: str, members: int, siblings: list[str]) -> str:
    """A class reference: member tables linking `#member`, a section per member."""
    names = [
        f"{rng.choice(WORDS).capitalize()}{rng.choice(WORDS).capitalize()}{i}"
        for i in range(members)
    ]
    out = [
        _front(rng, f"{name} Class", [name, *(f"AFX/{name}::{m}" for m in names)]),
        f"# `{name}` Class\n\n>[!NOTE]\n> {_words(rng, 20)}.\n\n{_words(rng, 20).capitalize()}.\n",
        f"## Syntax\n\n```\nclass {name} : public CObject\n```\n\n## Members\n\n"
        "### Public Methods\n\n|Name|Description|\n|----------|-----------------|",
    ]
    out.extend(f"|[`{name}::{m}`](#{m.lower()})|{_words(rng, 10).capitalize()}.|" for m in names)
    out.append(f"\n## Remarks\n\n{_prose(rng, 80, siblings)}\n")
    for member in names:
        out.append(
            f'## <a name="{member.lower()}"></a> `{name}::{member}`\n\n'
            f"{_words(rng, 12).capitalize()}.\n\n```\nvirtual BOOL {member}(\n    UINT nFlags,\n"
            f"    CPoint point);\n```\n\n### Parameters\n\n*nFlags*<br/>\n{_words(rng, 18)}.\n\n"
            f"*point*<br/>\n{_words(rng, 14)}.\n\n### Return value\n\n"
            f"Nonzero if successful; otherwise 0. See [{member}]("
            f"{rng.choice(SITE_LINKS) if rng.random() < 0.4 else '#' + member.lower()}).\n\n"
            f"### Remarks\n\n{_prose(rng, rng.randint(20, 70), siblings)}\n"
        )
    out.append(f"## See also\n\n[Hierarchy Chart]({rng.choice(siblings)})\n")
    return "\n".join(out) + "\n"


def _toc(names: list[str], titles: dict[str, str]) -> str:
    """A folder's toc.yml: an overview entry, then groups of ten under nested `items`."""
    out = ["items:"]
    for start in range(0, len(names), 10):
        group = names[start : start + 10]
        out.append(f"- name: {titles[group[0]]}\n  expanded: false\n  items:")
        out.extend(f"    - name: {titles[n]}\n      href: {n}" for n in group)
    return "\n".join(out) + "\n"


def generate_reference_docset(out: Path, pages: int, seed: int = 28) -> int:
    """Write about `pages` pages under `out/docs` (plus the policy, docfx.json, the redirect
    file and the TOCs); returns the page count."""
    rng = random.Random(seed)
    root = out / "docs"
    folders = [f"{area}/part-{i}" for area in AREAS for i in range(FOLDERS_PER_AREA)]
    folders += [f"error-messages/{name}" for name in ERROR_FOLDERS]
    # a quarter of the pages are compiler errors and warnings, as on the real docset
    error_pages = max(1, pages * 26 // 100 // len(ERROR_FOLDERS))
    other_pages = max(
        1, (pages - error_pages * len(ERROR_FOLDERS)) // (len(folders) - len(ERROR_FOLDERS))
    )
    count = 0
    redirects = []

    def page_names(folder: str) -> list[str]:
        count = error_pages if folder.startswith("error-messages/") else other_pages
        return [f"topic-{folder.replace('/', '-')}-{i}.md" for i in range(count)]

    for place, folder in enumerate(folders):
        (root / folder).mkdir(parents=True, exist_ok=True)
        errors = folder.startswith("error-messages/")
        names = page_names(folder)
        other = folders[(place + 1) % len(folders)]
        siblings = [*names[:40], "../../overview.md", f"../../{other}/{page_names(other)[1]}"]
        titles = {}
        for number, name in enumerate(names):
            if errors:
                code = f"C{2000 + count}"
                titles[name] = f"Compiler Error {code}"
                text = _error_page(rng, code, siblings)
            elif rng.random() < 0.07:  # class references: 7% of the other pages, the long tail
                members = min(int(rng.paretovariate(1.3) * 8), 400)
                titles[name] = f"C{rng.choice(WORDS).capitalize()}{number} Class"
                text = _class_page(rng, titles[name].split()[0], members, siblings)
            else:
                titles[name] = _words(rng, 4).capitalize()
                text = _conceptual(rng, titles[name], siblings)
            (root / folder / name).write_text(text)
            count += 1
        (root / folder / "toc.yml").write_text(_toc(names, titles))
        redirects.append(
            {
                "source_path": f"docs/{folder}/old-{names[0]}",
                "redirect_url": f"/cpp/{folder}/{names[0][:-3]}",
                "redirect_document_id": False,
            }
        )
    (root / "includes").mkdir(exist_ok=True)
    (root / "includes" / "vs-note.md").write_text(f"> [!NOTE]\n> {_words(rng, 20)}.\n")
    (root / "overview.md").write_text(
        '---\ntitle: "Overview"\ndescription: "Overview"\nms.date: 1/1/2026\n---\n# Overview\n\n## Remarks\n\n'
        + "\n".join(f"- [{f}]({f}/{page_names(f)[0]})" for f in folders)
        + "\n"
    )
    (root / "toc.yml").write_text(
        "items:\n- name: Overview\n  href: overview.md\n"
        + "".join(f"- name: {f}\n  href: {f}/toc.yml\n" for f in folders)
    )
    (root / "docfx.json").write_text(
        json.dumps({"build": {"content": [{"files": ["**/*.md", "**/*.yml"], "src": "."}]}})
    )
    (out / ".openpublishing.redirection.json").write_text(
        json.dumps({"redirections": redirects}, indent=2)
    )
    (out / "kbkit.yaml").write_text(POLICY)
    return count + 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--pages", type=int, default=10_000)
    args = parser.parse_args(argv)
    print(generate_reference_docset(args.out, args.pages), "pages")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
