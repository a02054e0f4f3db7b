"""One knowledge tree, many repositories (issue #39 point 3): a central job scans several
repositories into one ledger, each with its own cursor; their events never collide."""

from __future__ import annotations

from pathlib import Path

import pytest
from intake_factories import make_pr
from tests.intake.test_github_scan import FakeGh

from kbkit.__main__ import main
from kbkit.intake.ledger import load_events
from kbkit.intake.merged_prs import read_cursor
from kbkit.intake.sources.github import files_endpoint, pulls_endpoint

REPOS = ("acme/app", "acme/lib")


def serve(gh: FakeGh, slug: str, numbers: list[int], updated: str) -> None:
    """`slug`'s closed pulls (one page) with no files and nobody's discussion."""
    route = pulls_endpoint(slug).rpartition("&page=")[0]
    gh.state["routes"][route] = {"pages": [[make_pr(n, repo=slug, updated_at=updated) for n in numbers]]}  # fmt: skip
    for n in numbers:
        gh.state["routes"][files_endpoint(slug, n)] = {"pages": [[]]}
        for part in (f"pulls/{n}/reviews", f"pulls/{n}/comments", f"issues/{n}/comments"):
            gh.state["routes"][f"repos/{slug}/{part}"] = {"items": []}
        gh.state.setdefault("threads", {})[f"{slug}#{n}"] = []
    gh.save()


@pytest.fixture
def gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeGh:
    fake = FakeGh(tmp_path, monkeypatch)
    serve(fake, REPOS[0], [1, 2], "2026-11-29T10:00:00Z")
    serve(fake, REPOS[1], [1], "2026-11-29T11:00:00Z")  # the same number in another repository
    return fake


def recorded(tmp_path: Path) -> list[str]:
    return sorted(key[1] for key in load_events(tmp_path / "intake"))


@pytest.mark.slow
def test_a_central_job_scans_every_slug_into_one_ledger(
    tmp_path: Path, gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["intake", "record-prs", "--slug", REPOS[0], "--slug", REPOS[1]]) == 0
    assert recorded(tmp_path) == ["acme/app#1", "acme/app#2", "acme/lib#1"]  # ids never collide
    assert read_cursor(tmp_path / "intake") == {
        "acme/app": "2026-11-29T10:00:00Z",
        "acme/lib": "2026-11-29T11:00:00Z",
    }
    out = capsys.readouterr().out
    assert "acme/app: 2 merged PR(s) recorded" in out and "acme/lib: 1 merged PR(s) recorded" in out
    assert "2 repositories scanned" in out
    calls = len(gh.load()["calls"])
    assert f"cost: {calls} GitHub call(s)" in out  # every gh call the run made, counted


@pytest.mark.slow
def test_the_repositories_may_be_listed_in_the_intake_config(
    tmp_path: Path, gh: FakeGh, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "intake").mkdir(exist_ok=True)
    (tmp_path / "intake" / "config.yaml").write_text("repos:\n  - acme/app\n  - Acme/Lib\n")
    assert main(["intake", "record-prs"]) == 0
    assert recorded(tmp_path) == ["acme/app#1", "acme/app#2", "acme/lib#1"]
    assert main(["intake", "record-prs"]) == 0  # again: nothing new, nothing doubled
    assert recorded(tmp_path) == ["acme/app#1", "acme/app#2", "acme/lib#1"]
    assert "0 merged PR(s) recorded, 1 already recorded" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("repos: acme/app\n", "`repos` must be a list of owner/name"),
        ("repos: [acme/app, 'not a slug']\n", "is not a repository slug"),
    ],
)
def test_a_bad_repository_list_names_the_file(
    tmp_path: Path, config: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "intake").mkdir(exist_ok=True)
    (tmp_path / "intake" / "config.yaml").write_text(config)
    assert main(["intake", "record-prs"]) == 2
    err = capsys.readouterr().err
    assert message in err and "config.yaml" in err and "Traceback" not in err
