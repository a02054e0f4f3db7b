"""`make stress`: the acceptance measurement of issue #38 on public docs trees, re-run.

Every folder under `$KBKIT_PUBLIC_TREES` is one exported tree (`git archive HEAD` of a
public repository, no `.git`; benchmarks/results/public-trees.md names the ones measured).
Each is copied to a temporary folder and measured as a stranger would: `git init`, `kb init`
alone, then `kb check --format json`: the generator kb init chose, the findings by rule,
five defects injected the way the tree writes links (a broken relative link, a missing
heading anchor, a page no navigation lists, invalid front matter, an AWS key pair) and how
many of them the check reports, and the cold check (no cache) against the floor (a bare
interpreter's start plus reading the pages and their front matter), median of three runs.
Without `$KBKIT_PUBLIC_TREES` it says so and exits 0. Precision is not measured here: it
takes a person reading the findings.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import yaml

KB = [sys.executable, "-m", "kbkit"]
ENV_NAME = "KBKIT_PUBLIC_TREES"
GIT_ENV = {"GIT_AUTHOR_NAME": "kbkit", "GIT_AUTHOR_EMAIL": "kbkit@example.org"}
GIT_ENV |= {"GIT_COMMITTER_NAME": "kbkit", "GIT_COMMITTER_EMAIL": "kbkit@example.org"}
LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)")
WIKILINK = re.compile(r"\[\[([^\]|#\n]+)(?:#[^\]|\n]*)?(?:\|[^\]\n]*)?\]\]")
KEY_ID = "AKIAQ3EGRKZ7XJ4MNP2W"  # made up: no such key exists
SECRET = "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"
FLOOR = """
import sys, yaml
from pathlib import Path
suffixes = tuple(sys.argv[2].split(","))  # the pages kbkit reads (`pages.extensions`)
for path in sorted(p for p in Path(sys.argv[1]).rglob("*") if p.name.endswith(suffixes)):
    text = path.read_text("utf-8", errors="replace")
    if text.startswith("---\\n"):
        end = text.find("\\n---\\n", 4)
        if end > 0:
            try:
                yaml.load(text[4:end], Loader=yaml.CSafeLoader)
            except yaml.YAMLError:
                pass
"""


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def findings(repo: Path) -> list[dict[str, object]]:
    done = run([*KB, "check", "--format", "json"], repo)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"kb check failed in {repo}: {done.stderr[-500:]}")
    rows: list[dict[str, object]] = json.loads(done.stdout)["findings"]
    return rows


def chosen(repo: Path) -> tuple[str, str]:
    """The generator line kb init wrote into the policy's header, and the knowledge root."""
    policy = repo / "kbkit.yaml"
    if not policy.exists():
        return "none (a new knowledge/ tree)", "knowledge"
    text = policy.read_text("utf-8")
    found = re.search(r"`kb init`: (.*?) builds", text)
    root = (yaml.safe_load(text) or {}).get("knowledge_root", ".")
    return (found[1] if found else "?"), str(root)


def variant(target: str) -> str:
    """The link with its last name changed to one that names nothing."""
    path = target.partition("#")[0]
    head, _, last = path.rstrip("/").rpartition("/")
    stem, dot, suffix = last.partition(".")
    lead = f"{head}/" if head else ("/" if path.startswith("/") else "")
    return f"{lead}{stem}-gone{dot}{suffix}" + ("/" if path.endswith("/") else "")


def page_suffixes(policy: str) -> tuple[str, ...]:
    """The page suffixes the policy reads (`pages.extensions`; `.md` unless it says)."""
    data = (yaml.safe_load(policy) or {}) if policy else {}
    found = (data.get("pages") or {}).get("extensions") if isinstance(data, dict) else None
    return tuple(map(str, found)) if found else (".md",)


def published(top: Path, policy: str) -> list[Path]:
    """The `.md` pages under the knowledge root that the site publishes (the policy's
    `unpublished` globs left out): a defect is injected where readers would meet it."""
    import pathspec

    globs = (yaml.safe_load(policy) or {}).get("unpublished") or [] if policy else []
    spec = pathspec.GitIgnoreSpec.from_lines(map(str, globs))
    return [
        p
        for p in sorted(top.rglob("*"))
        if p.name.endswith(page_suffixes(policy))
        and not spec.match_file(p.relative_to(top).as_posix())
    ]


def pick_page(top: Path, wiki: bool, policy: str = "") -> tuple[Path, str] | None:
    """The page with the most plain relative links (the way the tree writes them), and one."""
    best: tuple[int, Path, str] | None = None
    pages: list[Path] = []
    for page in published(top, policy):
        if any(part.startswith((".", "_")) for part in page.relative_to(top).parts):
            continue
        text = page.read_text("utf-8", errors="replace")
        pattern = WIKILINK if wiki else LINK
        targets = [
            t
            for t in (m.group(1) for m in pattern.finditer(text))
            if wiki
            or not re.match(r"^[a-z]+:|^#|^<|^//|.*(\{\{|\{%|#)", t)
            # a page's link: a file of another kind (an image, `sample.rb`) has no headings
            and not re.search(r"\.(?!(?:md|mdx|markdown|html?)$)[A-Za-z0-9]+$", t)
            and t.rstrip("/").rpartition("/")[2] not in ("", ".", "..")
        ]
        relative = [t for t in targets if not t.startswith("/")] or targets
        score = len(relative) + 100 * (relative is not targets)
        if relative and (best is None or score > best[0]):
            best = (score, page, relative[0])
        pages.append(page)
    if best is None and len(pages) >= 2:  # no relative link to copy: link a page by its name
        return pages[0], os.path.relpath(pages[1], pages[0].parent)
    return None if best is None else (best[1], best[2])


