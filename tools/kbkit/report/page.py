"""The report as one self-contained HTML page: inline CSS and SVG, no script, no network."""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Any

from kbkit.infra.charset import visible
from kbkit.report import charts

CSS = """
body{font-family:system-ui,'DejaVu Sans',sans-serif;color:#1f2328;background:#fff;margin:0 auto;
max-width:1400px;padding:16px 24px;line-height:1.4}
h1{font-size:1.6em;margin:0 0 4px}h2{font-size:1.25em;border-bottom:1px solid #d0d7de;padding-bottom:4px;margin-top:28px}
.meta,.source{color:#57606a;font-size:.85em}
.headline{display:flex;flex-wrap:wrap;gap:12px;margin:12px 0}
.figure{border:1px solid #d0d7de;border-radius:6px;padding:8px 14px;min-width:120px}
.figure b{display:block;font-size:1.5em}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(560px,1fr));gap:16px;align-items:start}
figure{margin:0;border:1px solid #d0d7de;border-radius:6px;padding:8px;overflow-x:auto}
figure svg{max-width:100%;height:auto;display:block}
figcaption{font-size:.85em;color:#57606a;margin-top:4px}
table{border-collapse:collapse;font-size:.85em;margin:6px 0}
th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}
th{background:#f6f8fa}
code{font-size:.9em;word-break:break-all}
"""


def esc(value: object) -> str:
    """Untrusted text for HTML: invisible characters shown as `<U+XXXX>`, then escaped."""
    return html.escape(visible(str(value)), quote=True) if value is not None else "—"


def _table(headers: Iterable[str], rows: Iterable[Iterable[object]]) -> str:
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = []
        for value in row:
            numeric = isinstance(value, int | float) and not isinstance(value, bool)
            cells.append(
                f'<td class="n">{esc(value)}</td>' if numeric else f"<td>{esc(value)}</td>"
            )
        body.append("<tr>" + "".join(cells) + "</tr>")
    if not body:
        body.append('<tr><td colspan="9">(none)</td></tr>')
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _figure(svg: str, caption: str, source: str) -> str:
    return (
        f'<figure class="chart">{svg}<figcaption>{esc(caption)} '
        f'<span class="source">Source: <code>{esc(source)}</code></span></figcaption></figure>'
    )


def _headline(figures: Iterable[tuple[str, object]]) -> str:
    cells = "".join(f'<div class="figure"><b>{esc(v)}</b>{esc(k)}</div>' for k, v in figures)
    return f'<div class="headline">{cells}</div>'


def _tree(tree: dict[str, Any]) -> str:
    f, age, largest, links = tree["findings"], tree["age"], tree["largest"], tree["links"]
    src = tree["source"]
    parts = [
        "<h2>Tree health</h2>",
        f'<p class="source">Source: <code>{esc(src)}</code></p>',
        _headline(
            [
                ("pages", tree["pages"]),
                ("errors", f["errors"]),
                ("warnings", f["warnings"]),
                ("stale pages", age["stale_pages"]),
                ("orphans", tree["orphans"]["count"]),
                ("relative links", links["relative_links"]),
                ("broken links", links["broken"]),
            ]
        ),
    ]
    baseline = tree.get("baseline")
    if baseline:
        if "error" in baseline:
            parts.append(
                f"<p>Baseline <code>{esc(baseline['source'])}</code>: {esc(baseline['error'])}</p>"
            )
        else:
            parts.append(
                _headline(
                    [
                        ("baselined", baseline["baselined"]),
                        ("fixed", baseline["fixed"]),
                        ("remaining", baseline["remaining"]),
                        ("new since baseline", baseline["new"]),
                    ]
                )
                + f'<p class="source">Source: <code>{esc(baseline["source"])}</code></p>'
            )
    rules = f["by_rule"][:15]
    folders = f["by_folder"]
    parts.append('<div class="grid">')
    parts.append(
        _figure(
            charts.bars(
                "findings-by-rule",
                "Findings by rule",
                [r["rule"] for r in rules],
                {"findings": [r["count"] for r in rules]},
                horizontal=True,
            ),
            "Findings by rule (top 15).",
            src,
        )
    )
    parts.append(
        _figure(
            charts.bars(
                "findings-by-folder",
                "Top offenders: findings by folder",
                [r["folder"] for r in folders],
                {"findings": [r["count"] for r in folders]},
                horizontal=True,
            ),
            "Folders with the most findings.",
            src,
        )
    )
    parts.append(
        _figure(
            charts.bars(
                "page-age",
                f"Days since updated (staleness limit {age['stale_days']} d)",
                [b["label"] for b in age["buckets"]],
                {"pages": [b["pages"] for b in age["buckets"]]},
            ),
            f"{age['dated_pages']} pages carry an updated: date.",
            src,
        )
    )
    lim = largest["limits"]
    parts.append(
        _figure(
            charts.bars(
                "largest-pages",
                f"Largest pages, bytes (near {lim['near_bytes']}, split {lim['split_bytes']})",
                [p["path"] for p in largest["pages"]],
                {"bytes": [p["bytes"] for p in largest["pages"]]},
                horizontal=True,
            ),
            f"{largest['over_near_bytes']} pages over the near limit, {largest['over_split_limit']} over the split limit.",
            src,
        )
    )
    parts.append("</div>")
    parts.append(
        "<h3>Findings by rule</h3>"
        + _table(("rule", "findings"), ((r["rule"], r["count"]) for r in f["by_rule"]))
    )
    parts.append(
        "<h3>Oldest pages</h3>"
        + _table(("page", "days since updated"), ((r["path"], r["days"]) for r in age["oldest"]))
    )
    parts.append(
        "<h3>Largest pages</h3>"
        + _table(
            ("page", "bytes", "non-empty lines (over the split limit)"),
            ((p["path"], p["bytes"], p["lines"]) for p in largest["pages"]),
        )
    )
    parts.append("<h3>Orphans</h3>" + _table(("page",), ((p,) for p in tree["orphans"]["pages"])))
    parts.append(
        "<h3>Most linked pages</h3>"
        + _table(
            ("page", "inbound links"), ((p["path"], p["inbound"]) for p in links["most_linked"])
        )
    )
    return "\n".join(parts)


