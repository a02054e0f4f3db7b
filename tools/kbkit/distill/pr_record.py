"""The record a knowledge PR carries in its own body: every batch on it, readable by any runner.

A fresh CI runner has no `state/` from yesterday, so what kbkit needs to keep a PR correct
lives in the PR: for each batch its id, day, source events, the accepted proposals (as
wire rows the curator can validate and apply again on a newer main), the rejected ones with
their reasons and the gate's transcript; and the rules that stopped applying. It travels
as one hidden HTML comment at the end of the body, `<!-- kbkit:record:v1 DATA -->`, DATA
being base64 of zlib-compressed JSON: nothing in it renders, notifies or links, and a body
that lost it (a reviewer's edit) is reported, never guessed at.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from typing import Any, NamedTuple

from kbkit.infra.json_input import loads
from kbkit.intake.ledger import Key

RECORD = re.compile(r"<!-- kbkit:record:v1 ([A-Za-z0-9+/=]+) -->")
TRANSCRIPT_CHARS = 4000  # of the gate's transcript kept per batch (the body shows it collapsed)
VERSION = 1


class RecordError(ValueError):
    """The body holds a record that cannot be read (cut, edited or from another tool)."""


class BatchRecord(NamedTuple):
    batch_id: str
    day: str
    sources: tuple[Key, ...]
    rows: tuple[dict[str, Any], ...]  # accepted proposals as wire rows, in reply order
    rejected: tuple[dict[str, Any], ...] = ()  # model_index, rule_id, reason, message
    transcript: str = ""

    def rule_ids(self) -> list[str]:
        return [str(row["rule_id"]) for row in self.rows]

    def to_dict(self) -> dict[str, Any]:
        return {
            "batch_id": self.batch_id,
            "day": self.day,
            "sources": [list(key) for key in self.sources],
            "rows": list(self.rows),
            "rejected": list(self.rejected),
            "transcript": self.transcript,
        }

    @classmethod
    def from_dict(cls, data: Any) -> BatchRecord:
        if not isinstance(data, dict):
            raise RecordError("a batch is not an object")
        sources = data.get("sources")
        rows = data.get("rows")
        if not isinstance(sources, list) or not isinstance(rows, list):
            raise RecordError("a batch lacks its sources or rows")
        keys: list[Key] = []
        for source in sources:
            if not (isinstance(source, list) and len(source) == 2 and all(isinstance(x, str) for x in source)):  # fmt: skip
                raise RecordError("a source is not [kind, id]")
            keys.append((source[0], source[1]))
        for row in rows:
            if not isinstance(row, dict) or not isinstance(row.get("rule_id"), str):
                raise RecordError("a proposal row has no rule_id")
        rejected = data.get("rejected") or []
        if not isinstance(rejected, list) or not all(isinstance(r, dict) for r in rejected):
            raise RecordError("rejected proposals are not a list of objects")
        for name in ("batch_id", "day"):
            if not isinstance(data.get(name), str) or not data[name]:
                raise RecordError(f"a batch has no {name}")
        return cls(
            data["batch_id"],
            data["day"],
            tuple(keys),
            tuple(rows),
            tuple(rejected),
            str(data.get("transcript") or ""),
        )


class PrRecord(NamedTuple):
    day: str
    batches: tuple[BatchRecord, ...] = ()
    dropped: tuple[dict[str, Any], ...] = ()  # rules that stopped applying: rule_id, reason, ...

    def sources(self) -> list[Key]:
        """Every source event the PR lists, in batch order, each once."""
        seen: dict[Key, None] = {}
        for batch in self.batches:
            for key in batch.sources:
                seen.setdefault(key, None)
        return list(seen)

    def rule_ids(self) -> list[str]:
        return [rule for batch in self.batches for rule in batch.rule_ids()]

    def rows(self) -> list[dict[str, Any]]:
        return [row for batch in self.batches for row in batch.rows]

    def with_batch(self, batch: BatchRecord) -> PrRecord:
        kept = tuple(b for b in self.batches if b.batch_id != batch.batch_id)
        return self._replace(batches=(*kept, batch))

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "day": self.day,
            "batches": [b.to_dict() for b in self.batches],
            "dropped": list(self.dropped),
        }

    @classmethod
    def from_dict(cls, data: Any) -> PrRecord:
        if not isinstance(data, dict) or data.get("version") != VERSION:
            raise RecordError(f"not a version {VERSION} record")
        batches = data.get("batches")
        dropped = data.get("dropped") or []
        if not isinstance(batches, list) or not isinstance(dropped, list):
            raise RecordError("batches or dropped is not a list")
        if not isinstance(data.get("day"), str):
            raise RecordError("the record has no day")
        return cls(
            data["day"],
            tuple(BatchRecord.from_dict(b) for b in batches),
            tuple(d for d in dropped if isinstance(d, dict)),
        )


def encode(record: PrRecord) -> str:
    """The hidden HTML comment that carries `record` (one line, base64 of zlib'd JSON)."""
    raw = json.dumps(record.to_dict(), ensure_ascii=False, sort_keys=True).encode("utf-8")
    data = base64.b64encode(zlib.compress(raw, 9)).decode("ascii")
    return f"<!-- kbkit:record:v1 {data} -->"


def decode(body: str) -> PrRecord | None:
    """The record in a PR body; None when the body carries none. RecordError when it carries
    one that cannot be read."""
    found = RECORD.findall(body or "")
    if not found:
        return None
    try:
        raw = zlib.decompress(base64.b64decode(found[-1], validate=True))
        data = loads(raw.decode("utf-8"))  # deep JSON from a body is a bad record, no crash
    except (binascii.Error, zlib.error, UnicodeDecodeError, ValueError) as exc:
        raise RecordError(f"the record does not decode ({type(exc).__name__})") from exc
    return PrRecord.from_dict(data)
