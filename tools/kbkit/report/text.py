"""The report as JSON, and as markdown: headline figures and small tables for
`$GITHUB_STEP_SUMMARY` and a PR body."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from kbkit.infra.charset import visible

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>|~])")


def render_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"


def cell(value: object) -> str:
    """Untrusted text made inert in a markdown table cell: invisible characters shown as
    `<U+XXXX>`, markdown and HTML punctuation backslash-escaped, one line."""
    text = visible(" ".join(str(value).split())) if value is not None else "—"
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text).replace("&", "&amp;")


def table(headers: Iterable[str], rows: Iterable[Iterable[object]]) -> list[str]:
    heads = list(headers)
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    if len(lines) == 2:
        lines.append("| " + " | ".join(["(none)"] + [""] * (len(heads) - 1)) + " |")
    return lines


def render_markdown(report: dict[str, Any]) -> str:
    w, tree, intake = report["window"], report["tree"], report["intake"]
    cur, les = report["curator"], report["lessons"]
    f = tree["findings"]
    out = [
        f"## kbkit report, {w['since']} to {w['until']}",
        "",
        f"- **Tree**: {tree['pages']} pages, {f['errors']} errors, {f['warnings']} warnings, "
        f"{tree['age']['stale_pages']} stale, {tree['orphans']['count']} orphans, "
        f"{tree['links']['broken']} broken links _(from {cell(tree['source'])})_",
        f"- **Intake**: {intake['events']} events ({intake['recorded_in_window']} recorded in "
        "the window); "
        + ", ".join(f"{n} {s}" for s, n in intake["states"].items())
        + f" _(from {cell(intake['source'])})_",
        f"- **Curator**: {cur['totals']['batches']} batches, {cur['totals']['accepted']} "
        f"proposals accepted, {cur['totals']['rejected']} rejected, "
        f"{cur['totals']['published']} PRs _(from {cell(cur['source'])})_",
        f"- **Lessons**: {les['lessons']} lessons in {les['scopes']} scopes, "
        f"{les['comparison']['tasks']} closed tasks with outcome cards _(from {cell(les['source'])})_",
    ]
    baseline = tree.get("baseline")
    if baseline and "error" not in baseline:
        out.append(
            f"- **Baseline**: {baseline['fixed']} of {baseline['baselined']} fixed, "
            f"{baseline['new']} new _(from {cell(baseline['source'])})_"
        )
    out += ["", "### Findings by rule", ""]
    out += table(("rule", "findings"), ((r["rule"], r["count"]) for r in f["by_rule"][:10]))
    out += ["", "### Top folders by findings", ""]
    out += table(("folder", "findings"), ((r["folder"], r["count"]) for r in f["by_folder"][:5]))
    out += ["", "### Batches", ""]
    out += table(
        ("batch", "accepted", "rejected", "pages", "gate", "PR or artifact"),
        (
            (
                b["batch"],
                b["accepted"],
                b["rejected"],
                b["pages_touched"],
                b["gate"],
                b["pr"] or b["artifact"],
            )
            for b in cur["batches"][:10]
        ),
    )
    old = intake["oldest_pending"]
    if old:
        out += [
            "",
            f"Oldest pending: {cell(' '.join(old['key']))} recorded {cell(old['recorded_at'])}: {cell(old['title'])}",
        ]
    out += [
        "",
        f"_Generated {report['generated_at']} by `kb report`; the HTML report has the charts._",
        "",
    ]
    return "\n".join(out)
