"""The report's first screen: five questions a team lead asks, each answered in a sentence
with the figures behind it and a link down to the section that has the rest.

1. Is the tree healthy, and is it getting better?   (kb check, now and on past days)
2. What came in?                                       (events by source, titles, links)
3. What did the model propose, and what was decided?  (rule id, title, page, reason)
4. Which knowledge PRs are open or merged?            (links)
5. Are lessons helping?                                (the lessons report's comparison)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kbkit.report import answers, words
from kbkit.report.html import code, esc, fig, link, number
from kbkit.report.words import plural

SHOWN = 5  # items listed per answer; the section below lists the rest
JUDGED = {
    "better": "better with lessons",
    "worse": "worse with lessons",
    "unclear": "unclear: the interval spans no change",
    "not-enough": "not enough tasks for an interval",
}


def render(report: dict[str, Any], body_href: Callable[[str], str | None]) -> str:
    """The five answers; `body_href` links a shadow artifact's PR body (or None)."""
    tree, intake, cur, les = report["tree"], report["intake"], report["curator"], report["lessons"]
    cards = [
        _tree(tree),
        _arrived(intake),
        _decisions(cur),
        _prs(cur, intake, body_href),
        _lessons(les),
    ]
    return '<section class="answers" aria-label="At a glance">' + "".join(cards) + "</section>"


def _card(question: str, verdict: answers.Verdict, body: str, more: str, anchor: str) -> str:
    return (
        f'<article class="answer {verdict.level}"><h2>{esc(question)}</h2>'
        f'<p class="verdict">{esc(verdict.text)}</p>{body}'
        f'<p class="more"><a href="#{anchor}">{esc(more)} ↓</a></p></article>'
    )


def _tree(tree: dict[str, Any]) -> str:
    f = tree["findings"]
    figures = (
        f'<p class="figures">{fig(f["errors"], "check", "summary", "errors")} errors · '
        f"{fig(f['warnings'], 'check', 'summary', 'warnings')} warnings · "
        f"{fig(tree['pages'], 'check', 'summary', 'pages')} pages</p>"
    )
    trend = answers.trend_verdict(tree["trend"])
    changes = answers.trend_changes(tree["trend"])
    moves = ""
    if changes is not None:
        since, moved = changes
        moves = (
            "<ul>"
            + "".join(f"<li>{esc(c.name)}: {c.first} → {c.last}</li>" for c in moved)
            + "</ul>"
        )
    worst = ""
    if f["by_rule"]:
        worst = (
            "<p>Most found:</p><ul>"
            + "".join(
                f"<li>{fig(r['count'], 'check', 'rule', r['rule'])} × {esc(r['title'])} "
                f'<span class="id">{esc(r["rule"])}</span></li>'
                for r in f["by_rule"][:3]
            )
            + "</ul>"
        )
    body = figures + f'<p class="trend {trend.level}">{esc(trend.text)}</p>' + moves + worst
    return _card("Is the tree healthy, and getting better?", answers.tree_verdict(tree), body,
                 "Tree health", "tree")  # fmt: skip


def _arrived(intake: dict[str, Any]) -> str:
    n = intake["recorded_in_window"]
    verdict = answers.Verdict(
        "none" if not n else "good",
        f"{plural(n, 'event')} recorded in the window" if n else "Nothing recorded in the window",
    )
    sources = "".join(
        f"<li>{fig(s['events'])} {esc(words.source(s))}</li>" for s in intake["by_source"]
    )
    listed = "".join(
        f"<li>{link(e['url'], e['title'] or e['source_id'])} "
        f'<span class="id">{esc(e["source_id"])}</span></li>'
        for e in intake["arrived"][:SHOWN]
    )
    rest = n - min(n, SHOWN)
    body = (f"<ul>{sources}</ul>" if sources else "") + (
        f'<ul class="titles">{listed}</ul>' if listed else ""
    )
    if rest:
        body += f"<p>and {plural(rest, 'more event')}</p>"
    if not n:
        body += (
            f"<p>{fig(intake['events'], 'intake', 'totals', '*')} events in the ledger in all; "
            "events are recorded by <code>kb intake record-prs</code> and "
            "<code>kb intake collect</code>.</p>"
        )
    return _card("What came in?", verdict, body, "Intake", "intake")


