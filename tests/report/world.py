"""A small real repository for report tests: a knowledge tree with hostile names, both
intake ledgers, one batch folder as distill writes it, and a lessons store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbkit.commands import intake_record_prs
from kbkit.distill.artifacts import Artifacts, batch_folder
from kbkit.infra.jsonl import append_rows
from kbkit.intake.ledger import append_status, load_status, record_events
from kbkit.lessons.extraction import extract
from kbkit.lessons.store import LessonStore
from tests.intake.intake_factories import make_pr, write_pages

HOSTILE = "<script>alert(\"x\")</script> 'q' \x1b[31mred"
HOSTILE_FILE = "evil-<script>alert(1)<-'q'-\x1b[31m.md"
HOSTILE_EVENT = {
    "source_kind": "bugfix_run",
    "source_id": "bugfix-hostile",
    "repo": "kbkit-dev/kbkit",
    "title": "Ping @kbkit-dev/core about #12",
    "url": "javascript:alert(1)",
    "recorded_at": "2026-11-29T12:00:00Z",
}
FRONT = '---\ntitle: "{title}"\ncreated: 2020-01-01\nupdated: {updated}\ntype: guide\ntags: [guide]\nsources: []\n---\n'


def page(title: str, updated: str, body: str) -> str:
    return FRONT.format(title=title, updated=updated) + f"\n# {title}\n\n{body}\n"


def build_tree(repo: Path) -> None:
    root = repo / "knowledge"
    (root / "general" / "guides").mkdir(parents=True)
    (root / "policy.yaml").write_text("taxonomy:\n  tags: [guide, index]\n")
    index = '---\ntitle: "General"\ncreated: 2026-11-01\nupdated: 2026-11-20\ntype: index\ntags: [index]\nsources: []\n---\n'
    (root / "general" / "_index.md").write_text(
        index + "\n# General\n\n- [Guides](guides/_index.md)\n"
    )
    (root / "general" / "guides" / "_index.md").write_text(
        index.replace("General", "Guides")
        + "\n# Guides\n\n- [Fresh](fresh.md)\n- [Old](old.md)\n- [Missing](missing.md)\n"
    )
    guides = root / "general" / "guides"
    (guides / "fresh.md").write_text(page("Fresh", "2026-11-25", "See [old](old.md)."))
    (guides / "old.md").write_text(page("Old", "2020-01-01", "x " * 5000))
    # not linked from the index: an orphan, and a name made to break naive renderers
    (guides / HOSTILE_FILE).write_text(page('Hostile \\" title', "2026-11-29", HOSTILE))


def build_intake(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    intake = repo / "intake"
    for day, numbers in (("2026-11-28", (1, 2)), ("2026-11-29", (3,)), ("2026-10-01", (4,))):
        monkeypatch.setenv("KBKIT_NOW", f"{day}T09:00:00Z")
        merged = f"{day}T08:00:00Z"  # merged an hour before it is recorded
        pages = write_pages(
            repo / f"pulls-{day}.json", [[make_pr(n, updated_at=merged) for n in numbers]]
        )
        assert intake_record_prs.main(["--repo", str(repo), "--from", str(pages)]) == 0
    # a hand-edited row: a title that pings people, an address that is a script
    record_events(intake, [HOSTILE_EVENT])
    monkeypatch.setenv("KBKIT_NOW", "2026-11-30T10:00:00Z")
    status = load_status(intake)
    batch = "2026-11-30T100000Z-abcdef12"
    for number in (1, 2):
        key = ("merged_pr", f"kbkit-dev/kbkit#{number}")
        append_status(intake, *key, "published", attempts=1, previous=status.get(key),
                      batch_id=batch, url="https://github.com/kbkit-dev/kbkit/pull/99")  # fmt: skip
    key = ("merged_pr", "kbkit-dev/kbkit#3")
    append_status(intake, *key, "failed", attempts=3, previous=status.get(key), reason="x")
    monkeypatch.setenv("KBKIT_NOW", "2026-11-30T12:00:00Z")
    art = Artifacts(batch_folder(repo / "state", "2026-11-30", batch), dry_run=False)
    art.write(
        "batch.json",
        {"events": [{"source_id": "kbkit-dev/kbkit#1"}, {"source_id": "kbkit-dev/kbkit#2"}]},
    )
    art.write(
        "validation.json",
        {
            "accepted": [
                {"rule_id": "VAL-2c", "title": "Normalize link targets", "model_index": 0,
                 "target": "general/guides/fresh"},
            ],
            "rejected": [
                {"reason": "rule-id-taken", "rule_id": "VAL-1b", "model_index": 1,
                 "message": "already defined in general/guides/old", "target": "general/guides/old"},
                {"reason": HOSTILE, "rule_id": "VAL-1c", "model_index": 2, "message": HOSTILE},
            ],
        },
    )  # fmt: skip
    art.write(
        "reply.txt",
        json.dumps({"proposals": [{"title": "Normalize link targets"},
                                  {"title": "Rule IDs keep their group digit"},
                                  {"title": HOSTILE}]}),
    )  # fmt: skip
    art.write(
        "apply.json",
        {"changes": [{"document_id": "general/guides/fresh"}], "validators": {"status": "passed"}},
    )
    art.write("commit.txt", "0123456789abcdef0123456789abcdef01234567\n")
    art.write("pr-body.md", "Knowledge intake for 2026-11-30, distilled by `kb distill`.\n")


def build_lessons(repo: Path, task: dict[str, object]) -> None:
    store = LessonStore.for_repo(repo)
    store.add([extract(task)])
    append_rows(
        store.log("usage"),
        [
            {
                "task": task["id"],
                "mode": "inject",
                "assign": "hash",
                "lessons": ["L"],
                "at": "2026-11-29T08:00:00Z",
            }
        ],
    )


def build_world(repo: Path, monkeypatch: pytest.MonkeyPatch, task: dict[str, object]) -> Path:
    repo.mkdir(parents=True, exist_ok=True)
    build_tree(repo)
    build_intake(repo, monkeypatch)
    build_lessons(repo, task)
    return repo


def load_json(text: str) -> dict[str, object]:
    data = json.loads(text)
    assert isinstance(data, dict)
    return data
