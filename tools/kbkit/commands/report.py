"""`kb report`: tree health, intake funnel, curator batches and lessons on one page."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kbkit.infra.errors import KbkitError
from kbkit.report.window import DEFAULT_DAYS


class ReportWriteError(KbkitError):
    """The report file cannot be written (disk full, permissions): exit code 4."""

    exit_code = 4


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kb report",
        description="One report of the knowledge loop: tree health, the intake funnel, "
        "curator batches and publication, lessons. Every figure names the file it comes from.",
    )
    parser.add_argument(
        "--repo",
        metavar="DIR",
        default=None,
        help="the repository that holds knowledge/ (default: current directory)",
    )
    parser.add_argument(
        "--intake",
        metavar="DIR",
        default=None,
        help="the ledger folder (default: DIR/intake or $KBKIT_INTAKE_ROOT)",
    )
    parser.add_argument(
        "--state",
        metavar="DIR",
        default=None,
        help="distill's state folder with artifacts/ (default: DIR/state or $KBKIT_STATE_ROOT)",
    )
    parser.add_argument(
        "--lessons",
        metavar="DIR",
        default=None,
        help="the lessons store (default: the ledger folder's lessons/); lessons kept in "
        "another repository: that repository's intake/lessons",
    )
    parser.add_argument(
        "--since",
        metavar="YYYY-MM-DD",
        default=None,
        help=f"first day of the window (default: {DEFAULT_DAYS - 1} days before --until)",
    )
    parser.add_argument(
        "--until",
        metavar="YYYY-MM-DD",
        default=None,
        help="last day of the window (default: today in UTC, or the date of KBKIT_NOW)",
    )
    parser.add_argument(
        "--format",
        choices=("html", "json", "markdown"),
        default=None,
        help="output format (default: html with --out, else markdown)",
    )
    parser.add_argument(
        "--out",
        metavar="FILE",
        default=None,
        help="write the report to FILE instead of standard output",
    )
    parser.add_argument(
        "--all",
        dest="everything",
        action="store_true",
        help="list every event, proposal, batch and scope of the window (lists are cut "
        "otherwise, and say how many they leave out)",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="parse every page again instead of reusing .kbkit-cache/",
    )
    return parser


def _shown_from(repo: Path, *folders: Path | None) -> Path | None:
    """The folder the page names files from: the repository, or the folder that holds it and
    every ledger folder given outside it (None when that would be the file system's root)."""
    import os

    paths = [repo.resolve(), *(f.resolve() for f in folders if f is not None)]
    common = Path(os.path.commonpath(paths))
    if common == repo.resolve():
        return None
    return common if common.parent != common else None


def main(argv: list[str] | None = None) -> int:
    """Collect every section once and render it in the chosen format."""
    from kbkit.infra.paths import intake_root, repo_root, state_root
    from kbkit.report.assemble import Sources, build
    from kbkit.report.window import make_window

    args = build_parser().parse_args(argv)
    window = make_window(args.since, args.until)
    repo = repo_root(args.repo)
    intake = Path(args.intake) if args.intake else intake_root(repo)
    state = Path(args.state) if args.state else state_root(repo)
    lessons = Path(args.lessons) if args.lessons else None
    sources = Sources(repo, intake, state, shown_from=_shown_from(repo, intake, state, lessons),
                      lessons=lessons)  # fmt: skip
    fmt = args.format or ("html" if args.out else "markdown")
    report = build(sources, window, use_cache=not args.no_cache, everything=args.everything)
    if fmt == "html":
        from kbkit.report.html import FileLinks
        from kbkit.report.page import render_html

        out_dir = Path(args.out).resolve().parent if args.out else None
        base = (sources.shown_from or repo).resolve()
        text = render_html(report, FileLinks(base, out_dir) if out_dir else None)
    else:
        from kbkit.report.text import render_json, render_markdown

        text = render_json(report) if fmt == "json" else render_markdown(report)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    from kbkit.infra.jsonl import atomic_write_text

    out = Path(args.out)
    try:
        atomic_write_text(out, text)
    except OSError as exc:
        raise ReportWriteError(f"{out}: cannot write the report: {exc.strerror or exc}") from None
    print(f"kb report: wrote {out} ({len(text.encode()) // 1024 or 1} KB)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
