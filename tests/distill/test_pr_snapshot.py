"""`state/knowledge-prs.json`: the knowledge PRs as the last run in review mode saw them on
GitHub, for the offline report."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.distill.world import ScriptedGateway, World, world_fixture

pytestmark = pytest.mark.slow  # make test-all: whole distill runs against the GitHub stand-in

__all__ = ["world_fixture"]


def snapshot(world: World) -> dict[str, Any]:
    return json.loads((world.state / "knowledge-prs.json").read_text())


def test_each_run_leaves_the_prs_it_read_and_the_one_it_opened(world: World) -> None:
    world.review()
    world.record(1)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}))
    first = snapshot(world)
    assert first["read"] == "2026-11-30"
    assert [(p["number"], p["state"], p["rules"]) for p in first["prs"]] == [(1, "open", ["VAL-2c"])]  # fmt: skip
    world.merge_pr(1, method="squash")
    world.record(2)
    world.run(ScriptedGateway({"acme/app#2": "VAL-2d"}), day="2026-12-01")
    second = snapshot(world)
    assert second["read"] == "2026-12-01"
    states = [(p["number"], p["state"], p["day"]) for p in second["prs"]]
    assert states == [(1, "merged", "2026-11-30"), (2, "open", "2026-12-01")]
    assert all(p["url"].endswith(f"/pull/{p['number']}") for p in second["prs"])


def test_a_dry_run_leaves_no_snapshot(world: World) -> None:
    world.review()
    world.record(1)
    world.run(ScriptedGateway({"acme/app#1": "VAL-2c"}), dry_run=True)
    assert not (world.state / "knowledge-prs.json").exists()
