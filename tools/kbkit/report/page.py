"""The report as one self-contained HTML page: inline CSS and SVG, no script, no network.

The first screen answers five questions (`kbkit.report.first_screen`); the sections below
hold the rest: tree health, intake, curator and publication, lessons. A part with nothing to
show is one line that says so. The layout is one column below 720 px (tables stack into
labelled lines), so nothing runs off a 400 px screen.
"""

from __future__ import annotations

from typing import Any

from kbkit.report import answers, charts, first_screen, words
from kbkit.report.html import (
    Cell,
    FileLinks,
    Mark,
    as_markup,
    bars,
    code,
    esc,
    fig,
    file_link,
    folded,
    link,
    number,
    source,
    table,
)
from kbkit.report.words import plural

CSS = """
*{box-sizing:border-box}
body{font-family:system-ui,'DejaVu Sans',sans-serif;color:#1f2328;background:#fff;margin:0 auto;
max-width:1400px;padding:12px 20px 40px;line-height:1.4;overflow-wrap:break-word}
h1{font-size:1.45em;margin:0}h2{font-size:1.2em;margin:0 0 6px}
section.part>h2{border-bottom:1px solid #d0d7de;padding-bottom:4px;margin-top:28px}
h3{font-size:1em;margin:18px 0 4px}
.meta,.source{color:#57606a;font-size:.85em;margin:2px 0 8px}
a{color:#0550ae}
.answers{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,400px),1fr));gap:12px;margin:12px 0}
.answer{border:1px solid #d0d7de;border-left:6px solid #8c959f;border-radius:6px;padding:8px 12px;min-width:0}
.answer.good{border-left-color:#1a7f37}.answer.warn{border-left-color:#9a6700}.answer.bad{border-left-color:#cf222e}
.answer h2{font-size:.95em;color:#57606a;font-weight:600}
.answer.wide{grid-column:1/-1;display:flex;flex-wrap:wrap;align-items:baseline;gap:0 14px}
.answer.wide h2,.answer.wide p{margin:0}.answer.wide .more{margin-left:auto}
.verdict{font-size:1.15em;font-weight:600;margin:0 0 4px}
.answer ul{margin:4px 0;padding-left:20px}.answer p{margin:4px 0}
.trend.good{color:#116329}.trend.bad{color:#a40e26}
.more{font-size:.85em}.id,.page{color:#57606a;font-size:.85em}
.decisions li.accepted .mark{color:#116329;font-weight:700}.decisions li.rejected .mark{color:#a40e26;font-weight:700}
.figures b{font-size:1.1em}
.headline{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0}
.headline div{border:1px solid #d0d7de;border-radius:6px;padding:4px 12px}
.headline b{display:block;font-size:1.3em}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,560px),1fr));gap:16px;align-items:start}
.grid>div{min-width:0}
figure{margin:6px 0;max-width:100%}figure svg{max-width:100%;height:auto;display:block}
figcaption{font-size:.85em;color:#57606a}
table{border-collapse:collapse;font-size:.9em;margin:6px 0;max-width:100%}
th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f6f8fa}
code{font-size:.9em;overflow-wrap:anywhere}
td b{font-weight:inherit}
table.bars{width:100%}table.bars td:first-child{width:55%}
td.bar{white-space:nowrap}
.track{display:inline-block;position:relative;width:calc(100% - 4.5em);height:.9em;vertical-align:middle;background:#f6f8fa}
.fill{position:absolute;left:0;top:0;bottom:0;background:#0969da}
.limit{position:absolute;top:-3px;bottom:-3px;border-left:2px solid #cf222e}
.limit.near{border-left:2px dashed #9a6700}
.v{display:inline-block;min-width:4em;text-align:right;font-variant-numeric:tabular-nums}
.marks{font-size:.85em;color:#57606a;margin:2px 0}
.marks .key{display:inline-block;width:0;height:.9em;border-left:2px solid #cf222e;margin:0 4px -2px 6px}
.marks .key.near{border-left:2px dashed #9a6700}
.folded{margin:6px 0;color:#57606a}.folded b{color:#1f2328}
details{margin:6px 0}summary{font-weight:600}
@media (max-width:720px){
 body{padding:8px 10px 30px}
 h1{font-size:1.25em}
 table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;width:100%}
 table.stack thead{display:none}
 table.stack tr{border:1px solid #d0d7de;border-radius:4px;margin:6px 0}
 table.stack td{border:0;padding:1px 8px;text-align:left}
 table.stack td::before{content:attr(data-label) ": ";color:#57606a}
 table.bars td:first-child{width:50%}
}
"""


