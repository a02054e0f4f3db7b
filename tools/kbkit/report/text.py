"""The report as JSON, and as markdown: headline figures and small tables for
`$GITHUB_STEP_SUMMARY` and a PR body."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from kbkit.infra.charset import INVISIBLE, visible

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>|~])")


def render_json(report: dict[str, Any]) -> str:
    """The report as JSON; invisible characters (bidi, zero-width) inside strings written as
    `\\uXXXX` escapes, so copied text cannot reorder a terminal's line (json.dumps escapes
    the control characters itself)."""
    text = json.dumps(report, indent=2, ensure_ascii=False)
    return INVISIBLE.sub(lambda m: json.dumps(m.group())[1:-1], text) + "\n"


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


def link(url: str | None, text: object) -> str:
    """A markdown link to an https address kbkit recorded, or the text alone."""
    shown = cell(text)
    return f"[{shown}]({url})" if url and url.startswith("https://") else shown


def folded(title: str, text: str) -> list[str]:
    return ["", f"**{title}**: {text}"]


def render_markdown(report: dict[str, Any]) -> str:
    """The first screen's answers as a list, then the decisions, what came in, findings and
    batches as small tables; a part with nothing to show is one line. Posted text: copied
    mentions and references are inert (`kbkit.infra.inert`)."""
    from kbkit.infra import inert
    from kbkit.report import answers, loop_health, words
    from kbkit.report.words import plural

    w, tree, intake = report["window"], report["tree"], report["intake"]
    cur, les = report["curator"], report["lessons"]
    f, t = tree["findings"], cur["totals"]
    trend = answers.trend_verdict(tree["trend"])
    changes = answers.trend_changes(tree["trend"])
    moved = (
        " (" + ", ".join(f"{c.name} {c.first} → {c.last}" for c in changes[1]) + ")"
        if changes
        else ""
    )
    sources = ", ".join(f"{s['events']} {cell(words.source(s))}" for s in intake["by_source"])
    prs = cur["knowledge_prs"]
    loop = report["loop"]
    out = [
        f"## kbkit report, {w['since']} to {w['until']}",
        "",
        f"- **Loop**: {cell(loop_health.verdict(loop))}",
        f"- **Waiting on you**: {_waiting(loop)}",
        f"- **Came in**: {plural(intake['recorded_in_window'], 'event')} recorded in the window"
        + (f": {sources}" if sources else "")
        + f"; in the ledger {', '.join(f'{n} {s}' for s, n in intake['states'].items())} "
        f"_(from {cell(intake['source'])})_",
        f"- **Proposed**: {plural(t['proposals'], 'proposal')} in "
        f"{plural(t['batches'], 'batch', 'batches')}: {t['accepted']} accepted, "
        f"{t['rejected']} rejected _(from {cell(cur['source'])})_",
        "- **Knowledge PRs**: "
        + (
            words.pr_states(prs)
            + " ("
            + ", ".join(f"{link(p['url'], words.pull_request(p['url']))} {p['state']}" for p in prs)
            + ")"
            if prs
            else "none in the window"
        ),
        f"- **Tree**: {answers.tree_verdict(tree).text}; {cell(trend.text[:1].lower() + trend.text[1:])}{moved}. "
        f"{plural(f['errors'], 'error')}, {plural(f['warnings'], 'warning')}, "
        f"{sum(r['count'] for r in f['by_rule'] if r['rule'] == 'lint/stale')} stale, "
        f"{plural(tree['orphans']['count'], 'orphan')}, "
        f"{plural(tree['links']['broken'], 'broken link')} "
        f"_(from {cell(tree['source'])})_",
        f"- **Lessons**: {answers.lessons_verdict(les).text}; {les['lessons']} lessons, "
        f"{les['report']['tasks']} closed tasks with outcome cards _(from {cell(les['source'])})_",
    ]
    baseline = tree.get("baseline")
    if baseline and "error" not in baseline:
        out.append(
            f"- **Baseline**: {baseline['fixed']} of {baseline['baselined']} fixed, "
            f"{baseline['new']} new _(from {cell(baseline['source'])})_"
        )
    if cur["decisions"]:
        out += ["", "### Proposals and decisions", ""]
        out += table(
            ("rule", "title", "page", "decision", "reason"),
            (
                (
                    d["rule_id"],
                    d["title"],
                    d["page"],
                    d["decision"],
                    words.reason(d),
                )
                for d in cur["decisions"][:20]
            ),
        )
    else:
        out += folded("Proposals", "none in the window.")
    if intake["arrived"]:
        out += ["", "### Came in", ""]
        out += _table_raw(
            ("event", "kind", "state"),
            (
                (
                    link(e["url"], e["title"] or e["source_id"]) + f" ({cell(e['source_id'])})",
                    cell(words.kind(e["kind"], 1)),
                    cell(e["state"]),
                )  # fmt: skip
                for e in intake["arrived"][:20]
            ),
        )
        out += _left_out(min(20, len(intake["arrived"])), intake["recorded_in_window"], "event")
    else:
        out += folded("Came in", "nothing recorded in the window.")
    if f["by_rule"]:
        out += ["", "### Findings by rule", ""]
        out += table(
            ("rule", "what it checks", "findings"),
            ((r["rule"], r["title"], r["count"]) for r in f["by_rule"][:10]),
        )
    else:
        out += folded("Findings", "none.")
    if cur["batches"]:
        out += ["", "### Batches", ""]
        out += table(
            ("batch", "accepted", "rejected", "pages changed", "gate", "PR or artifact"),
            (
                (
                    b["batch"],
                    b["accepted"],
                    b["rejected"],
                    b["pages_touched"],
                    b["gate"],
                    b["pr"] or b["artifact"] or b.get("recorded"),
                )
                for b in cur["batches"][:10]
            ),
        )
        out += _left_out(min(10, len(cur["batches"])), cur["totals"]["batches"], "batch", "batches")
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
    return inert.markdown("\n".join(out))


def _waiting(loop: dict[str, Any]) -> str:
    """What waits on the lead, in one markdown line (links to the open PRs)."""
    from kbkit.report import words

    wait = loop["waiting"]
    parts = [
        f"{link(pr['url'], words.pull_request(pr['url']))} ("
        + (f"open {pr['age_days']} days" if pr["age_days"] is not None else "age unknown")
        + ")"
        for pr in wait["open_prs"][:10]
    ]
    if wait["refused_batches"]:
        parts.append(f"{len(wait['refused_batches'])} refused batch(es): "
                     + ", ".join(cell(b["batch"]) for b in wait["refused_batches"][:5]))  # fmt: skip
    if wait["failed_events"]:
        parts.append(f"{wait['failed_events']} failed event(s) (`kb intake status`, `kb intake requeue`)")  # fmt: skip
    return "; ".join(parts) or "nothing"


def _table_raw(headers: Iterable[str], rows: Iterable[Iterable[str]]) -> list[str]:
    """A table whose cells are markdown already (links)."""
    heads = list(headers)
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _left_out(shown: int, total: int, what: str, whats: str | None = None) -> list[str]:
    """The line under a cut table (no line when the table is whole)."""
    from kbkit.report import words

    text = words.left_out(shown, total, what, whats)
    return ["", text] if text else []
