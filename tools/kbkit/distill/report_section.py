"""The day's `kb report --format markdown` for the PR body and the shadow artifact (#16).

The window is the PR's day (since = until = the day branch's day): the batches and intake
figures of the day the PR carries; tree health is the work clone's tree, i.e. the tree the
PR would merge. Built at publication time, so the batch being published already shows in
the batches table while its own rows are still pending (they are marked after it).
"""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

from kbkit.infra.charset import visible

WHY_CHARS = 300  # the one line that says why the report could not be built


def report_section(repo: Path, intake_dir: Path, state_dir: Path, day: str) -> str:
    """The markdown report of `day`, or one line saying why it could not be built: a report
    failure never fails the publication."""
    try:
        from kbkit.report.assemble import Sources, build
        from kbkit.report.text import render_markdown
        from kbkit.report.window import Window

        when = date.fromisoformat(day)
        # name the ledgers from the folder that holds them both (the repository by default),
        # not by absolute path: the body is read on GitHub
        shown = Path(os.path.commonpath([intake_dir.resolve(), state_dir.resolve()]))
        sources = Sources(repo, intake_dir, state_dir, shown_from=shown)
        return render_markdown(build(sources, Window(when, when)))
    except Exception as exc:  # any failure, a kbkit bug too: reported in the body, never raised
        why = visible(" ".join(f"{type(exc).__name__}: {exc}".split()))[:WHY_CHARS]
        why = why.replace("`", "'")  # inert inside the code span
        return f"## kbkit report\n\nThe report could not be built: `{why}`\n"
