"""Answers about whole page texts seen before, reused: a versioned docset repeats many of
its pages byte for byte, front matter and all, from one version's folder to the next (the
Learn-shaped docset 59% of its pages, etcd's 38%).

A page-local check whose answer depends on nothing else than the page's text and the policy
(the secret scan, the ids a page's anchors may name) asks `remembered`: a repeated text takes
the answer of its first page. Each question keeps its own bounded memo
(`kbkit.pages.repeated_bodies.Memo`: at most 4,096 texts, and none once it answers too few
lookups to pay for its digests), and all of them are dropped when another policy is asked
about (a long-running editor session may load a new one). A page's text is digested once,
however many questions are asked about it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from kbkit.pages.repeated_bodies import Memo, text_digest
from kbkit.policy.model import Policy

T = TypeVar("T")

# (the policy the memos answer for, {question: memo}) and (the last text asked about, its
# digest), each replaced whole, never changed in place: a thread reads one or the other
_HELD: list[tuple[Any, dict[str, Memo]]] = [(None, {})]
_LAST: list[tuple[str | None, bytes]] = [(None, b"")]


def remembered(
    question: str, text: str, policy: Policy, compute: Callable[[], T], variant: int = 0
) -> T:
    """`compute()`, the answer to `question` about `text` under `policy`, or the answer
    given before for the same text (and the same `variant`: what else the answer reads that
    the text alone does not decide)."""
    held = _HELD[0]
    if held[0] is not policy:
        held = _HELD[0] = (policy, {})
    memo = held[1].get(question)
    if memo is None:
        memo = held[1].setdefault(question, Memo())
    if not memo.on:
        return compute()
    last = _LAST[0]
    if last[0] is text:
        digest = last[1]
    else:
        digest = text_digest(text)
        _LAST[0] = (text, digest)
    return memo.recall((variant, digest), compute)