def _headline(figures: list[tuple[str, str]]) -> str:
    cells = "".join(f"<div>{value}{esc(name)}</div>" for name, value in figures)
    return f'<div class="headline">{cells}</div>'


def _chart(svg: str, caption: str) -> str:
    return f'<figure class="chart">{svg}<figcaption>{esc(caption)}</figcaption></figure>'


def _left_out(shown: int, total: int, what: str) -> str:
    """The line under a cut list (nothing when the list is whole)."""
    text = words.left_out(shown, total, what)
    return f'<p class="note">{esc(text)}</p>' if text else ""


def _part(anchor: str, title: str, src: str, body: str) -> str:
    return f'<section class="part" id="{anchor}"><h2>{esc(title)}</h2>{source(src)}{body}</section>'


# --- tree health --------------------------------------------------------------------------


def _tree(tree: dict[str, Any]) -> str:
    f, age, largest, links = tree["findings"], tree["age"], tree["largest"], tree["links"]
    if not tree["pages"] and not f["total"]:
        return _part("tree", "Tree health", tree["source"], folded(
            "No pages yet", f"nothing under {code(tree['root'] + '/')} in the roots "
            f"{esc(', '.join(tree['roots']))}; <code>kb init</code> writes a starting tree."))  # fmt: skip
    parts = [
        _headline(
            [
                ("pages", fig(tree["pages"], "check", "summary", "pages")),
                ("errors", fig(f["errors"], "check", "summary", "errors")),
                ("warnings", fig(f["warnings"], "check", "summary", "warnings")),
                ("stale pages", fig(_count(f, "lint/stale"), "check", "rule", "lint/stale")),
                ("orphans", fig(tree["orphans"]["count"], "check", "rule", "lint/orphan")),
                ("broken links", fig(links["broken"], "check", "rule", "tree/link-broken")),
                ("relative links", fig(links["relative_links"])),
            ]
        )
    ]
    if tree["outside_roots"]:
        parts.append(
            f"<p>{plural(tree['outside_roots'], 'more page')} under {code(tree['root'] + '/')} "
            f"lie outside the roots ({esc(', '.join(tree['roots']))}): <code>kb check</code> "
            "does not check them, and no figure here counts them.</p>"
        )
    parts.append(_baseline(tree.get("baseline")))
    parts.append(_trend(tree["trend"]))
    parts.append('<div class="grid"><div>')
    if not tree["pages"]:  # only tree-wide findings (a missing root): they are all there is
        parts.append(_findings_by_rule(f))
        parts.append("</div></div>")
        parts.append(folded("No pages yet", f"nothing under {code(tree['root'] + '/')} in the "
                            f"roots {esc(', '.join(tree['roots']))}."))  # fmt: skip
        return _part("tree", "Tree health", tree["source"], as_markup(parts))
    parts.append(_findings_by_rule(f))
    parts.append("</div><div>")
    if f["by_folder"]:
        shown = f["by_folder"]
        more = f["folders"] - len(shown)
        parts.append(
            "<h3>Folders with the most findings</h3>"
            + bars(
                ("folder", "findings"),
                [
                    (
                        code(r["folder"] + "/"),
                        r["count"],
                        fig(r["count"], "check", "folder", r["folder"]),
                    )
                    for r in shown
                ],
            )
            + (f"<p>and {plural(more, 'more folder')}</p>" if more > 0 else "")
        )
    else:
        parts.append(folded("Folders with the most findings", "none."))
    parts.append("</div><div>")
    parts.append(_ages(age))
    parts.append("</div><div>")
    parts.append(_largest(largest))
    parts.append("</div></div>")
    orphans = tree["orphans"]
    if orphans["count"]:
        parts.append(
            "<h3>Orphans: pages no other page links to</h3>"
            + table(("page",), ((Cell(code(p)),) for p in orphans["pages"]))
            + (
                f"<p>and {plural(orphans['count'] - len(orphans['pages']), 'more')}</p>"
                if orphans["count"] > len(orphans["pages"])
                else ""
            )
        )
    else:
        parts.append(folded("Orphans", "none: <code>kb check</code> reports no page that no "
                            "other page links to."))  # fmt: skip
    if links["most_linked"]:
        parts.append(
            "<details><summary>Most linked pages</summary>"
            + bars(
                ("page", "inbound links"),
                [(code(p["path"]), p["inbound"], fig(p["inbound"])) for p in links["most_linked"]],
            )
            + "</details>"
        )
    return _part("tree", "Tree health", tree["source"], as_markup(parts))


