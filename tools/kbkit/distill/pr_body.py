"""What a knowledge PR says: its body, the comment per added batch, the comment per rebuild.

Everything is rendered from the PR's record (`pr_record`), so a runner without yesterday's
`state/` writes the same body: per batch its source events, the rules proposed, the ones
rejected with their reasons and the validator transcript (collapsed); what waits; what
stopped applying; then the day's report; the record itself last. Copied text is made inert
(`kbkit.infra.inert`): a title quoting `@org/team` or `#12` notifies and links nothing.
The body stays within GitHub's 65,536 characters: the report is cut first, then the batches,
never the record.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from kbkit.distill.pr_record import BatchRecord, PrRecord, encode
from kbkit.infra import inert
from kbkit.intake.ledger import Key

BODY_LIMIT = 65_536  # characters: GitHub refuses a longer PR body
REPORT_ROOM = 8_000  # the report keeps this much of an over-long body (its tables are small)
FENCE = "```"
TITLE_CHARS = 200
REPORT_HEADING = "## kbkit report"  # how the day's report (`kb report --format markdown`) starts


class Extras(NamedTuple):
    """What the body shows beside the record."""

    follow_up_of: int | None = None
    waiting: str = ""  # markdown: what waits for a later batch
    report: str = ""  # the day's `kb report --format markdown`
    commits: Mapping[str, str] = {}  # batch id -> its commit on the head


def key_line(key: Key) -> str:
    """A source event as a code span (GitHub links nothing inside code)."""
    return f"`{key[0]} {key[1]}`".replace("\n", " ")


def one_line(text: object, limit: int = TITLE_CHARS) -> str:
    return " ".join(str(text).split())[:limit]


def fenced(text: str) -> list[str]:
    """`text` in a code fence longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, text, fence]


def batch_section(batch: BatchRecord, commit: str | None = None) -> str:
    """One batch as the body (and the comment that announced it) shows it."""
    heading = f"## Batch {batch.batch_id}" + (f" ({commit[:12]})" if commit else "")
    lines = [heading, "", "Source events:"]
    lines += [f"- {key_line(key)}" for key in batch.sources]
    if batch.rows:
        lines += ["", "Proposed rules:"]
        lines += [
            f"- `{row['rule_id']}` on `{row['target']}`: {one_line(row.get('title', ''))}"
            for row in batch.rows
        ]
    if batch.rejected:
        lines += ["", "Rejected proposals:"]
        lines += [
            f"- row {r.get('model_index')} (`{one_line(r.get('rule_id'), 60)}`): "
            f"{r.get('reason')}: {one_line(r.get('message', ''), 300)}"
            for r in batch.rejected
        ]
    transcript = batch.transcript.strip() or "(none)"
    lines += ["", "<details><summary>Validator transcript</summary>", ""]
    lines += [*fenced(transcript), "", "</details>", ""]
    return "\n".join(lines)


def dropped_section(dropped: Sequence[Mapping[str, Any]]) -> str:
    if not dropped:
        return ""
    lines = ["## No longer applies", ""]
    lines += [
        "These rules were in this PR, but `main` moved and they no longer apply; their "
        "events went back to pending and will be distilled again against the new `main`.",
        "",
    ]
    for item in dropped:
        sources = ", ".join(key_line((str(k[0]), str(k[1]))) for k in item.get("sources") or [])
        lines.append(
            f"- `{one_line(item.get('rule_id'), 60)}` on `{one_line(item.get('target'), 200)}`: "
            f"{item.get('reason')}: {one_line(item.get('message', ''), 300)}"
            + (f" (events: {sources})" if sources else "")
        )
    return "\n".join(lines) + "\n\n"


def render(record: PrRecord, extras: Extras | None = None) -> str:
    """The PR body: the batches, what waits, what stopped applying, the report, the record."""
    extras = extras or Extras()
    head = f"Knowledge intake for {record.day}, distilled by `kb distill`.\n\n"
    if extras.follow_up_of:  # kbkit's own link to the day's earlier PR stays live
        head += f"Follow-up of #{extras.follow_up_of} (merged or closed): the batches below are new.\n\n"  # fmt: skip
    lines = [
        "A model proposed these rule sections; kbkit validated each one mechanically and ran "
        "the validators. Review them like any other change. This branch belongs to the bot: "
        "whenever `main` moves, kbkit rebuilds it on the new `main` (each batch's proposals "
        "applied again and the validators run again), so push nothing to it.",
        "",
    ]
    for batch in record.batches:
        lines.append(batch_section(batch, extras.commits.get(batch.batch_id)))
    main = head + inert.markdown("\n".join(lines) + "\n" + extras.waiting + dropped_section(record.dropped))  # fmt: skip
    tail = "\n" + encode(record) + "\n"
    return fit_body(main, inert.markdown(extras.report), BODY_LIMIT - len(tail)) + tail


def batch_comment(batch: BatchRecord, commit: str | None) -> str:
    """The comment that announces a batch added to an open PR."""
    return inert.markdown(f"A new batch joined this PR.\n\n{batch_section(batch, commit)}")


def rebuild_comment(
    main_sha: str,
    kept: list[str],
    dropped: Sequence[Mapping[str, Any]],
    transcript: str,
    already: Sequence[str] = (),
) -> str:
    """The comment after a rebuild on a newer main."""
    lines = [
        f"`main` moved (now {main_sha[:12]}): kbkit rebuilt this branch on it, applying every "
        "batch's proposals again and running the validators.",
        "",
        f"Still proposed: {', '.join(f'`{r}`' for r in kept) or 'nothing'}.",
    ]
    if already:
        lines += ["", f"On `main` already, word for word: {', '.join(f'`{r}`' for r in already)}."]  # fmt: skip
    if dropped:
        lines += ["", dropped_section(dropped).strip()]
    if transcript.strip():
        lines += ["", "<details><summary>Validator transcript</summary>", ""]
        lines += [*fenced(transcript.strip()), "", "</details>"]
    return inert.markdown("\n".join(lines) + "\n")


def fit_body(main: str, report: str, limit: int = BODY_LIMIT) -> str:
    """`main` then `report` within `limit` characters: the report is cut first, down to
    REPORT_ROOM; past that `main` is cut too. Each cut part ends with a note."""
    report_room = max(limit - len(main), min(len(report), REPORT_ROOM))
    report = cut_text(report, report_room, "the report")
    return cut_text(main, limit - len(report), "the batches") + report


def cut_text(text: str, limit: int, what: str) -> str:
    """`text` itself when it fits in `limit` characters; else cut at a line end, an open
    code fence closed, and a note saying what was cut."""
    if len(text) <= limit:
        return text
    note = (
        f"\n_{what.capitalize()} cut here: the PR body would pass GitHub's {BODY_LIMIT:,} "
        "characters. The batch comments, the workflow's uploaded artifacts and "
        "`kb report --format markdown` have everything._\n\n"
    )
    head = text[: max(0, limit - len(note) - len(FENCE) - 1)]
    head = head[: head.rfind("\n") + 1]  # whole lines only ("" when there is no line end)
    if sum(line.startswith(FENCE) for line in head.splitlines()) % 2:
        head += FENCE + "\n"
    return head + note
