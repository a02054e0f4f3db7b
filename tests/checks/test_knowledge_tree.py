"""Unit tests for the pure pieces of the tree validator and its whole-tree behaviour."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbkit.checks.knowledge_tree import page_findings
from kbkit.checks.rules import family
from kbkit.checks.rules.tree.danger import dangerous_commands, must_not_lines
from kbkit.checks.rules.tree.incidents import incident_fields, is_incident
from kbkit.checks.rules.tree.secrets import secret_findings
from kbkit.checks.runner import check_tree, load_for_checks, run_validators
from kbkit.pages.page import parse_page
from kbkit.policy.model import builtin_policy

RULES = family("tree/")
DEFAULT = builtin_policy("default")
INFERMATRIX = builtin_policy("infermatrix")
TODAY = date(2026, 11, 30)


def rules_of(text: str) -> list[str]:
    return sorted(f.rule_id for f in secret_findings("p.md", text, DEFAULT))


@pytest.mark.parametrize(
    "text",
    ["ssh 10.0.0.1", "http://192.168.1.7:8000/", "host=172.16.0.1", "user@8.8.8.8", "ip 1.2.3.4."],
)
def test_ip_addresses_are_found(text: str) -> None:
    assert rules_of(text) == ["tree/secret-ip"]


@pytest.mark.parametrize(
    "text",
    [
        "protobuf==4.25.3.1",
        "torch>=2.1.0.1",
        "pkg~=1.2.3.4",
        "v1.2.3.4",
        "1.2.3.4.5",
        "999.1.1.1",
        "127.0.0.1",
        "127.10.0.1",
        "0.0.0.0",
        "255.255.255.0",
        "192.0.2.1",
        "198.51.100.7",
        "203.0.113.9",
        "a1.2.3.4",
        "1.2.3.4a",
    ],
)
def test_version_strings_and_reserved_addresses_are_not_ips(text: str) -> None:
    assert rules_of(text) == []


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("cd /home/alice", "tree/secret-remote-home"),
        ("`/data/bob/x`", "tree/secret-remote-home"),
        ("HF_HOME=/data/bob", "tree/secret-remote-home"),
        ("PATH=$PATH:/home/carol/bin", "tree/secret-remote-home"),
        ("C:\\Users\\alice\\x", "tree/secret-windows-home"),
        ("C:/Users/alice/x", "tree/secret-windows-home"),
        ("d:\\\\users\\\\bob", "tree/secret-windows-home"),
        ("open /Users/carol/x", "tree/secret-windows-home"),
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n",
            "tree/secret-private-key",
        ),
        (
            "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBF0AAAABCACsomebase64\n",
            "tree/secret-private-key",
        ),
        ('"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0B\\n"', "tree/secret-private-key"),
    ],
)
def test_personal_paths_and_keys_are_found(text: str, rule: str) -> None:
    assert rules_of(text) == [rule]


@pytest.mark.parametrize(
    "text",
    [
        "tests/data/images",
        "./data/x",
        "src/home/alice",
        "/home/models",
        "/data/models/x",
        "/data/model",
        "/home/<user>",
        "/data/$USER/x",
        "/home/${USER}",
        "/Users/Shared/x",
        "C:\\Users\\Public",
        "https://example.com/home/alice",
        "-----BEGIN PUBLIC KEY-----",
    ],
)
def test_relative_paths_and_placeholders_are_not_secrets(text: str) -> None:
    assert rules_of(text) == []


def test_secrets_report_one_finding_per_rule_and_line() -> None:
    findings = secret_findings("p.md", "10.0.0.1 10.0.0.2\n\n10.0.0.3\n", DEFAULT)
    assert sorted((f.line, f.rule_id) for f in findings) == [
        (1, "tree/secret-ip"),
        (3, "tree/secret-ip"),
    ]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("rm -rf /tmp/x", ["rm with recursive and force flags"]),
        ("rm -fr x", ["rm with recursive and force flags"]),
        ("rm -r -f x", ["rm with recursive and force flags"]),
        ("rm -f -R x", ["rm with recursive and force flags"]),
        ("sudo rm --recursive --force x", ["rm with recursive and force flags"]),
        ("/bin/rm -rf x", ["rm with recursive and force flags"]),
        ("pkill -f python", ["pkill"]),
        ("killall -9 vllm", ["killall"]),
        ("find . -delete", ["find -delete"]),
        ("find . -exec rm {} \\;", ["find -exec rm"]),
        ("find . -execdir /bin/rm {} +", ["find -execdir rm"]),
        ("ls | xargs -0 rm", ["xargs rm"]),
        ("echo $(find /tmp -delete)", ["find -delete"]),
        ("RUN rm -rf /var/lib/apt/lists/*", ["rm with recursive and force flags"]),
        ("rm -r build && cd foo", []),
        ("rm -f a.txt", []),
        ("rm -- -rf", []),
        ("git rm -r --cached x", []),
        ("echo perform information", []),
        ("find . -name x -print", []),
    ],
)
def test_dangerous_commands(line: str, expected: list[str]) -> None:
    assert dangerous_commands(line) == expected


def test_must_not_lines_cover_the_bullet_and_its_continuation() -> None:
    text = "- Trigger: x\n- Must not: a\n  b\n- Must: c\n- **Must not**: d\n\ne\n"
    assert must_not_lines(text, ("Must not",)) == {2, 3, 5}
    assert must_not_lines("- 禁止：用 `--gpus all`\n- **禁止**：x\n", ("禁止",)) == {1, 2}
    assert must_not_lines("Must not: prose is not a bullet\n", ("Must not",)) == frozenset()


def test_incident_fields_need_exact_bullet_lines() -> None:
    text = "- 编号：`inc-1`\n- 状态: 已验证\n说明 - 归属：x\n* **搜索词**：a\n"
    fields = incident_fields(text, INFERMATRIX)
    assert fields["id"].value == "inc-1"
    assert fields["state"] == ("已验证", 2)
    assert fields["search"].value == "a"
    assert "owner" not in fields


def test_incident_scope_is_any_depth_below_incidents() -> None:
    assert is_incident("general/ops/incidents/a.md", DEFAULT)
    assert is_incident("general/ops/incidents/topic/a.md", DEFAULT)
    assert not is_incident("general/ops/incidents/_index.md", DEFAULT)
    assert not is_incident("general/ops/incidents.md", DEFAULT)


def test_page_findings_is_pure_and_scoped() -> None:
    data = b"# P\n\n[x](/abs) 10.0.0.1\n\n```\nrm -rf /\n```\n"
    page = parse_page("knowledge/general/p.md", data)
    first = page_findings("general/p.md", page, DEFAULT)
    assert first == page_findings(
        "general/p.md", parse_page("knowledge/general/p.md", data), DEFAULT
    )
    assert sorted(f.rule_id for f in first) == [
        "tree/danger-code",
        "tree/link-absolute",
        "tree/secret-ip",
    ]
    outside = page_findings("AGENTS.md", page, DEFAULT)  # T28: links and secrets only
    assert sorted(f.rule_id for f in outside) == ["tree/link-absolute", "tree/secret-ip"]
    assert page_findings("local/p.md", page, DEFAULT) == []
    assert all(f.rule_id in RULES for f in first)


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def small_tree(repo: Path, pages: int) -> None:
    names = [f"p{i}.md" for i in range(pages)]
    write(
        repo,
        {
            "knowledge/repos/_index.md": "# Repos\n",
            "knowledge/general/_index.md": "".join(f"- [{n}]({n})\n" for n in names),
            **{f"knowledge/general/{n}": f"# {n}\n" for n in names},
        },
    )


def test_group_status_ignores_folders_above_the_knowledge_root(tmp_path: Path) -> None:
    repo = tmp_path / "results" / "guides" / "checkout"  # B4: a CI workspace named like a group
    small_tree(repo, 8)
    findings, _ = run_validators(repo, DEFAULT, ("tree",), TODAY)
    assert [(f.path, f.rule_id) for f in findings] == [("knowledge/general", "tree/too-many-pages")]


def test_output_is_deterministic(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    small_tree(repo, 2)
    write(
        repo,
        {
            f"knowledge/repos/r{i}/{axis}/o/{sub}/_index.md": "# x\n"
            for i in range(3)
            for axis in ("models", "components")
            for sub in ("guides", "components", "models")
        },
    )
    first = check_tree(load_for_checks(repo, DEFAULT), ("tree",), TODAY)
    second = check_tree(load_for_checks(repo, DEFAULT), ("tree",), TODAY)
    assert first == second
    owner = [f for f in first if f.rule_id.startswith("tree/owner")]
    assert owner == sorted(owner, key=lambda f: f.path)
    assert {f.rule_id for f in owner} == {"tree/owner-nested", "tree/owner-guides"}


def test_registration_counts_each_link_once_in_a_flat_folder(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    names = [f"p{i}.md" for i in range(3000)]
    index = "".join(f"- [{n}]({n})\n" for n in names) + "- [again](p7.md#x)\n"
    write(
        repo,
        {
            "knowledge/repos/_index.md": "# Repos\n",
            "knowledge/general/guides/_index.md": index,
            "knowledge/general/_index.md": "- [g](guides/_index.md)\n",
            **{f"knowledge/general/guides/{n}": f"# {n}\n" for n in names},
        },
    )
    findings, _ = run_validators(repo, DEFAULT, ("tree",), TODAY)
    assert sorted(f.rule_id for f in findings) == [
        "tree/group-too-large",
        "tree/page-registered-twice",
        "tree/page-too-large",  # the index itself has 3001 lines
    ]


FRAGMENTS = st.sampled_from(
    [
        "\n",
        "```",
        "````",
        "~~~",
        "    ",
        "- ",
        "- Must not: ",
        "- 禁止：",
        "- State: ",
        "- ID: `",
        "`",
        "[x](",
        "](y.md)",
        "<!-- ",
        " -->",
        "10.0.0.",
        "1",
        "255",
        ".",
        "/home/",
        "/data/",
        "C:\\Users\\",
        "/Users/",
        "-----BEGIN ",
        "PRIVATE KEY-----",
        "rm -rf ",
        "find . -exec rm ",
        "| xargs rm",
        "--gpus=all",
        "---\n",
        "\r\n",
        "\ufeff",
        "é",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(FRAGMENTS, st.text(max_size=8)), max_size=40))
def test_page_findings_never_crash(parts: list[str]) -> None:
    data = "".join(parts).encode("utf-8", "surrogatepass")
    for rel in ("general/ops/incidents/2026-01-02-x.md", "AGENTS.md"):
        page = parse_page(f"knowledge/{rel}", data)
        findings = page_findings(rel, page, INFERMATRIX)
        assert findings == page_findings(rel, page, INFERMATRIX)
        assert all(f.rule_id in RULES and f.line >= 0 for f in findings)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="0123456789.= v-a\n:/", max_size=60))
def test_literal_first_ip_scan_equals_the_full_pattern(text: str) -> None:
    from kbkit.checks.rules.tree.secrets import _IPV4, _ipv4_matches

    expected = [(m.start(), m.group(0)) for m in _IPV4.finditer(text)]
    assert [(m.start(), m.group(0)) for m in _ipv4_matches(text)] == expected


CASES = Path(__file__).resolve().parents[1] / "cases" / "knowledge-tree"


@pytest.mark.parametrize(
    "case", sorted(p for p in CASES.glob("*/*") if p.is_dir()), ids=lambda p: p.name
)
def test_cached_analysis_and_direct_run_agree(case: Path, tmp_path: Path) -> None:
    """Cold, warm (cache, page text released) and a direct `run` report the same findings."""
    import shutil

    from kbkit.checks.knowledge_tree import check_policy
    from kbkit.policy.model import load_policy

    repo = tmp_path / "repo"
    shutil.copytree(case / "repo", repo, symlinks=True)
    args = (case / "case.yaml").read_text() if (case / "case.yaml").exists() else ""
    policy = INFERMATRIX if "infermatrix" in args else load_policy(repo)
    check_policy(policy)
    cold, _ = run_validators(repo, policy, ("tree",), TODAY)
    warm, _ = run_validators(repo, policy, ("tree",), TODAY)
    assert (repo / ".kbkit-cache").is_dir()
    direct = check_tree(load_for_checks(repo, policy), ("tree",), TODAY)
    assert cold == warm == direct


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.text(alphabet="sSeErR\\/:Cu x", max_size=16))
def test_windows_hint_scan_equals_the_two_substring_scans(text: str) -> None:
    from kbkit.checks.rules.tree.secrets import _WINDOWS_HINT

    assert (_WINDOWS_HINT.search(text) is not None) == ("sers\\" in text or "sers/" in text)