def _decisions(cur: dict[str, Any]) -> str:
    t = cur["totals"]
    if not t["proposals"]:
        verdict = answers.Verdict(
            "none",
            "No proposals in the window" if not t["batches"] else "The model proposed nothing",
        )
        body = (
            f"<p>{plural(t['batches'], 'batch', 'batches')} distilled in the window.</p>"
            if t["batches"]
            else "<p>No batch was distilled in the window (<code>kb distill</code>).</p>"
        )
        return _card("What did the model propose?", verdict, body, "Curator", "curator")
    verdict = answers.Verdict(
        "good" if t["accepted"] else "warn",
        f"{plural(t['proposals'], 'proposal')} in {plural(t['batches'], 'batch', 'batches')}: "
        f"{t['accepted']} accepted, {t['rejected']} rejected",
    )
    items = []
    for d in cur["decisions"][:SHOWN]:
        mark = "✓" if d["decision"] == "accepted" else "✗"
        why = (
            f' — <span class="reason">{esc(words.reason(d))}</span>'
            if d["decision"] == "rejected"
            else ""
        )
        page = f' <span class="page">{code(d["page"])}</span>' if d["page"] else ""
        items.append(
            f'<li class="{d["decision"]}"><span class="mark" aria-label="{d["decision"]}">'
            f"{mark}</span> {code(d['rule_id'] or '?')} {esc(d['title'] or '(no title)')}"
            f"{why}{page}</li>"
        )
    rest = t["proposals"] - len(items)
    body = f'<ul class="decisions">{"".join(items)}</ul>'
    if rest > 0:
        body += f"<p>and {plural(rest, 'more proposal')}</p>"
    return _card(
        "What did the model propose, and what was decided?", verdict, body, "Curator", "curator"
    )


def _prs(
    cur: dict[str, Any], intake: dict[str, Any], body_href: Callable[[str], str | None]
) -> str:
    prs = cur["knowledge_prs"]
    if prs:
        verdict = answers.Verdict("good", words.pr_states(prs))
        body = (
            "<ul>"
            + "".join(
                f"<li>{link(pr['url'], words.pull_request(pr['url']))}"
                f' <span class="id">{esc(pr["state"])}, {plural(pr["events"], "event")}</span></li>'
                for pr in prs[:SHOWN]
            )
            + "</ul>"
        )
        body += f"<p>{esc(words.pr_states_source(cur['knowledge_prs_read']))}</p>"
        return _card("Which knowledge PRs are open or merged?", verdict, body, "Curator", "curator")
    t = cur["totals"]
    shadowed = fig(intake["states"]["shadowed"], "intake", "totals", "shadowed")
    if t["batches"]:
        text = "No knowledge PR: the batches ran in shadow mode"
        body = (
            f"<p>{shadowed} events were distilled without a PR; each batch left a shadow "
            "artifact to review instead. A PR is opened when distill runs with "
            "<code>KBKIT_POST_MODE=review</code>.</p>"
        )
        newest = cur["batches"][0] if cur["batches"] else None
        href = body_href(newest["artifact"]) if newest and not newest["pr"] else None
        if href is not None:
            body += f'<p>The newest: <a href="{esc(href)}">the PR body it would have sent</a>.</p>'

    else:
        text = "No knowledge PR in the window"
        body = "<p>Distill opened no PR in the window.</p>"
    return _card("Which knowledge PRs are open or merged?", answers.Verdict("none", text), body,
                 "Curator", "curator")  # fmt: skip


def _lessons(les: dict[str, Any]) -> str:
    verdict = answers.lessons_verdict(les)
    report = les["report"]
    body = (
        f'<p class="figures">{fig(les["lessons"])} lessons · '
        f"{fig(report['tasks'], 'lessons', 'arms', '*') if 'arms' in report else fig(report['tasks'])}"
        " closed tasks with outcome cards</p>"
    )
    effects = answers.lessons_effects(report) if "error" not in report else []
    if effects:
        items = []
        for e in effects:
            rate = e.metric in answers.RATES
            if e.difference is None:
                items.append(f"<li>{esc(words.metric(e.metric))}: not enough tasks</li>")
                continue
            else:
                path = ("headline", "metrics", e.metric, "difference")
                value = fig(e.difference["value"], "lessons", *path, "value",
                            shown=number(e.difference["value"], rate, signed=True))  # fmt: skip
                interval = ""
                if e.difference.get("low") is not None:
                    low = fig(e.difference["low"], "lessons", *path, "low",
                              shown=number(e.difference["low"], rate, signed=True))  # fmt: skip
                    high = fig(e.difference["high"], "lessons", *path, "high",
                               shown=number(e.difference["high"], rate, signed=True))  # fmt: skip
                    interval = f" [{low}, {high}]"
                shown = f"{value}{interval}"
            items.append(
                f"<li>{esc(words.metric(e.metric))}: {shown} ({esc(JUDGED[e.judged])})</li>"
            )
        body += "<p>Randomised arms, lessons injected minus withheld (95% interval):</p>"
        body += "<ul>" + "".join(items) + "</ul>"
    elif "arms" in report and report["tasks"]:
        arms = [(a, n) for a, n in report["arms"].items() if n]
        body += (
            "<ul>"
            + "".join(
                f"<li>{fig(n, 'lessons', 'arms', a)} {esc(words.arm(a))}</li>" for a, n in arms
            )
            + "</ul>"
        )
        body += (
            "<p>Comparisons of these arms are observational, not causal: run bundles with "
            "<code>KBKIT_LESSONS=inject kb lessons bundle --assign hash</code> for a randomised "
            "one.</p>"
        )
    elif "error" in report:
        body += f"<p>{esc(report['error'])}</p>"
    return _card("Are lessons helping?", verdict, body, "Lessons", "lessons")