def _count(f: dict[str, Any], rule: str) -> int:
    """Findings of one rule, as `kb check` reports them (a rule the policy switches off: 0)."""
    return sum(r["count"] for r in f["by_rule"] if r["rule"] == rule)


def _findings_by_rule(f: dict[str, Any]) -> str:
    if not f["by_rule"]:
        return folded("Findings by rule", "none: <code>kb check</code> finds nothing.")
    return "<h3>Findings by rule</h3>" + bars(
        ("rule", "findings"),
        [
            (
                f'{code(r["rule"])} <span class="id">{esc(r["severity"])}: {esc(r["title"])}</span>',
                r["count"],
                fig(r["count"], "check", "rule", r["rule"]),
            )
            for r in f["by_rule"]
        ],
    )


def _baseline(baseline: dict[str, Any] | None) -> str:
    if not baseline:
        return ""
    if "error" in baseline:
        return f"<p>Baseline {code(baseline['source'])}: {esc(baseline['error'])}</p>"
    return (
        f"<p>Baseline {code(baseline['source'])}: {fig(baseline['baselined'])} findings recorded, "
        f"{fig(baseline['fixed'])} fixed since, {fig(baseline['remaining'])} still there, "
        f"{fig(baseline['new'])} new.</p>"
    )


def _trend(trend: dict[str, Any]) -> str:
    points = [p for p in trend["points"] if "error" not in p]
    failed = [p for p in trend["points"] if "error" in p]
    verdict = answers.trend_verdict(trend)
    out = [f"<h3>Over the window: {esc(verdict.text)}</h3>"]
    if len(points) >= 2:
        days = [p["day"][5:] if p["commit"] else "now" for p in points]
        out.append(
            '<div class="grid"><div>'
            + _chart(
                charts.lines(
                    "trend",
                    days,
                    {
                        "errors": [p["errors"] for p in points],
                        "warnings": [p["warnings"] for p in points],
                    },
                ),
                "Findings at the end of each sample day (the window's Mondays) and now.",
            )
            + "</div><div>"
            + table(
                ("day", "commit", "pages", "errors", "warnings"),
                (
                    (
                        p["day"],
                        Cell(code(p["commit"][:12])) if p["commit"] else "working tree",
                        p["pages"],
                        p["errors"],
                        p["warnings"],
                    )
                    for p in points
                ),
            )
            + "</div></div>"
        )
    for p in failed:
        out.append(f"<p>{esc(p['day'])}: could not be checked: {esc(p['error'])}</p>")
    out.append(source(trend["source"]))
    return as_markup(out)


