"""The source registry (kbkit.intake.sources) and the interface every source keeps, and the
shared schema's identities: any host's path and change id, every old ledger line still valid."""

from __future__ import annotations

import pytest

from kbkit.infra.errors import UsageError
from kbkit.intake import sources
from kbkit.intake.repo_identity import parse_slug
from kbkit.intake.schemas import EVENTS, schema_errors
from kbkit.intake.sources.base import ChangeSource, Source


def test_every_registered_source_keeps_the_interface() -> None:
    for name in sources.REGISTRY:
        module = sources.load(name)
        assert isinstance(module, Source), name
        assert name == module.NAME


def test_the_sources_of_merged_changes_are_the_hosts() -> None:
    assert sources.change_sources() == ["github", "gitlab"]
    assert isinstance(sources.change_source("gitlab"), ChangeSource)
    with pytest.raises(UsageError, match="the git source does not scan a host"):
        sources.change_source("git")
    with pytest.raises(UsageError, match="no intake source 'svn'; the sources are github, "):
        sources.load("svn")


@pytest.mark.parametrize(
    ("name", "repo", "key", "expected"),
    [
        ("github", "acme/app", "12", "acme/app#12"),
        ("git", "acme/app", "12", "acme/app#12"),
        ("gitlab", "group/sub/project", "12", "group/sub/project!12"),
        ("drop", "acme/app", "2026-11-30T08-00-00", "acme/app:2026-11-30T08-00-00"),
        ("mailbox", "acme/app", "run-1", "acme/app:run-1"),
    ],
)
def test_each_source_spells_its_change_ids(name: str, repo: str, key: str, expected: str) -> None:
    assert sources.load(name).change_id(repo, key) == expected


def merged(source_id: str, repo: str, via: str = "github", **extra: object) -> dict[str, object]:
    return {
        "source_kind": "merged_pr", "source_id": source_id, "repo": repo, "title": "t",
        "recorded_at": "2026-11-30T12:00:00Z", "via": via, "number": 12,
        "url": "https://github.com/acme/app/pull/12", "author": "alice",
        "merged_at": "2026-11-30T11:00:00Z", "labels": [], "draft": False, "summary": "",
        "diff_excerpt": "", **extra,
    }  # fmt: skip


def test_old_github_rows_validate_as_before() -> None:
    note = {"id": "acme/app#12:discussion_r5", "kind": "inline", "author": "bob",
            "association": "MEMBER", "role": "reviewer", "text": "x"}  # fmt: skip
    discussion = {"notes": [note], "read": 1, "omitted": 0, "bots": 0, "complete": True}
    assert schema_errors(EVENTS, merged("acme/app#12", "acme/app", discussion=discussion)) == []
    assert schema_errors(EVENTS, merged("acme/app#12", "acme/app", via="git")) == []


def test_a_gitlab_merge_request_with_nested_groups_validates() -> None:
    note = {"id": "group/sub/project!12:note_501", "kind": "conversation", "author": "bob",
            "association": "NONE", "role": "reviewer", "text": "x"}  # fmt: skip
    discussion = {"notes": [note], "read": 1, "omitted": 0, "bots": 0, "complete": True}
    row = merged("group/sub/project!12", "group/sub/project", "gitlab", discussion=discussion)
    assert schema_errors(EVENTS, row) == []


@pytest.mark.parametrize(
    ("source_id", "repo"),
    [
        ("group/sub/project#12", "group/sub/project"),  # GitHub's `#` names no nested path
        ("project!12", "project"),  # a project lives in a group
        ("acme/app!0", "acme/app"),
    ],
)
def test_ids_no_host_writes_are_still_refused(source_id: str, repo: str) -> None:
    assert schema_errors(EVENTS, merged(source_id, repo, "gitlab")) != []


def test_a_github_slug_is_still_owner_slash_name() -> None:
    assert parse_slug("Acme/App.git") == "acme/app"
    assert parse_slug("group/sub/project") is None
