"""A generated DocFX / Learn-shaped docset (issue #28's "speed on real pages"), for the check
bench: the shape of MicrosoftDocs/windows-powershell-docs, whose 14k pages (94 MB) are what
makes a real docset cost more than the synthetic trees.

Module reference pages as platyPS writes them (front matter with spaced keys and URL values,
SYNOPSIS / SYNTAX / EXAMPLES / PARAMETERS sections with a `### -Name` heading and a YAML
fence per parameter, related links as site-root URLs with `?view=`), one folder per version
of the reference with the same modules (most pages copied from version to version, a few
edited), a generated module TOC, and conceptual pages with a `toc.yml`, relative links with
fragments and an include. Every link resolves under the `docfx` profile and the policy
written beside it (`kbkit.yaml`), so the run pays for the whole rule set and reports nothing.
Pages average about 6.6 KB, as the real docset does.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from benchmarks.gen_tree import WORDS

VERSIONS = ["v2025", "v2022", "v2019", "v2016"]
VERBS = ["Get", "Set", "New", "Remove", "Add", "Enable", "Disable", "Test", "Start", "Stop"]
CMDLETS_PER_MODULE = 40
POLICY = """\
extends: docfx
knowledge_root: docs
versions: [{versions}]
links:
  url_map: {{/product/module/: [{versions}], /product/guide/: conceptual}}
  url_shared: [/product/module/]
index:
  placed: [{placed}]