def inject(repo: Path, root: str) -> dict[str, bool | None]:
    """Inject the five defects, check, say which were reported; the tree is reset after."""
    top = repo / root
    policy = (repo / "kbkit.yaml").read_text("utf-8") if (repo / "kbkit.yaml").exists() else ""
    wiki = "wikilinks: true" in policy
    picked = pick_page(top, wiki, policy)
    if picked is None:
        return {}
    page, target = picked
    before = {json.dumps(row, sort_keys=True) for row in findings(repo)}
    text = page.read_text("utf-8")
    anchored = f"{target.partition('#')[0]}#no-such-heading-kbkit"
    broken, anchor = (
        (f"[[{variant(target)}]]", f"[[{anchored}]]")
        if wiki
        else (f"[gone]({variant(target)})", f"[anchor]({anchored})")
    )
    page.write_text(
        f"{text}\n\nSee {broken} and {anchor}.\n\n```\naws_access_key_id = {KEY_ID}\n"
        f"aws_secret_access_key = {SECRET}\n```\n",
        "utf-8",
    )
    orphan = page.with_name("orphan-kbkit.md")
    head = text.split("\n---\n", 1)[0] + "\n---\n" if text.startswith("---\n") else ""
    head = re.sub(r"(?m)^(permalink|slug|url|id|aliases|redirect_from|uid):.*\n", "", head)
    orphan.write_text(f"{head}\n# Orphan\n\nA page no navigation lists.\n", "utf-8")
    reads_front_matter = "extends: mdbook" not in policy
    other = next((p for p in published(top, policy) if p not in (page, orphan)), None)
    if other is not None and reads_front_matter:
        body = other.read_text("utf-8")
        if not body.startswith("---\n"):
            body = "---\ntitle: Page\n---\n" + body
        other.write_text(body.replace("---\n", "---\ntitle: [unclosed\n", 1), "utf-8")
    new = [row for row in findings(repo) if json.dumps(row, sort_keys=True) not in before]
    rel = page.relative_to(repo).as_posix()
    caught: dict[str, bool | None] = {
        "link": any(variant(target) in str(row["message"]) for row in new),
        "anchor": any("no-such-heading-kbkit" in str(row["message"]) for row in new),
        "nav": any(row["path"] == orphan.relative_to(repo).as_posix() for row in new),
        "front matter": None,
        "aws": any(row["path"] == rel and row["rule"] == "tree/secret-token" for row in new),
    }
    if other is not None and reads_front_matter:
        other_rel = other.relative_to(repo).as_posix()
        caught["front matter"] = any(
            row["path"] == other_rel and "frontmatter" in str(row["rule"]) for row in new
        )
    run(["git", "checkout", "--", "."], repo)
    run(["git", "clean", "-fdq"], repo)
    return caught


def cold_and_floor(repo: Path, root: str, runs: int = 3) -> tuple[float, float]:
    """Median seconds of a cold `kb check` (no cache) and of the floor."""
    colds, floors = [], []
    for _ in range(runs):
        shutil.rmtree(repo / ".kbkit-cache", ignore_errors=True)
        start = time.perf_counter()
        run([*KB, "check"], repo)
        colds.append(time.perf_counter() - start)
        start = time.perf_counter()
        policy = (repo / "kbkit.yaml").read_text("utf-8") if (repo / "kbkit.yaml").exists() else ""
        suffixes = ",".join(page_suffixes(policy))
        subprocess.run([sys.executable, "-c", FLOOR, str(repo / root), suffixes], check=True)
        floors.append(time.perf_counter() - start)
    return statistics.median(colds), statistics.median(floors)


def measure(export: Path, work: Path) -> str:
    """One tree's row of the results table (precision left for a person)."""
    repo = work / export.name
    shutil.copytree(export, repo, symlinks=True)
    run(["git", "init", "-q"], repo)
    run(["git", "add", "-A"], repo)
    run(["git", "commit", "-qm", "tree", "--no-verify"], repo)
    said = run([*KB, "init"], repo)
    run(["git", "add", "-A"], repo)
    run(["git", "commit", "-qm", "kb init", "--no-verify"], repo)
    generator, root = chosen(repo)
    rows = findings(repo)
    rules = Counter(str(row["rule"]) for row in rows)
    by_rule = ", ".join(f"{n} {rule}" for rule, n in rules.most_common()) or "none"
    caught = inject(repo, root)
    counted = [v for v in caught.values() if v is not None]
    missed = ", ".join(name for name, hit in caught.items() if hit is False) or "none"
    cold, floor = cold_and_floor(repo, root)
    pages = re.search(r"\((.*?), profile", said.stdout)
    return (
        f"| {export.name} | {generator} | {pages[1] if pages else '?'} | {len(rows)} ({by_rule}) "
        f"| {sum(counted)}/{len(counted)} (missed: {missed}) | {cold:.2f} s = "
        f"{cold / floor:.1f}x floor |"
    )


def main(argv: list[str] | None = None) -> int:
    folder = os.environ.get(ENV_NAME)
    if not folder or not Path(folder).is_dir():
        print(f"{ENV_NAME} is not set to a folder of exported trees: nothing to measure")
        return 0
    names = set(sys.argv[1:] if argv is None else argv)
    exports = [p for p in sorted(Path(folder).iterdir()) if p.is_dir()]
    exports = [p for p in exports if not names or p.name in names]
    print("| tree | generator | pages read | findings | injected caught | cold check |")
    print("| --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as work:
        for export in exports:
            try:
                print(measure(export, Path(work)), flush=True)
            except (RuntimeError, OSError, subprocess.CalledProcessError) as exc:
                print(f"| {export.name} | could not be measured: {exc} | | | | |", flush=True)
                return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
