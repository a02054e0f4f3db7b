"""A suppression comment that names no rule kbkit has is a typo, reported as such."""

from __future__ import annotations

import json
from pathlib import Path

from tests.kbtree import kb, make_tree


def test_a_suppression_naming_an_unknown_rule_is_invalid_with_a_suggestion(tmp_path: Path) -> None:
    repo = make_tree(
        tmp_path / "team",
        {
            "typo": "<!-- kb-disable-next-line tree/link-brokn: moved later -->\n[x](gone.md)",
            "other": "<!-- kb-disable-next-line nothing/here: moved later -->\nText.",
            "fine": "<!-- kb-disable-next-line tree/link-broken: moved later -->\n[x](gone.md)",
        },
    )
    done = kb(repo, "check", "--format", "json")
    found = [(f["path"], f["rule"], f["message"]) for f in json.loads(done.stdout)["findings"]]
    assert found == [
        (
            "knowledge/general/other.md",
            "kb/suppression-invalid",
            "unknown rule 'nothing/here' (`kb rules` lists them) in this suppression comment",
        ),
        (
            "knowledge/general/typo.md",
            "kb/suppression-invalid",
            "unknown rule 'tree/link-brokn': did you mean 'tree/link-broken'? in this suppression comment",
        ),
        (
            "knowledge/general/typo.md",
            "tree/link-broken",
            "broken link 'gone.md': nothing at knowledge/general/gone.md; fix the path or remove the link",
        ),
    ]
    # a validator run that does not own the prefix reports the typo all the same
    lint = kb(repo, "check-wiki-lint", "--format", "json")
    rules = [f["rule"] for f in json.loads(lint.stdout)["findings"]]
    assert rules == ["kb/suppression-invalid", "kb/suppression-invalid"]