"""


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _cmdlet(rng: random.Random, module: str, name: str, others: list[str], version: str) -> str:
    params = [f"{rng.choice(WORDS).capitalize()}{rng.choice(WORDS).capitalize()}" for _ in range(8)]
    front = (
        f"---\ndescription: {_words(rng, 12).capitalize()}.\n"
        f"external help file: {module}.dll-Help.xml\nModule Name: {module}\n"
        f"ms.date: 0{rng.randint(1, 9)}/{rng.randint(10, 28)}/2024\n"
        f"online version: https://learn.example.com/product/module/{module.lower()}/"
        f"{name.lower()}?view={version}&wt.mc_id=ps-gethelp\nschema: 2.0.0\ntitle: {name}\n---\n"
    )
    syntax = " ".join(f"[-{p} <String>]" for p in params)
    parts = [
        front,
        f"# {name}\n\n## SYNOPSIS\n{_words(rng, 14).capitalize()}.\n",
        f"## SYNTAX\n\n### Default (Default)\n```\n{name} {syntax} [<CommonParameters>]\n```\n",
        f"## DESCRIPTION\n\nThe **{name}** cmdlet {_words(rng, 60)}.\n",
        "## EXAMPLES\n",
    ]
    for number in range(1, rng.randint(2, 5)):
        parts.append(
            f"### Example {number}: {_words(rng, 4)}\n\n```powershell\n"
            f"PS C:\\> {name} -{params[0]} '{rng.choice(WORDS)}' | Format-List\n```\n\n"
            f"{_words(rng, 30).capitalize()}.\n"
        )
    parts.append("## PARAMETERS\n")
    for param in params:
        parts.append(
            f"### -{param}\n{_words(rng, 25).capitalize()}.\n\n```yaml\nType: String\n"
            "Parameter Sets: (All)\nAliases:\n\nRequired: False\nPosition: Named\n"
            "Default value: None\nAccept pipeline input: False\nAccept wildcard characters: "
            "False\n```\n"
        )
    parts.append(
        "### CommonParameters\nThis cmdlet supports the common parameters. For more "
        "information, see [about_CommonParameters](/product/module/core/about/"
        "about_commonparameters#parameters).\n\n## INPUTS\n\n### None\n\n## OUTPUTS\n\n"
        f"### System.Object\n\n## NOTES\n\n{_words(rng, 20).capitalize()}.\n\n## RELATED LINKS\n"
    )
    for other in rng.sample(others, 4):
        parts.append(f"[{other}]({other}.md)\n")
    parts.append(
        f"[{others[0]}](/product/module/{module.lower()}/{others[0].lower()}?view={version})\n"
    )
    return "\n".join(parts)


def _conceptual(rng: random.Random, number: int, pages: int) -> str:
    links = [f"[{_words(rng, 2)}](page-{rng.randrange(pages)}.md#overview)" for _ in range(4)]
    body = [
        f'---\ntitle: "{_words(rng, 4).capitalize()}"\nms.date: 05/01/2024\nms.topic: how-to\n---\n',
        f"# Topic {number}\n\n## Overview\n\n{_words(rng, 80)} {' '.join(links)}.\n",
        "[!INCLUDE [note](../includes/note.md)]\n",
    ]
    for section in range(rng.randint(4, 9)):
        body.append(f"## {_words(rng, 3).capitalize()} {section}\n\n{_words(rng, 90)}.\n")
        body.append(f"```powershell\nGet-Thing -Name {rng.choice(WORDS)}\n```\n")
    body.append("See [the cmdlet](/product/module/core/get-thing-0?view=v2022).\n")
    return "\n".join(body)


def generate_docset(out: Path, pages: int, seed: int = 28) -> int:
    """Write about `pages` pages of a Learn-shaped docset under `out/docs`; returns the count."""
    rng = random.Random(seed)
    root = out / "docs"
    root.mkdir(parents=True, exist_ok=True)
    per_version = int(pages * 0.92) // len(VERSIONS)
    modules = [f"Module{i}" for i in range(max(1, per_version // (CMDLETS_PER_MODULE + 1)))]
    modules[0] = "Core"
    count = 0
    first: dict[str, str] = {}
    cmdlets = {
        m: [f"{rng.choice(VERBS)}-Thing-{i}" for i in range(CMDLETS_PER_MODULE)] for m in modules
    }
    cmdlets["Core"][0] = "Get-Thing-0"
    for version in VERSIONS:
        for module in modules:
            folder = root / version / module
            (folder / "about").mkdir(parents=True, exist_ok=True)
            names = cmdlets[module]
            for name in names:
                key = f"{module}/{name}"
                if key not in first or rng.random() < 0.15:  # most pages copy the last version's
                    first[key] = _cmdlet(
                        rng, module, name, [n for n in names if n != name], version
                    )
                (folder / f"{name}.md").write_text(first[key])
                count += 1
            links = "\n".join(f"- [{n}]({n}.md)" for n in names)
            (folder / f"{module}.md").write_text(
                f"---\ntitle: {module}\n---\n# {module}\n\n{links}\n"
            )
            (folder / "about" / "about_CommonParameters.md").write_text(
                f"---\ntitle: about_CommonParameters\n---\n# about_CommonParameters\n\n## Parameters"
                f"\n\n{_words(rng, 40)} [{module}](../{module}.md)\n"
            )
            count += 2
    conceptual = root / "conceptual"
    conceptual.mkdir(parents=True, exist_ok=True)
    (root / "includes").mkdir(exist_ok=True)
    (root / "includes" / "note.md").write_text(f"> [!NOTE]\n> {_words(rng, 20)}\n")
    left = max(1, pages - count)
    toc = ["items:"]
    for number in range(left):
        (conceptual / f"page-{number}.md").write_text(_conceptual(rng, number, left))
        toc.append(f"  - name: Topic {number}\n    href: page-{number}.md")
        count += 1
    (conceptual / "toc.yml").write_text("\n".join(toc) + "\n")
    (root / "docfx.json").write_text('{"build": {"content": [{"files": ["**/*.md"]}]}}\n')
    versions = ", ".join(VERSIONS)
    placed = ", ".join(f'"{v}/**"' for v in VERSIONS)
    (out / "kbkit.yaml").write_text(POLICY.format(versions=versions, placed=placed))
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--pages", type=int, default=10_000)
    args = parser.parse_args()
    print(generate_docset(args.out, args.pages), "pages")


if __name__ == "__main__":
    main()
