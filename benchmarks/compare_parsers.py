"""`python -m benchmarks.compare_parsers`: native CommonMark parsers against markdown-it-py.

Not part of `make bench` (it needs the candidate wheels, which are not dependencies): install
them first (`pip install pyromark markdown-it-pyrs cmarkgfm comrak`). For each candidate it
prints the full-parse speed with source positions (MB/s, one process, best of `--repeat`) on
a synthetic tree and the real corpus, and, for the candidates that report a position per
block and per link, how many pages differ from markdown-it-py (kbkit's reference parse) in
headings, fenced code blocks and links (target, line, image) on the corpus, the synthetic
tree and fuzzed pages (the fragments of tests/pages/test_page_fuzz.py).
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from benchmarks.gen_tree import generate
from kbkit.pages import page
from kbkit.pages.frontmatter import split_frontmatter
from kbkit.pages.link import make_link

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "infermatrix-knowledge"

FUZZ_FRAGMENTS = (
    "---", "\n", "\n\n", "```", "````", "~~~", "    ", "`", "[", "]", "(", ")", "<", ">", "![",
    "](x.md", ' "t")', "[r]: ", "#", "## ", "- ", "1. ", "* ", "|", "---|---", "<!-- c -->",
    "\\", "\t", "中文", "a", "b.md", " ", "[[P]]", "_", "*", "&amp;", "%20",
)  # fmt: skip

View = tuple[tuple[Any, ...], ...]


def _bodies(texts: Iterable[str]) -> list[tuple[str, int]]:
    """(body, first line of the body) of each page, line endings normalized as parse_page."""
    out = []
    for text in texts:
        text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
        front = split_frontmatter(text)
        out.append((text[front.body_offset :], 1 + text.count("\n", 0, front.body_offset)))
    return out


def reference_view(body: str, first: int) -> View:
    """What kbkit keeps from markdown-it-py: headings, fenced blocks, links."""
    headings, links, code = page._parse_body_markdown_it(body, first)[:3]
    return (
        tuple(("h", h.level, h.line) for h in headings)
        + tuple(("f", c.first_line, c.info, c.text) for c in code if c.fenced)
        + tuple(("l", link.target, link.line, link.image) for link in links)
    )


def pyromark_view(body: str, first: int) -> View:
    """The same view from pulldown-cmark's events (byte ranges)."""
    import pyromark

    options = pyromark.Options.ENABLE_TABLES | pyromark.Options.ENABLE_FOOTNOTES
    data = body.encode()
    heads: list[tuple[Any, ...]] = []
    fences: list[tuple[Any, ...]] = []
    links: list[tuple[Any, ...]] = []
    fence: list[Any] | None = None
    for event, span in pyromark.events_with_range(body, options=options):
        line = first + data.count(b"\n", 0, span["start"])
        if isinstance(event, dict) and "Start" in event:
            start = event["Start"]
            if isinstance(start, dict):
                if "Heading" in start:
                    heads.append(("h", int(start["Heading"]["level"][1]), line))
                elif "CodeBlock" in start and start["CodeBlock"] != "Indented":
                    fence = [line + 1, _raw_info(data, span["start"]), ""]
                elif "Link" in start or "Image" in start:
                    info = start.get("Link") or start["Image"]
                    link = make_link(info["dest_url"], line, "Image" in start)
                    links.append(("l", link.target, link.line, link.image))
        elif fence is not None and isinstance(event, dict) and "Text" in event:
            fence[2] += event["Text"]
        elif fence is not None and isinstance(event, dict) and "End" in event:
            fences.append(("f", *fence))
            fence = None
    return tuple(heads) + tuple(fences) + tuple(links)


def _raw_info(data: bytes, start: int) -> str:
    """A fence's info string as written (markdown-it keeps it raw, pulldown-cmark unescaped)."""
    end = data.find(b"\n", start)
    opening = data[start : len(data) if end < 0 else end].decode().lstrip(" ")
    return opening.lstrip(opening[0]).strip() if opening else ""