def _ages(age: dict[str, Any]) -> str:
    title = f"Days since the updated: date (stale after {age['stale_days']} days)"
    if not age["dated_pages"]:
        return folded(title, f"no page of the {plural(age['linted_pages'], 'page')} lint "
                      "checks carries an <code>updated:</code> date.")  # fmt: skip
    caption = (
        f"{age['dated_pages']} of the {plural(age['linted_pages'], 'page')} lint checks carry "
        "an updated: date."
    )
    return (
        f"<h3>{esc(title)}</h3>"
        + bars(
            ("days since updated:", "pages"),
            [(esc(b["label"]), b["pages"], fig(b["pages"])) for b in age["buckets"]],
        )  # fmt: skip
        + f'<p class="source">{esc(caption)}</p>'
        + "<details><summary>Oldest pages</summary>"
        + table(
            ("page", "days since updated"),
            ((Cell(code(r["path"])), r["days"]) for r in age["oldest"]),
        )
        + "</details>"
    )


def _largest(largest: dict[str, Any]) -> str:
    lim = largest["limits"]
    if not largest["pages"]:
        return folded("Largest pages", "no pages.")
    marks = [
        Mark(f"warning at {lim['near_bytes']} bytes (near limit)", lim["near_bytes"], "near"),
        Mark(f"split at {lim['split_bytes']} bytes", lim["split_bytes"], "split"),
    ]
    caption = (
        f"{plural(largest['over_near_bytes'], 'page')} at or over the near limit, "
        f"{largest['over_split_limit']} over the split limit "
        f"({lim['near_lines']} / {lim['split_lines']} non-empty lines also count)."
    )
    return (
        "<h3>Largest pages, in bytes</h3>"
        + bars(
            ("page", "bytes"),
            [(code(p["path"]), p["bytes"], fig(p["bytes"])) for p in largest["pages"]],
            marks=marks,
        )
        + f'<p class="source">{esc(caption)}</p>'
    )


# --- intake -------------------------------------------------------------------------------


def _intake(intake: dict[str, Any]) -> str:
    src = intake["source"]
    if not intake["events"] and not intake["problems"]:
        return _part("intake", "Intake", src, folded(
            "No events yet", "the ledgers are empty; <code>kb intake record-prs</code> records "
            "merged pull requests and <code>kb intake collect</code> bugfix runs."))  # fmt: skip
    states = intake["states"]
    parts = [
        _headline(
            [("events", fig(intake["events"], "intake", "totals", "*"))]
            + [(words.state(s), fig(n, "intake", "totals", s)) for s, n in states.items()]
        ),
        "<h3>Events by kind and state</h3>",
        table(
            ("kind", *states, "all"),
            (
                (
                    words.kind(kind),
                    *(Cell(fig(c.get(s, 0), "intake", "counts", kind, s), True) for s in states),
                    Cell(fig(sum(c.values()), "intake", "counts", kind, "*"), True),
                )
                for kind, c in intake["by_kind"].items()
            ),
        ),
    ]
    days = intake["per_day"]
    if intake["recorded_in_window"]:
        kinds = [k for k in intake["kinds"] if any(d[k] for d in days)]
        parts.append(
            '<div class="grid"><div>'
            + "<h3>Recorded per day</h3>"
            + _chart(
                charts.stacked_days(
                    "intake-per-day",
                    [d["day"][5:] for d in days],
                    {words.kind(k): [d[k] for d in days] for k in kinds},
                ),
                f"{plural(intake['recorded_in_window'], 'event')} recorded in the window, by kind.",
            )
            + "</div></div>"
            + "<h3>Recorded in the window, newest first</h3>"
            + table(
                ("event", "kind", "recorded", "state"),
                (
                    (
                        Cell(
                            link(e["url"], e["title"] or e["source_id"])
                            + f' <span class="id">{esc(e["source_id"])}</span>'
                        ),
                        words.kind(e["kind"], 1),
                        e["recorded_at"][:10],
                        e["state"],
                    )
                    for e in intake["arrived"]
                ),
            )
            + _left_out(len(intake["arrived"]), intake["recorded_in_window"], "event")
        )
    else:
        parts.append(folded("Recorded in the window", "nothing."))
    pending = intake["pending_attempts"]
    if pending:
        parts.append(
            "<h3>Pending events by distill attempts so far</h3>"
            + bars(
                ("attempts", "pending events"),
                [(esc(k), n, fig(n, "intake", "pending_attempts", k)) for k, n in pending.items()],
            )
        )
    old = intake["oldest_pending"]
    if old:
        parts.append(
            f"<p>Oldest pending: {code(old['key'][0])} {fig(old['key'][1], 'intake', 'oldest_pending', 'key', 1)} "
            f"recorded {fig(old['recorded_at'], 'intake', 'oldest_pending', 'recorded_at')}: {esc(old['title'])}</p>"
        )
    else:
        parts.append(folded("Pending", "nothing waits for distill."))
    ages = intake["state_age"]
    rows = [(words.state(s), *counts) for s, counts in ages["by_state"].items() if any(counts)]
    if rows:
        parts.append(
            "<details><summary>How long events have been in their current state</summary>"
            + table(("state", *ages["buckets"]), rows)
            + "</details>"
        )
    if intake["cursor"]:
        parts.append(
            "<h3>Pull request scan</h3>"
            + table(
                ("repository", "scanned up to", "next scan from"),
                (
                    (
                        c["repo"],
                        Cell(fig(c["at"], "intake", "cursor", c["repo"])),
                        Cell(fig(c["next_scan_from"], "intake", "next_scan_from", c["repo"])),
                    )
                    for c in intake["cursor"]
                ),
            )
        )
    if intake["problems"]:
        parts.append(
            "<h3>Unreadable ledger lines</h3>"
            + table(("problem",), ((p,) for p in intake["problems"]))
        )
    return _part("intake", "Intake", src, as_markup(parts))