def _intake(intake: dict[str, Any]) -> str:
    src = intake["source"]
    kinds = intake["kinds"]
    days = intake["per_day"]
    ages = intake["state_age"]
    parts = [
        "<h2>Intake funnel</h2>",
        f'<p class="source">Source: <code>{esc(src)}</code></p>',
        _headline(
            [("events", intake["events"]), ("recorded in window", intake["recorded_in_window"])]
            + list(intake["states"].items())
        ),
        '<div class="grid">',
        _figure(
            charts.bars(
                "intake-per-day",
                "Events recorded per day, by kind",
                [d["day"][5:] for d in days],
                {k: [d[k] for d in days] for k in kinds} or {"events": [0 for _ in days]},
                stacked=True,
            ),
            "Events by the day they were recorded.",
            src,
        ),
        _figure(
            charts.bars(
                "intake-state-age",
                "Current states by age of the last transition",
                ages["buckets"],
                ages["by_state"],
                stacked=True,
            ),
            "How long each event has been in its current state.",
            src,
        ),
        _figure(
            charts.bars(
                "intake-attempts",
                "Events by distill attempts",
                list(intake["attempts"]),
                {"events": list(intake["attempts"].values())},
            ),
            "Attempts recorded in status.jsonl.",
            src,
        ),
        "</div>",
    ]
    old = intake["oldest_pending"]
    parts.append(
        "<p>Oldest pending: "
        + (
            f"<code>{esc(' '.join(old['key']))}</code> recorded {esc(old['recorded_at'])}: {esc(old['title'])}"
            if old
            else "none"
        )
        + "</p>"
    )
    parts.append(
        "<h3>PR cursor</h3>"
        + _table(
            ("repository", "scanned up to", "next scan from"),
            ((c["repo"], c["at"], c["next_scan_from"]) for c in intake["cursor"]),
        )
    )
    if intake["problems"]:
        parts.append(
            "<h3>Unreadable ledger lines</h3>"
            + _table(("problem",), ((p,) for p in intake["problems"]))
        )
    return "\n".join(parts)


