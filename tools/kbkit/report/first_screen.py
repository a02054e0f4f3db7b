"""The report's first screen: problems first. Five questions a team lead asks, each answered
in a sentence with the figures behind it and a link down to the section that has the rest.

1. Is the loop healthy?                                (failed, refused, oldest pending,
                                                        attempt caps hit, last successful run)
2. What waits on you?                                  (open knowledge PRs with their age and
                                                        links, refused batches, failed events)
3. What came in, and what was decided?                 (events; each proposal and its decision;
                                                        the knowledge PRs)
4. Is the tree healthy, and is it getting better?      (kb check, now and on past days)
5. Are lessons helping?                                (the lessons report's comparison)

While the loop is sick (a failed event, or an event pending past the limit), no answer on
the first screen is green: the loop's trouble colours every card, the tree's and the
lessons' too, so a glance never reads "all good".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from kbkit.report import answers, loop_health, words
from kbkit.report.html import code, esc, fig, link, number
from kbkit.report.words import plural

SHOWN = 5  # items listed per answer; the section below lists the rest
DECISIONS = 3  # proposals listed on the first screen (the Curator section lists them all)
JUDGED = {
    "better": "better with lessons",
    "worse": "worse with lessons",
    "unclear": "unclear: the interval spans no change",
    "not-enough": "not enough tasks for an interval",
}


def render(report: dict[str, Any], body_href: Callable[[str | None], str | None]) -> str:
    """The five answers; `body_href` links a shadow artifact's PR body (or None)."""
    tree, intake, cur, les = report["tree"], report["intake"], report["curator"], report["lessons"]
    loop = report["loop"]
    cards = [
        _health(loop, intake),
        _waiting(loop, body_href),
        _came_and_decided(intake, cur, body_href),
        _tree(tree),
        _lessons(les),
    ]
    sick = loop["level"] == "bad"  # nothing is green while the loop is sick
    shown = [_card(a._replace(verdict=_capped(a.verdict, sick))) for a in cards]
    return '<section class="answers" aria-label="At a glance">' + "".join(shown) + "</section>"


class Answer(NamedTuple):
    question: str
    verdict: answers.Verdict
    body: str
    more: str  # the section below that has the rest
    anchor: str


def _capped(verdict: answers.Verdict, sick: bool) -> answers.Verdict:
    """A green verdict turns amber while the loop is sick."""
    return verdict._replace(level="warn") if sick and verdict.level == "good" else verdict


def _health(loop: dict[str, Any], intake: dict[str, Any]) -> Answer:
    verdict = answers.Verdict(loop["level"], loop_health.verdict(loop))
    if loop["level"] in ("good", "none"):
        return Answer("Is the loop healthy?", verdict, "", "Intake", "intake")
    items = [
        f"<li>{fig(loop['failed_events'], 'intake', 'totals', 'failed')} failed {_noun(loop['failed_events'], 'event', 'events')}, "
        f"{fig(loop['failed_at_cap'])} of them at the attempt cap</li>",
        f"<li>{fig(loop['refused_batches'])} {_noun(loop['refused_batches'], 'batch', 'batches')} refused in the window</li>",
        f"<li>{fig(loop['retrying'])} pending {_noun(loop['retrying'], 'event', 'events')} retrying after a failed attempt</li>",
    ]
    old = intake["oldest_pending"]
    if old:
        items.append(
            f"<li>oldest pending: {fig(loop['oldest_pending_days'])} days "
            f"(limit {loop['pending_days_limit']}), {code(' '.join(old['key']))} "
            f"{esc(old['title'] or '')}</li>"
        )
    last = loop["last_success"]
    items.append(
        f"<li>last successful run: {fig(last[:10])} ({plural(loop['last_success_days'] or 0, 'day')} ago)</li>"  # fmt: skip
        if last
        else "<li>no successful run yet</li>"
    )
    return Answer("Is the loop healthy?", verdict, f"<ul>{''.join(items)}</ul>", "Intake", "intake")


def _waiting(loop: dict[str, Any], body_href: Callable[[str | None], str | None]) -> Answer:
    wait = loop["waiting"]
    prs, refused, failed = wait["open_prs"], wait["refused_batches"], wait["failed_events"]
    if not prs and not refused and not failed:
        verdict = answers.Verdict("good", "Nothing waits on you")
        return Answer("What waits on you?", verdict, "", "Curator", "curator")
    parts = []
    if prs:
        parts.append(plural(len(prs), "open knowledge PR"))
    if refused:
        parts.append(plural(len(refused), "refused batch", "refused batches"))
    if failed:
        parts.append(plural(failed, "failed event"))
    verdict = answers.Verdict("bad" if failed else "warn", "Waiting on you: " + ", ".join(parts))
    body = ""
    if prs:
        body += (
            "<p>Open knowledge PRs to review:</p><ul>"
            + "".join(
                f"<li>{link(pr['url'], words.pull_request(pr['url']))} "
                f'<span class="id">{esc(_age(pr["age_days"]))}, {plural(pr["events"], "event")}'
                f"{', state not read' if pr['state'] == 'opened' else ''}</span></li>"
                for pr in prs[:SHOWN]
            )
            + "</ul>"
        )
    if refused:
        items = []
        for b in refused[:SHOWN]:
            why = ", ".join(f"{n} {r}" for r, n in b["reasons"].items())
            href = body_href(b["artifact"])
            where = f' (<a href="{esc(href)}">its PR body</a>)' if href else ""
            items.append(f"<li>{esc(b['day'])} {code(b['batch'])}: {esc(why)}{where}</li>")
        body += "<p>Batches whose every proposal was refused:</p><ul>" + "".join(items) + "</ul>"
    if failed:
        body += (
            f"<p>{fig(failed, 'intake', 'totals', 'failed')} failed events: "
            "<code>kb intake status</code> lists them with their reasons; "
            "<code>kb intake requeue --all-failed --reason WHY</code> tries them again.</p>"
        )
    return Answer("What waits on you?", verdict, body, "Curator", "curator")