# --- curator ------------------------------------------------------------------------------


def _curator(cur: dict[str, Any], files: FileLinks | None) -> str:
    src, totals, rows = cur["source"], cur["totals"], cur["batches"]
    if not totals["batches"] and not cur["knowledge_prs"]:
        return _part("curator", "Curator and publication", src, folded(
            "No batch in the window", "<code>kb distill</code> has not run in the window."))  # fmt: skip
    parts = [
        _headline(
            [
                ("batches", fig(totals["batches"])),
                ("proposals", fig(totals["proposals"])),
                ("accepted", fig(totals["accepted"])),
                ("rejected", fig(totals["rejected"])),
                ("pages changed", fig(totals["pages_touched"])),
                ("PRs", fig(totals["published"])),
            ]
        )
    ]
    if cur["decisions"]:
        parts.append(
            "<h3>Proposals and decisions, newest batch first</h3>"
            + table(
                ("rule", "title", "page", "decision", "reason"),
                (
                    (
                        Cell(code(d["rule_id"] or "?")),
                        d["title"] or "(no title)",
                        Cell(code(d["page"])) if d["page"] else "—",
                        d["decision"],
                        words.reason(d),
                    )
                    for d in cur["decisions"]
                ),
            )
            + _left_out(len(cur["decisions"]), totals["proposals"], "proposal")
        )
    else:
        parts.append(folded("Proposals", "the model proposed nothing in the window."))
    reasons = cur["rejected_by_reason"]
    if reasons:
        parts.append(
            "<h3>Rejected proposals by reason</h3>"
            + bars(
                ("reason", "proposals"),
                [(code(r["reason"]), r["count"], fig(r["count"])) for r in reasons],
            )
        )
    prs = cur["knowledge_prs"]
    if prs:
        parts.append(
            "<h3>Knowledge PRs</h3>"
            + table(
                ("pull request", "state", "events", "last updated"),
                (
                    (
                        Cell(link(p["url"], words.pull_request(p["url"]))),
                        p["state"],
                        p["events"],
                        p["at"],
                    )
                    for p in prs
                ),
            )
        )
    else:
        parts.append(folded("Knowledge PRs", "none opened in the window."))
    if rows:
        parts.append(
            "<h3>Batches</h3>"
            + table(
                (
                    "batch",
                    "events",
                    "accepted",
                    "rejected",
                    "pages changed",
                    "gate",
                    "state",
                    "PR or shadow artifact",
                ),
                (
                    (
                        b["batch"],
                        b["events"],
                        b["accepted"],
                        b["rejected"],
                        b["pages_touched"],
                        b["gate"],
                        words.state(b["state"]) if b["state"] else "—",
                        Cell(
                            link(b["pr"], words.pull_request(b["pr"]))
                            if b["pr"]
                            else file_link(_body_href(files, b["artifact"]), b["artifact"])
                            if b["artifact"]
                            else f"recorded in {code(b['recorded'])}"
                        ),
                    )
                    for b in rows
                ),
            )
        )
    return _part("curator", "Curator and publication", src, as_markup(parts))


