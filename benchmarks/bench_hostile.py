"""`kb check` on a hostile tree: a FIFO page, a page linked to `/dev/zero`, a 50 MB page, and
three pages just under the 1 MiB read limit that patterns once read in time growing with
the square of their size (minutes to hours each): HTML tags never closed (`<a id` lines), an
MDX page with a tag of 400,000 blanks and 100,000 comments never closed, and a run of
`eyJ-` (each a JWT's start); a small page whose attribute lists (`{a=a=...`, 60 pairs) a
pattern once cut every way it could (time doubling with every pair or two); and 30,000 empty
headings, whose ids Python-Markdown numbers `_1`, `_2`... (each once counted from 1). The
trees read `.mdx` pages besides `.md`, check links' anchors with Python-Markdown's heading
ids and read attribute lists (kbkit.yaml, with the taxonomy of the generated policy.yaml).

The same generated tree is checked with and without the eight files, cold (no cache) and
warm, each by the real `kb` in its own process. Targets (issue #10): at most 2 s more than the
clean tree, and a peak RSS of at most 100 MB for the whole process tree (the largest of the
`kb` process and the helpers it forks, as `getrusage(RUSAGE_CHILDREN)` reports it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.gen_tree import generate

EXTRA_SECONDS = 2.0
RSS_LIMIT_MB = 100
BIG_PAGE_BYTES = 50 * 1024 * 1024

# Runs one command and prints its exit code and the peak RSS (KiB) of its process tree: the
# wrapper's own RUSAGE_CHILDREN holds only what this one command and its children used.
_MEASURE = (
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n"
    "print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def make_tree(repo: Path, pages: int) -> Path:
    """A generated tree whose files are an hour old (not racy for the cache)."""
    generate(repo, pages)
    past = time.time() - 3600
    for folder, _, files in os.walk(repo):
        for name in files:
            os.utime(os.path.join(folder, name), (past, past))
    return repo


def add_hostile_pages(repo: Path) -> list[str]:
    """A FIFO, a link to /dev/zero, a 50 MB page and the five slow shapes, each
    registered in general/_index.md."""
    folder = repo / "knowledge" / "general"
    os.mkfifo(folder / "fifo.md")
    (folder / "zero.md").symlink_to("/dev/zero")
    with open(folder / "huge.md", "wb") as handle:
        line = b"A line of a page nobody should read, 10.1.2.3 and [a](gone.md).\n"
        handle.write(line * (BIG_PAGE_BYTES // len(line) + 1))
    (folder / "tags.md").write_bytes(b"# Tags\n\n" + b"<a id\n" * (1_000_000 // 6))
    jsx = b"# JSX\n\n<Tabs" + b" " * 400_000 + b"x\n\n" + b"{/*" * 100_000 + b"\n"
    (folder / "jsx.mdx").write_bytes(jsx)
    (folder / "tokens.md").write_bytes(b"# Tokens\n\n" + b"eyJ-" * 240_000 + b"\n")
    pairs = b"{" + b"a=" * 60
    (folder / "attrs.md").write_bytes(b"# Attributes " + pairs + b"\n\n" + pairs + b"\n")
    (folder / "headings.md").write_bytes(b"# Headings\n\n" + b"# \n" * 30_000)
    index = folder / "_index.md"
    names = ["fifo.md", "zero.md", "huge.md", "tags.md", "jsx.mdx", "tokens.md", "attrs.md"]
    names.append("headings.md")
    with open(index, "a", encoding="utf-8") as handle:
        handle.write("".join(f"- [{n}]({n})\n" for n in names))
        handle.write("- [an anchor](tags.md#no-such-anchor)\n")  # its HTML ids are then read
    return [f"knowledge/general/{n}" for n in names]


def run_kb(repo: Path, kb: list[str], timeout: float = 120.0) -> tuple[float, int, int]:
    """Wall seconds, exit code and peak RSS (MB) of one `kb check` and its children."""
    start = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _MEASURE,
            *kb,
            "check",
            "--repo",
            str(repo),
            "--today",
            "2026-11-30",
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )
    elapsed = time.perf_counter() - start
    code, rss_kib = map(int, done.stdout.split())
    return elapsed, code, rss_kib // 1024


def measure(base: Path, pages: int, kb: list[str]) -> dict[str, tuple[float, float, int]]:
    """(clean seconds, hostile seconds, hostile peak RSS MB) for a cold and a warm run."""
    clean = make_tree(base / "clean", pages)
    taxonomy = (clean / "knowledge" / "policy.yaml").read_text("utf-8")
    policy = "version: 1\npages:\n  extensions: [.md, .mdx]\n"
    policy += "links:\n  anchors: true\n  attr_list: true\n  slugs: python-markdown\n" + taxonomy
    (clean / "kbkit.yaml").write_text(policy, "utf-8")
    hostile = base / "hostile"
    shutil.copytree(clean, hostile, symlinks=True)
    add_hostile_pages(hostile)
    (clean / "knowledge" / "general" / "_index.md").write_bytes(
        (hostile / "knowledge" / "general" / "_index.md").read_bytes()
    )  # the same index: the clean tree then reports the eight as broken links, not as pages
    figures = {}
    for mode in ("cold", "warm"):
        if mode == "cold":
            for repo in (clean, hostile):
                shutil.rmtree(repo / ".kbkit-cache", ignore_errors=True)
        clean_s, _, _ = run_kb(clean, kb)
        hostile_s, code, rss = run_kb(hostile, kb)
        if code != 1:
            raise RuntimeError(f"kb check on the hostile tree exited {code}, expected 1")
        figures[mode] = (clean_s, hostile_s, rss)
    return figures


def main(argv: list[str] | None = None) -> int:
    pages = 2000
    kb = [sys.executable, "-m", "kbkit"]
    with tempfile.TemporaryDirectory() as folder:
        figures = measure(Path(folder), pages, kb)
    ok = True
    print(
        f"| {pages} pages | clean | + FIFO, /dev/zero link, 50 MB page, 5 slow shapes | peak RSS |"
    )
    print("|---|---|---|---|")
    for mode, (clean_s, hostile_s, rss) in figures.items():
        ok &= hostile_s - clean_s <= EXTRA_SECONDS and rss <= RSS_LIMIT_MB
        print(f"| {mode} | {clean_s:.3f} s | {hostile_s:.3f} s | {rss} MB |")
    print(f"targets: at most {EXTRA_SECONDS} s more, at most {RSS_LIMIT_MB} MB: {ok}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
