"""Shared fixtures: tests run in a temp cwd and may never change the project's own data."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]
SHARED = PROJECT.parent / "shared"
CORPUS = SHARED / "corpus"
GUARDED = ("knowledge", "intake")
PINNED_NOW = "2026-11-30T12:00:00Z"


def _digest_guarded() -> str:
    digest = hashlib.sha256()
    for name in GUARDED:
        for path in sorted((PROJECT / name).rglob("*")):
            if path.is_file() and ".kbkit-locks" not in path.parts:
                digest.update(str(path.relative_to(PROJECT)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def pytest_configure(config: pytest.Config) -> None:
    """`KBKIT_TEST_WALL_CLOCK=2041-07-15T20:00:00Z make test` runs the suite with this
    process's wall clock moved there (time-machine, ticking): the proof that no test depends
    on the real date (`make test-dates` runs two dates far apart)."""
    wall = os.environ.get("KBKIT_TEST_WALL_CLOCK")
    if wall:
        import time_machine

        time_machine.travel(wall, tick=True).start()


@pytest.fixture(scope="session", autouse=True)
def project_data_untouched() -> Iterator[None]:
    """Fail loudly if any test wrote into the project's own knowledge/ or intake/."""
    before = _digest_guarded()
    shared_before = _shared_listing()
    yield
    assert _digest_guarded() == before, "a test modified the project's knowledge/ or intake/"
    assert _shared_listing() == shared_before, "a test wrote into ../shared (read-only input)"


def _shared_listing() -> list[str]:
    """Names under ../shared/corpus (a cache folder appearing there is a write)."""
    if not CORPUS.exists():
        return []
    return sorted(str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*"))


@pytest.fixture(autouse=True)
def isolated_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test starts in an empty temp folder, so a default `--repo .` is harmless."""
    monkeypatch.chdir(tmp_path)
    # An empty .git folder marks this test's folder as the repository root for kbkit's
    # upward search (git itself ignores an empty .git and keeps looking, so `git init` here
    # still works); a kbkit.yaml marker would be read as the top-level policy.
    (tmp_path / ".git").mkdir(exist_ok=True)
    from kbkit.infra import settings

    renamed = [v for v in settings.VARIABLES.values() if v.old]  # under every name they had
    for name in [name for v in renamed for name in (v.name, *v.old)] + [
        "KBKIT_STATE_ROOT",
        "KBKIT_TRACE_STEPS",
        "GITHUB_EVENT_NAME",
    ]:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(settings, "_noted", set())  # each test sees the renaming notes anew
    # The clock every kbkit call reads: tests never depend on the real date (`make test`
    # passes under faketime at any date; tests that need another instant set their own).
    monkeypatch.setenv("KBKIT_NOW", PINNED_NOW)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "kbkit tests")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "tests@kbkit.invalid")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "kbkit tests")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "tests@kbkit.invalid")


def corpus_or_skip(*parts: str) -> Path:
    """A path inside ../shared/corpus, or skip the test when the corpus is not here."""
    path = CORPUS.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not present")
    return path


def run_env() -> dict[str, str]:
    return dict(os.environ)