def _body_href(files: FileLinks | None, artifact: str | None) -> str | None:
    """The shadow artifact's `pr-body.md`: the body review mode would have sent (None when
    this runner has no artifact folder of the batch)."""
    return files.href(artifact, "pr-body.md") if files is not None and artifact else None


# --- lessons ------------------------------------------------------------------------------


def _lessons(les: dict[str, Any]) -> str:
    src, report = les["source"], les["report"]
    if not les["lessons"] and not report["tasks"] and not les["usage_by_mode"]:
        return _part("lessons", "Lessons", src, folded(
            "No lessons yet", "the store is empty; <code>kb lessons extract</code> adds "
            "lessons from closed tasks."))  # fmt: skip
    parts = [
        _headline(
            [("lessons", fig(les["lessons"])), ("scopes", fig(les["scopes"]))]
            + [(f"{k} lessons", fig(n)) for k, n in les["by_kind"].items()]
            + [("closed tasks with outcome cards", fig(report["tasks"]))]
        )
    ]
    parts.append(_comparisons(report, les["comparison"]))
    parts.append(_told(les))
    parts.append('<div class="grid"><div>')
    if les["by_scope"]:
        parts.append(
            "<h3>Lessons by scope (company / category)</h3>"
            + bars(
                ("scope", "lessons"),
                [(esc(s["scope"]), s["lessons"], fig(s["lessons"])) for s in les["by_scope"]],
            )
            + _left_out(len(les["by_scope"]), les["scopes"], "scope")
        )
    parts.append("</div><div>")
    if les["lessons"]:
        parts.append(
            "<h3>Support: distinct tasks with live evidence, per lesson</h3>"
            + bars(
                ("tasks", "lessons"),
                [(esc(s["label"]), s["lessons"], fig(s["lessons"])) for s in les["support"]],
            )
            + '<p class="source">Support counts evidence; it says nothing about cause.</p>'
        )
    parts.append("</div></div>")
    modes = les["usage_by_mode"]
    if modes:
        parts.append(
            "<h3>Considerations per mode in the window (usage.jsonl)</h3>"
            + bars(("mode", "considerations"), [(esc(m), n, fig(n)) for m, n in modes.items()])
        )
    else:
        parts.append(folded("Considerations", "no bundle considered lessons in the window."))
    signals = les["signals"]
    if signals:
        parts.append(
            "<h3>Helpful and harmful, per lesson shown to a task that has closed</h3>"
            + table(
                ("lesson", "helpful", "harmful"),
                (
                    (
                        Cell(esc(s["says"]) + f' <span class="id">{esc(s["lesson"])}</span>'),
                        s["helpful"],
                        s["harmful"],
                    )
                    for s in signals
                ),
            )
        )
    else:
        parts.append(
            folded("Helpful and harmful", "no lesson shown to a task has been judged yet.")
        )
    return _part("lessons", "Lessons", src, as_markup(parts))