def _noun(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


def _age(days: int | None) -> str:
    if days is None:
        return "age unknown"
    return "opened today" if days == 0 else f"open {plural(days, 'day')}"


def _card(answer: Answer) -> str:
    """One answer; an answer without a body is one line across the whole screen."""
    question, verdict, body, more, anchor = answer
    wide = "" if body else " wide"
    return (
        f'<article class="answer {verdict.level}{wide}"><h2>{esc(question)}</h2>'
        f'<p class="verdict">{esc(verdict.text)}</p>{body}'
        f'<p class="more"><a href="#{anchor}">{esc(more)} ↓</a></p></article>'
    )


def _tree(tree: dict[str, Any]) -> Answer:
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
    return Answer("Is the tree healthy, and getting better?", answers.tree_verdict(tree), body,
                 "Tree health", "tree")  # fmt: skip


def _came_and_decided(
    intake: dict[str, Any], cur: dict[str, Any], body_href: Callable[[str | None], str | None]
) -> Answer:
    """What came in (events by source, the newest titles), what the model proposed and
    what was decided, and the knowledge PRs (or why there is none)."""
    n, t = intake["recorded_in_window"], cur["totals"]
    came = f"{plural(n, 'event')} came in" if n else "Nothing came in"
    if t["proposals"]:
        decided = (
            f"{plural(t['proposals'], 'proposal')} in {plural(t['batches'], 'batch', 'batches')}: "
            f"{t['accepted']} accepted, {t['rejected']} rejected"
        )
        level = "good" if t["accepted"] else "warn"
    else:
        decided = (
            "the model proposed nothing" if t["batches"] else "no batch was distilled in the window"
        )
        level = "good" if n and t["batches"] else "none"
    verdict = answers.Verdict(level, f"{came}; {decided}")
    body = _arrived(intake) + _decisions(cur) + _prs(cur, intake, body_href)
    return Answer("What came in, and what was decided?", verdict, body, "Curator", "curator")


def _arrived(intake: dict[str, Any]) -> str:
    n = intake["recorded_in_window"]
    sources = "".join(
        f"<li>{fig(s['events'])} {esc(words.source(s))}</li>" for s in intake["by_source"]
    )
    listed = "".join(
        f"<li>{link(e['url'], e['title'] or e['source_id'])} "
        f'<span class="id">{esc(e["source_id"])}</span></li>'
        for e in intake["arrived"][:2]
    )
    if not n:
        return (
            f"<p>{fig(intake['events'], 'intake', 'totals', '*')} events in the ledger in all; "
            "events are recorded by <code>kb intake record-prs</code> and "
            "<code>kb intake collect</code>.</p>"
        )
    body = f"<p>Came in ({fig(n)}):</p>"
    body += f"<ul>{sources}</ul>" if sources else ""
    body += f'<ul class="titles">{listed}</ul>' if listed else ""
    rest = n - min(n, 2)
    if rest:
        body += f'<p class="more-items">and {plural(rest, "more event")}</p>'
    return body


def _decisions(cur: dict[str, Any]) -> str:
    t = cur["totals"]
    if not t["proposals"]:
        return (
            f"<p>{plural(t['batches'], 'batch', 'batches')} distilled in the window.</p>"
            if t["batches"]
            else "<p>No batch was distilled in the window (<code>kb distill</code>).</p>"
        )
    items = []
    for d in cur["decisions"][:DECISIONS]:
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
    body = f'<p>Decided:</p><ul class="decisions">{"".join(items)}</ul>'
    if rest > 0:
        body += f"<p>and {plural(rest, 'more proposal')}</p>"
    return body


def _prs(
    cur: dict[str, Any], intake: dict[str, Any], body_href: Callable[[str | None], str | None]
) -> str:
    prs = cur["knowledge_prs"]
    if prs:
        body = (
            f"<p>{esc(words.pr_states(prs))}:</p><ul>"
            + "".join(
                f"<li>{link(pr['url'], words.pull_request(pr['url']))}"
                f' <span class="id">{esc(pr["state"])}, {plural(pr["events"], "event")}</span></li>'
                for pr in prs[:3]
            )
            + "</ul>"
        )
        return body + f'<p class="source">{esc(words.pr_states_source(cur["knowledge_prs_read"]))}</p>'  # fmt: skip
    if not cur["totals"]["batches"]:
        return ""
    shadowed = fig(intake["states"]["shadowed"], "intake", "totals", "shadowed")
    body = (
        f"<p>No knowledge PR: the batches ran in shadow mode ({shadowed} events distilled "
        "without a PR). A PR is opened when distill runs with <code>POST_MODE=review</code>.</p>"
    )
    newest = cur["batches"][0] if cur["batches"] else None
    href = body_href(newest["artifact"]) if newest and not newest["pr"] else None
    if href is not None:
        body += f'<p>The newest: <a href="{esc(href)}">the PR body it would have sent</a>.</p>'
    return body


def _lessons(les: dict[str, Any]) -> Answer:
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
            "<code>KB_LESSONS=inject kb lessons bundle --assign hash</code> for a randomised "
            "one.</p>"
        )
    elif "error" in report:
        body += f"<p>{esc(report['error'])}</p>"
    return Answer("Are lessons helping?", verdict, body, "Lessons", "lessons")