def _curator(cur: dict[str, Any]) -> str:
    src, totals, rows = cur["source"], cur["totals"], cur["batches"]
    reasons = cur["rejected_by_reason"]
    chrono = rows[::-1]
    return "\n".join(
        [
            "<h2>Curator and publication</h2>",
            f'<p class="source">Source: <code>{esc(src)}</code></p>',
            _headline(list(totals.items())),
            '<div class="grid">',
            _figure(
                charts.bars(
                    "batch-proposals",
                    "Proposals per batch",
                    [b["batch"][:17] for b in chrono],
                    {
                        "accepted": [b["accepted"] for b in chrono],
                        "rejected": [b["rejected"] for b in chrono],
                    },
                    stacked=True,
                ),
                "Accepted and rejected proposals, oldest batch first.",
                src,
            ),
            _figure(
                charts.bars(
                    "rejected-by-reason",
                    "Rejected proposals by reason",
                    [r["reason"] for r in reasons],
                    {"proposals": [r["count"] for r in reasons]},
                    horizontal=True,
                ),
                "Reason codes from validation.json.",
                src,
            ),
            "</div>",
            "<h3>Batches</h3>",
            _table(
                (
                    "batch",
                    "events",
                    "accepted",
                    "rejected (by reason)",
                    "pages touched",
                    "gate",
                    "state",
                    "PR or shadow artifact",
                ),
                (
                    (
                        b["batch"],
                        b["events"],
                        b["accepted"],
                        ", ".join(f"{k}: {v}" for k, v in b["rejected_by_reason"].items()) or "0",
                        b["pages_touched"],
                        b["gate"],
                        b["state"],
                        b["pr"] or b["artifact"],
                    )
                    for b in rows
                ),
            ),
        ]
    )


def _lessons(les: dict[str, Any]) -> str:
    src, cmp = les["source"], les["comparison"]
    scopes, support, modes = les["by_scope"], les["support"], les["usage_by_mode"]
    forest_rows = [r for r in cmp["rows"] if r["value"] is not None]
    parts = [
        "<h2>Lessons</h2>",
        f'<p class="source">Source: <code>{esc(src)}</code></p>',
        _headline(
            [("lessons", les["lessons"]), ("scopes", les["scopes"]), ("closed tasks", cmp["tasks"])]
            + list(les["by_kind"].items())
        ),
        '<div class="grid">',
        _figure(
            charts.bars(
                "lessons-by-kind",
                "Lessons by kind",
                list(les["by_kind"]),
                {"lessons": list(les["by_kind"].values())},
            ),
            "positive, negative and caution lessons.",
            src,
        ),
        _figure(
            charts.bars(
                "lessons-by-scope",
                "Lessons by scope (company / category)",
                [s["scope"] for s in scopes],
                {"lessons": [s["lessons"] for s in scopes]},
                horizontal=True,
            ),
            "The largest scopes.",
            src,
        ),
        _figure(
            charts.bars(
                "lessons-support",
                "Support: live evidence rows per lesson",
                [s["label"] for s in support],
                {"lessons": [s["lessons"] for s in support]},
            ),
            "Support is not causal.",
            src,
        ),
        _figure(
            charts.bars(
                "lessons-usage",
                "Considerations per mode (usage.jsonl, in the window)",
                list(modes),
                {"considerations": list(modes.values())},
            ),
            "off, shadow and inject.",
            src,
        ),
        _figure(
            charts.forest(
                "lessons-forest",
                f"{cmp['metric'].replace('_', ' ')}: with vs without lessons (95% CI)",
                forest_rows,
            ),
            "Dot: estimate; line: 95% interval; blue rows saw lessons, red rows did not. "
            + cmp["methods"],
            src,
        ),
        "</div>",
        f"<p>{esc(cmp.get('error') or cmp['caveat'])}</p>",
        "<h3>Comparison</h3>",
        _table(
            ("group", "arm", "tasks", cmp["metric"], "low", "high"),
            (
                (
                    r["group"],
                    r["arm"],
                    r["tasks"],
                    _num(r["value"]),
                    _num(r["low"]),
                    _num(r["high"]),
                )
                for r in cmp["rows"]
            ),
        ),
    ]
    signals = les.get("signals")
    if signals is None:
        parts.append(
            "<p>Per-lesson helpful/harmful signal: not provided by this kbkit's lessons store yet.</p>"
        )
    else:
        parts.append(
            "<h3>Helpful / harmful per lesson</h3>"
            + _table(
                list(signals[0]) if signals else ("lesson",), (list(s.values()) for s in signals)
            )
        )
    return "\n".join(parts)


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3g}"


def render_html(report: dict[str, Any]) -> str:
    w = report["window"]
    title = f"kbkit report {w['since']} to {w['until']}"
    body = [
        f"<h1>{esc(title)}</h1>",
        f'<p class="meta">Generated {esc(report["generated_at"])} for <code>{esc(report["repo"])}</code>. '
        f"Window {esc(w['since'])} to {esc(w['until'])} (default: {esc(w['default'])}). "
        "Every chart is a static SVG; every table lists the numbers behind it.</p>",
        _tree(report["tree"]),
        _intake(report["intake"]),
        _curator(report["curator"]),
        _lessons(report["lessons"]),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"
        f"<title>{esc(title)}</title><style>{CSS}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