def _told(les: dict[str, Any]) -> str:
    """What agents are told now (`kb lessons list`), and what a conflict withholds."""
    if not les["told_count"]:
        return folded("What agents are told now", "no lesson is selectable (none has live "
                      "evidence, or every one was adopted or retired).")  # fmt: skip
    withheld = les["withheld"]
    out = [
        f'<h3 id="told">What agents are told now ({plural(les["told_count"], "lesson")}, '
        "<code>kb lessons list</code>)</h3>",
        table(
            (
                "scope",
                "lesson",
                "support (tasks)",
                "last seen",
                "injected into (window)",
                "evidence",
            ),  # fmt: skip
            (
                (
                    t["scope"],
                    Cell(
                        f'{esc(t["line"])} <span class="id">{esc(t["id"])}</span>'
                        + (
                            f'<br><b class="withheld">withheld: {esc(t["withheld"]["why"])}</b>'
                            if t["withheld"]
                            else ""
                        )  # fmt: skip
                    ),
                    t["support"],
                    t["last_seen"][:10],
                    plural(t["injected"], "task")
                    + (f" ({t['shadowed']} in shadow)" if t["shadowed"] else ""),
                    Cell(
                        ", ".join(code(e["source"]) for e in t["evidence"])
                        + (
                            f" and {t['evidence_rows'] - len(t['evidence'])} more"
                            if t["evidence_rows"] > len(t["evidence"])
                            else ""
                        )
                    ),
                )
                for t in les["told"]
            ),
        ),
        _left_out(len(les["told"]), les["told_count"], "lesson"),
        f"<p>In the window, {plural(les['injected_lessons'], 'lesson')} were injected into "
        f"{plural(les['injected_tasks'], 'task')} (<code>KB_LESSONS=inject</code>; usage.jsonl).</p>",
        '<p class="source">Which of them one task sees depends on its company, category '
        "and the 8-lesson, 1,800-character budget: <code>kb lessons show TASK.json</code>; "
        "one lesson's evidence: <code>kb lessons why ID</code>.</p>",
    ]
    if withheld:
        out.append(
            "<h3>Withheld: lessons that contradict another</h3>"
            + table(
                ("lesson", "why", "against"),
                (
                    (
                        Cell(f'{esc(t["line"])} <span class="id">{esc(t["id"])}</span>'),
                        t["withheld"]["why"],
                        Cell(", ".join(code(a) for a in t["withheld"]["against"])),
                    )
                    for t in withheld
                ),
            )
        )
    return as_markup(out)


def _comparisons(report: dict[str, Any], forest: dict[str, Any]) -> str:
    """The lessons report's comparisons as it prints them: arms, then per comparison the
    metrics of both arms with intervals and their difference."""
    if "error" in report:
        return f"<p>{esc(report['error'])}</p>"
    if not report["tasks"]:
        return folded("With and without lessons", "no closed task has an outcome card yet.")
    arms = [(a, n) for a, n in report["arms"].items()]
    out = [
        "<h3>With and without lessons (<code>kb lessons report</code>)</h3>",
        table(
            ("arm", "tasks"),
            ((words.arm(a), Cell(fig(n, "lessons", "arms", a), True)) for a, n in arms),
        ),
    ]
    compared = ([("headline", report["headline"])] if report["headline"] else []) + [
        (i, c) for i, c in enumerate(report["observational"])
    ]
    if not report["headline"]:
        out.append("<p>No randomised comparison yet: no task was assigned with "
                   "<code>kb lessons bundle --assign hash</code> in inject mode.</p>")  # fmt: skip
    for where, c in compared:
        path: tuple[object, ...] = (
            ("headline",) if where == "headline" else ("observational", where)
        )
        rows = [_measure(name, m, path) for name, m in c["metrics"].items()]
        treated, control = c["tasks"]
        out.append(f"<h3>{esc(c['comparison'].replace('_', ' '))}</h3>")
        out.append(
            table(
                (
                    "measure",
                    f"with lessons ({treated} tasks)",
                    f"without ({control} tasks)",
                    "difference",
                    "within each category",
                ),
                rows,
            )
        )
    plotted = [r for r in forest["rows"] if r["value"] is not None]
    if plotted:
        keys = [chr(ord("A") + i) if i < 26 else str(i) for i in range(len(plotted))]
        out.append(
            '<div class="grid"><div>'
            + _chart(
                charts.forest("lessons-forest", plotted, keys),
                f"{words.metric(forest['metric'])}: dot the estimate, line the 95% interval; "
                "blue rows saw lessons, red rows did not.",
            )
            + "</div><div>"
            + table(
                ("row", "comparison", "arm", "tasks"),
                (
                    (k, r["group"].replace("_", " "), r["arm"].replace("_", " "), r["tasks"])
                    for k, r in zip(keys, plotted, strict=True)
                ),
            )
            + "</div></div>"
        )
    out.append(f'<p class="source">{esc(report["methods"])} {esc(report["caveat"])}</p>')
    return as_markup(out)


