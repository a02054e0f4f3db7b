"""The curator obeys the repository boundary every command shares (`kbkit.infra.boundary`)
and keeps its own stable reason for it: `escape:`."""

from __future__ import annotations

import pytest

from kbkit.curator import KnowledgeCurationError, KnowledgeCurator
from tests.curator.conftest import make_clone
from tests.outside import SECRET, fingerprint, victim


@pytest.mark.parametrize("policy_file", ["knowledge/policy.yaml", "kbkit.yaml"])
def test_a_policy_naming_a_root_outside_the_clone_is_an_escape(tmp_path, policy_file) -> None:
    clone = make_clone(tmp_path / "clone")
    out = victim(tmp_path)
    before = fingerprint(out)
    policy = clone / policy_file
    text = policy.read_text() if policy.exists() else "version: 1\n"
    policy.write_text(text + "knowledge_root: ../victim\n")
    with pytest.raises(KnowledgeCurationError) as raised:
        KnowledgeCurator(clone).catalog()
    message = str(raised.value)
    # the curator's reason, the shared rule's one sentence (it names where the root was set)
    assert message == (
        f"escape: the knowledge root ../victim (knowledge_root in {policy_file}) leads outside "
        "the repository (through a symlink or `..`); refused: kbkit reads and writes only "
        "inside the repository"
    )
    assert SECRET not in message
    assert fingerprint(out) == before
