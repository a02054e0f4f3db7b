"""The record a knowledge PR carries in its body: round trip, and bodies that lost it."""

from __future__ import annotations

import base64
import zlib

import pytest

from kbkit.distill.pr_body import Extras, render
from kbkit.distill.pr_record import BatchRecord, PrRecord, RecordError, decode, encode
from kbkit.infra import inert

ROW = {"target": "general/rules", "rule_id": "GEN-1c", "title": "Ask @acme/team about #3",
       "after": None, "group": None, "section": "### GEN-1c — x", "citations": ["acme/app#3"],
       "rationale": "r", "table_rows": None, "new_page": None}  # fmt: skip
BATCH = BatchRecord("b1", "2026-12-01", (("merged_pr", "acme/app#3"),), (ROW,), (), "ok\n")


def test_a_record_survives_the_body_it_is_rendered_into() -> None:
    record = PrRecord("2026-12-01", (BATCH,))
    body = render(record, Extras(report="## kbkit report, x to x\n"))
    assert decode(body) == record  # the copied title inert in the text, verbatim in the record
    assert inert.markdown(body) == body and "@&#8203;acme/team" in body
    hidden = encode(record)
    assert hidden.startswith("<!-- kbkit:record:v1 ") and "@" not in hidden and "#" not in hidden


def test_a_body_without_a_record_and_a_broken_one() -> None:
    assert decode("A description a reviewer wrote.") is None
    with pytest.raises(RecordError, match="does not decode"):
        decode("<!-- kbkit:record:v1 AAAA -->")
    deep = base64.b64encode(zlib.compress(b"[" * 100_000 + b"]" * 100_000)).decode()
    with pytest.raises(RecordError):  # JSON nested past any depth is a bad record, no crash
        decode(f"<!-- kbkit:record:v1 {deep} -->")
    wrong = base64.b64encode(zlib.compress(b'{"version": 1, "day": "d", "batches": [{}]}')).decode()
    with pytest.raises(RecordError, match="a batch lacks its sources or rows"):
        decode(f"<!-- kbkit:record:v1 {wrong} -->")
