"""YAML is loaded within limits everywhere kbkit reads it: an alias bomb, an alias loop and a
huge integer are refused (exit 2 naming the file and line for configuration, a finding for a
page), never a MemoryError, a hang or a traceback (exit 3)."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from kbkit.infra.bounded_yaml import MAX_NODES, YamlLimitError, load_yaml

MEMORY_CAP = 2 << 30  # the child's address space: an unbounded load fails fast, not the host


def alias_bomb(key: str = "bomb", levels: int = 9) -> str:
    """A billion laughs: 10 values, each level 10 aliases to the one before (10^levels).
    Line 5 (`l4`) is where it first holds more than MAX_NODES values (collections count)."""
    lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, levels):
        lines.append(f"l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * 10) + "]")
    lines.append(f"{key}: *l{levels - 1}")
    return "\n".join(lines) + "\n"


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run_kb(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real `kb`, with its memory capped and a timeout (a hang fails the test)."""
    return subprocess.run(
        [sys.executable, "-m", "kbkit", *args],
        cwd=cwd, capture_output=True, text=True, timeout=60, preexec_fn=_capped,
    )  # fmt: skip


# --- the loader ---------------------------------------------------------------------------


def test_an_alias_bomb_is_refused_at_its_line_without_expanding() -> None:
    with pytest.raises(YamlLimitError) as caught:
        load_yaml(alias_bomb())
    assert f"expands to more than {MAX_NODES} values through YAML aliases" in str(caught.value)
    assert (
        caught.value.problem_mark is not None and caught.value.problem_mark.line == 4
    )  # l4: 111,111


def test_a_few_shared_aliases_load() -> None:
    assert load_yaml("a: &a [1, 2]\nb: *a\nc: {<<: {k: v}, d: *a}\n") == {
        "a": [1, 2],
        "b": [1, 2],
        "c": {"k": "v", "d": [1, 2]},
    }


def test_an_alias_inside_the_node_it_names_is_refused() -> None:
    with pytest.raises(YamlLimitError, match="inside the node it names"):
        load_yaml("a: &a [1, *a]\n")


@pytest.mark.parametrize("digits", ["1" * 100_000, "0x" + "f" * 10_000, "-" + "9" * 5_000])
def test_a_huge_integer_is_refused_not_converted(digits: str) -> None:
    with pytest.raises(YamlLimitError, match="an integer of .* characters"):
        load_yaml(f"n: {digits}\n")
    assert load_yaml(f"n: '{digits[:100]}'\n") == {"n": digits[:100]}  # quoted: text
    assert load_yaml("n: 12345678901234567890\n") == {"n": 12345678901234567890}


def test_a_value_python_cannot_build_is_a_yaml_error() -> None:
    with pytest.raises(yaml.YAMLError, match="day is out of range"):
        load_yaml("day: 2019-02-30\n")


# --- every reader, through the real command -----------------------------------------------


def test_a_100000_digit_integer_in_the_policy_is_exit_2_naming_the_line(tmp_path: Path) -> None:
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "kbkit.yaml").write_text("limits:\n  read_bytes: " + "7" * 100_000 + "\n")
    done = run_kb(tmp_path, "check", "--repo", str(tmp_path))
    assert done.returncode == 2, done.stderr[-2000:]
    assert "kbkit.yaml:2: invalid policy YAML: an integer of 100000 characters" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_alias_bomb_in_the_policy_is_exit_2(tmp_path: Path) -> None:
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "kbkit.yaml").write_text(alias_bomb("lint_exclude"))
    done = run_kb(tmp_path, "check", "--repo", str(tmp_path))
    assert done.returncode == 2, done.stderr[-2000:]
    assert "kbkit.yaml:5: invalid policy YAML: expands to more than" in done.stderr


def test_an_alias_bomb_in_the_intake_config_is_exit_2(tmp_path: Path) -> None:
    intake = tmp_path / "intake"
    intake.mkdir()
    (intake / "config.yaml").write_text(
        alias_bomb("aliases").replace("aliases: *l8", "aliases:\n  old/name: *l8")
    )
    (tmp_path / "pages.json").write_text("[]")
    done = run_kb(tmp_path, "intake", "record-prs", "--from", "pages.json", "--repo", ".")
    assert done.returncode == 2, done.stderr[-2000:]
    assert "config.yaml:5: not valid YAML (expands to more than" in done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in intake.iterdir()) == ["config.yaml"]  # nothing written


def test_an_alias_bomb_in_mkdocs_yml_stops_kb_init_with_exit_2(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n")
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n" + alias_bomb("docs_dir"))
    done = run_kb(tmp_path, "init", "--repo", str(tmp_path))
    assert done.returncode == 2, done.stderr[-2000:]
    assert "mkdocs.yml:6: not read: expands to more than" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [".git", "docs", "mkdocs.yml"]


def test_a_huge_integer_in_a_hugo_config_stops_kb_init_with_exit_2(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "_index.md").write_text("# Home\n")
    (tmp_path / "hugo.yaml").write_text("title: x\nparams:\n  n: " + "1" * 100_000 + "\n")
    done = run_kb(tmp_path, "init", "--repo", str(tmp_path))
    assert done.returncode == 2, done.stderr[-2000:]
    assert "hugo.yaml:3: not read: an integer of 100000 characters" in done.stderr


def test_an_alias_bomb_in_front_matter_is_a_finding_on_its_page(tmp_path: Path) -> None:
    from tests.kbtree import make_tree, page_text

    repo = make_tree(tmp_path / "team", {"fine": "Words."})
    bomb = "---\n" + alias_bomb("tags") + "---\n# Bomb\n"
    (repo / "knowledge/general/bomb.md").write_text(bomb)
    index = repo / "knowledge/general/_index.md"
    index.write_text(index.read_text() + "- [bomb](bomb.md)\n")
    (repo / "knowledge/general/fine.md").write_text(page_text("Fine", "Words."))
    done = run_kb(repo, "check")
    assert done.returncode == 1, done.stderr[-2000:]
    assert (
        "knowledge/general/bomb.md:6: lint/frontmatter-invalid [error] invalid YAML: "
        "expands to more than"
    ) in done.stdout, done.stdout
    assert "knowledge/general/fine.md" not in done.stdout