def pyrs_view(body: str, first: int) -> View:
    """The same view from markdown-it.rs's tree (byte ranges)."""
    import markdown_it_pyrs

    md = _pyrs()
    data = body.encode()
    heads: list[tuple[Any, ...]] = []
    fences: list[tuple[Any, ...]] = []
    links: list[tuple[Any, ...]] = []
    for node in md.tree(body).walk():
        if not isinstance(node, markdown_it_pyrs.Node) or node.srcmap is None:
            continue
        line = first + data.count(b"\n", 0, node.srcmap[0])
        if node.name == "heading":
            heads.append(("h", node.meta.get("level"), line))
        elif node.name == "fence":
            info, content = str(node.meta.get("info", "")).strip(), node.meta.get("content", "")
            fences.append(("f", line + 1, info, content))
        elif node.name in ("link", "image"):
            href = str(node.meta.get("url", ""))
            link = make_link(href, line, node.name == "image")
            links.append(("l", link.target, link.line, link.image))
    return tuple(heads) + tuple(fences) + tuple(links)


def _pyrs() -> Any:
    import markdown_it_pyrs

    global _PYRS
    if _PYRS is None:
        _PYRS = markdown_it_pyrs.MarkdownIt("commonmark").enable("table")
    return _PYRS


_PYRS: Any = None


def _full_parsers() -> dict[str, Callable[[str], object]]:
    """Each candidate's full parse with source positions (what kbkit would need)."""
    parsers: dict[str, Callable[[str], object]] = {}
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    parsers["markdown-it-py"] = md.parse
    try:
        import pyromark

        opts = pyromark.Options.ENABLE_TABLES
        parsers["pyromark"] = lambda s: list(pyromark.events_with_range(s, options=opts))
    except ImportError:
        pass
    try:
        _pyrs()
        parsers["markdown-it-pyrs"] = lambda s: _pyrs().tree(s)
    except ImportError:
        pass
    try:
        import cmarkgfm
        from cmarkgfm.cmark import Options as CmarkOptions

        opt = CmarkOptions.CMARK_OPT_SOURCEPOS
        parsers["cmarkgfm"] = lambda s: cmarkgfm.markdown_to_html_with_extensions(
            s, options=opt, extensions=["table"]
        )
    except ImportError:
        pass
    try:
        import comrak

        ext = comrak.ExtensionOptions()
        ext.table = True
        render = comrak.RenderOptions()
        render.sourcepos = True
        parsers["comrak"] = lambda s: comrak.render_markdown(
            s, extension_options=ext, render_options=render
        )
    except ImportError:
        pass
    return parsers


def _speed(bodies: list[str], run: Callable[[str], object], repeat: int) -> float:
    size = sum(len(b.encode()) for b in bodies)
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for body in bodies:
            run(body)
        best = min(best, time.process_time() - start)
    return size / best / 1e6


def _fuzz(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [
        "".join(rng.choice(FUZZ_FRAGMENTS) for _ in range(rng.randint(1, 60))) for _ in range(count)
    ]


def _differences(
    name: str, bodies: list[tuple[str, int]], view: Callable[[str, int], View], show: int
) -> int:
    differ = 0
    for body, first in bodies:
        want = reference_view(body, first)
        try:
            got = view(body, first)
        except BaseException as exc:  # noqa: BLE001 - a Rust panic is a BaseException
            if isinstance(exc, KeyboardInterrupt):
                raise
            got = (("panic", str(exc)),)
        if want != got:
            differ += 1
            if differ <= show:
                print(f"--- {name}: {body!r}\n  markdown-it: {want}\n  candidate:   {got}")
    return differ


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.compare_parsers")
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--fuzz", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--show", type=int, default=0, help="print this many differing pages")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp), args.pages)
        synthetic = _bodies(p.read_text("utf-8") for p in sorted(Path(tmp).rglob("*.md")))
    trees = {"synthetic": synthetic}
    if CORPUS.is_dir():
        trees["corpus"] = _bodies(p.read_text("utf-8") for p in sorted(CORPUS.rglob("*.md")))
    trees["fuzz"] = [(body, 1) for body in _fuzz(args.fuzz, 1)]
    print("speed, full parse with source positions (MB/s, best of", args.repeat, "runs)")
    for name, run in _full_parsers().items():
        figures = [
            f"{tree} {_speed([b for b, _ in bodies], run, args.repeat):6.1f}"
            for tree, bodies in trees.items()
            if tree != "fuzz"
        ]
        print(f"  {name:18} " + "  ".join(figures))
    print("pages that differ from markdown-it-py (headings, fences, links with lines)")
    views = {"pyromark": pyromark_view, "markdown-it-pyrs": pyrs_view}
    for name, view in views.items():
        figures = [
            f"{tree} {_differences(name, bodies, view, args.show)}/{len(bodies)}"
            for tree, bodies in trees.items()
        ]
        print(f"  {name:18} " + "  ".join(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