def _measure(name: str, m: dict[str, Any], path: tuple[object, ...]) -> tuple[object, ...]:
    """One metric of a comparison as `kb lessons report` gives it: each arm with its interval,
    the difference, and the difference within each category (stratum); below the report's
    minimum of tasks per arm, the words "not enough tasks" instead of a number."""
    rate = name in answers.RATES
    base = (*path, "metrics", name)
    least = m.get("minimum_tasks_per_arm")
    cells: list[object] = [words.metric(name)]
    for side in ("treated", "control"):
        e = m[side]
        if e["value"] is None and not m.get("enough", True):
            cells.append(Cell(f'not enough tasks <span class="id">n={e["n"]}</span>'))
            continue
        text = _interval(e, ("lessons", *base, side), rate, False)
        cells.append(Cell(text + f' <span class="id">n={e["n"]}</span>'))
    if m["difference"] is not None:
        cells.append(Cell(_interval(m["difference"], ("lessons", *base, "difference"), rate, True)))
    elif not m.get("enough", True):
        cells.append(Cell("not enough tasks" + (f" (at least {least} per arm)" if least else "")))
    else:
        cells.append("not enough tasks for an interval")
    strata = []
    for i, stratum in enumerate(m.get("strata") or []):
        d = stratum["difference"]
        if d is None:
            a, b = stratum["tasks"]
            shown = f"not enough tasks ({a} vs {b})"
        else:
            shown = _interval(d, ("lessons", *base, "strata", i, "difference"), rate, True)
        strata.append(f"{esc(stratum['stratum'])}: {shown}")
    cells.append(Cell("<br>".join(strata) or "—"))
    return tuple(cells)


def _interval(e: dict[str, Any], where: tuple[object, ...], rate: bool, signed: bool) -> str:
    """`value [low, high]`, each figure marked with where it is in the lessons report."""
    owner, *path = where
    text = fig(e["value"], str(owner), *path, "value", shown=number(e["value"], rate, signed))
    if e.get("low") is not None:
        low = fig(e["low"], str(owner), *path, "low", shown=number(e["low"], rate, signed))
        high = fig(e["high"], str(owner), *path, "high", shown=number(e["high"], rate, signed))
        text += f" [{low}, {high}]"
    return text


def render_html(report: dict[str, Any], files: FileLinks | None = None) -> str:
    """The page; with `files`, shadow artifacts link to the PR body they hold."""
    w = report["window"]
    title = f"kbkit report: {report['repo']}"
    body = [
        f"<h1>{esc(title)}</h1>",
        f'<p class="meta"><b>{esc(w["since"])} to {esc(w["until"])}</b> (default: '
        f"{esc(w['default'])}). Generated {esc(report['generated_at'])} by <code>kb report</code>; "
        "a static page: no script, nothing fetched.</p>",
        first_screen.render(report, lambda artifact: _body_href(files, artifact)),
        _tree(report["tree"]),
        _intake(report["intake"]),
        _curator(report["curator"], files),
        _lessons(report["lessons"]),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"
        '<meta name="referrer" content="no-referrer">'
        f"<title>{esc(title)}, {esc(w['since'])} to {esc(w['until'])}</title><style>{CSS}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
