"""policy.yaml is checked against the shipped JSON Schema, with size and alias budgets."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator, FormatChecker

import kbkit.policy
from kbkit.__main__ import main
from kbkit.infra.errors import UsageError
from kbkit.policy.model import PROFILES, builtin_policy, policy_from_file
from kbkit.policy.schema import MAX_POLICY_BYTES, SCHEMA_FILE, policy_schema


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text(text)
    return path


def refusal(tmp_path: Path, text: str) -> str:
    with pytest.raises(UsageError) as caught:
        policy_from_file(write(tmp_path, text))
    assert caught.value.exit_code == 2
    return str(caught.value)


def test_the_schema_is_draft_2020_12_and_shipped_in_the_package() -> None:
    schema = json.loads(SCHEMA_FILE.read_text())
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)
    assert SCHEMA_FILE.parent == Path(kbkit.policy.__file__).parent


@pytest.mark.slow
@pytest.mark.parametrize("name", PROFILES)
def test_every_built_in_profile_validates_whole(name: str) -> None:
    """Profiles are not validated at run time (they ship with kbkit): this is their check,
    with the oracle and with what a policy file goes through."""
    from kbkit.infra.bounded_yaml import load_yaml
    from kbkit.policy.model import _profile_text
    from kbkit.policy.schema import check_schema

    text = _profile_text(name)
    check_schema(load_yaml(text), text, name)
    data = builtin_policy(name).data
    errors = list(
        Draft202012Validator(policy_schema(), format_checker=FormatChecker()).iter_errors(data)
    )
    assert errors == []
    # every key of the effective policy is described by the schema (none slips through)
    assert set(data) <= set(policy_schema()["properties"])


def test_numbers_where_folder_names_belong_name_the_key_and_line(tmp_path: Path) -> None:
    message = refusal(tmp_path, "version: 1\nroots: [5.1, 7.4]\n")
    assert "policy.yaml:2:" in message
    assert "'roots[0]'" in message
    assert "must be text" in message


def test_a_nested_type_error_points_at_its_line(tmp_path: Path) -> None:
    message = refusal(tmp_path, "limits:\n  fanout_warn: 7\n  group_max: lots\n")
    assert "policy.yaml:3:" in message and "'limits.group_max'" in message


def test_an_unknown_key_is_named_with_its_line(tmp_path: Path) -> None:
    message = refusal(tmp_path, "secrets:\n  home_allow: []\n  bogus: 1\n")
    assert "policy.yaml:3:" in message and "'secrets.bogus'" in message
    assert "unknown policy key" in message


def test_an_unknown_rule_id_is_refused(tmp_path: Path) -> None:
    message = refusal(
        tmp_path, "overrides:\n  - files: [x.md]\n    rules: {tree/secret-ipv4: off}\n"
    )
    assert "policy.yaml:3:" in message and "unknown rule 'tree/secret-ipv4'" in message
    assert "did you mean 'tree/secret-ip'?" in message


def test_an_unknown_severity_is_refused(tmp_path: Path) -> None:
    message = refusal(tmp_path, "rules:\n  tree/secret-ip: info\n")
    assert "policy.yaml:2:" in message and "'rules.tree/secret-ip'" in message


def test_policy_typos_get_plain_words_and_a_suggestion(tmp_path: Path) -> None:
    severity = refusal(tmp_path, "rules:\n  tree/secret-ip: warn\n")
    assert severity.endswith("'warn' is not one of: off, warning or error; did you mean 'warning'?")
    assert "[" not in severity  # no Python list repr
    key = refusal(tmp_path, "secrets:\n  home_alow: []\n")
    assert "policy.yaml:2:" in key
    assert "unknown policy key: did you mean 'home_allow'? (known here: " in key
    top = refusal(tmp_path, "taxnomy:\n  tags: [a]\n")
    assert "'taxnomy': unknown policy key: did you mean 'taxonomy'?" in top
    model = refusal(tmp_path, "index:\n  model: tocs\n")
    assert model.endswith(
        "'tocs' is not one of: index-page, toc, parent or none; did you mean 'toc'?"
    )
    far = refusal(tmp_path, "rules:\n  tree/secret-ip: 3\n")
    assert far.endswith("3 is not one of: off, warning or error")
    nothing_near = refusal(tmp_path, "rules:\n  zzz/qqq: off\n")
    assert "unknown rule 'zzz/qqq' (`kb rules` lists them)" in nothing_near


def test_an_alias_bomb_is_refused_before_expansion(tmp_path: Path) -> None:
    lines = ["a: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 9):
        lines.append(f"l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * 10) + "]")
    lines.append("taxonomy:\n  tags: *l8")
    started = time.perf_counter()
    message = refusal(tmp_path, "\n".join(lines) + "\n")
    assert time.perf_counter() - started < 2
    assert "YAML aliases" in message


def test_a_few_aliases_are_fine(tmp_path: Path) -> None:
    policy = policy_from_file(write(tmp_path, "roots: &r [general, repos]\nlint_exclude: *r\n"))
    assert policy.data["lint_exclude"] == ["general", "repos"]


def test_an_oversized_policy_is_refused_unread(tmp_path: Path) -> None:
    message = refusal(tmp_path, "# " + "x" * MAX_POLICY_BYTES + "\n")
    assert f"at most {MAX_POLICY_BYTES} bytes" in message


def test_validators_may_be_empty_and_off_may_be_unquoted(tmp_path: Path) -> None:
    policy = policy_from_file(write(tmp_path, "validators: []\nrules:\n  lint/orphan: off\n"))
    assert policy.data["validators"] == []
    assert policy.data["rules"]["lint/orphan"] is False  # YAML 1.1; scopes read it as off


def test_a_bad_policy_exits_2_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "knowledge" / "policy.yaml").write_text("roots: [5.1, 7.4]\n")
    code = main(["check", "--repo", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert "knowledge/policy.yaml:1: policy key 'roots[0]'" in err
    assert "Traceback" not in err


def test_a_frontmatter_schema_must_be_a_json_schema(tmp_path: Path) -> None:
    message = refusal(tmp_path, "frontmatter:\n  schema:\n    type: 12\n")
    assert "policy.yaml:2:" in message and "'frontmatter.schema'" in message
    assert "not a valid JSON Schema" in message


def test_a_frontmatter_schema_may_ref_only_what_it_can_reach(tmp_path: Path) -> None:
    """A `$ref` jsonschema cannot resolve was a traceback when the first page reached it."""
    typo = "frontmatter:\n  schema:\n    $ref: urn:kbkit:frontmatter:defualt\n"
    message = refusal(tmp_path, typo)
    assert "policy.yaml:3:" in message and "'frontmatter.schema.$ref'" in message
    assert "urn:kbkit:frontmatter:default" in message  # what it could name instead
    remote = "overrides:\n  - files: [a]\n    frontmatter:\n      schema:\n"
    remote += "        properties: {x: {$ref: 'https://example.org/s.json'}}\n"
    assert "policy.yaml:5:" in refusal(tmp_path, remote)
    fine = (
        "frontmatter:\n  schema:\n    $ref: 'urn:kbkit:frontmatter:infermatrix'\n"
        "    $defs: {owner: {type: string}}\n"
        "    properties: {owner: {$ref: '#/$defs/owner'}, type: {$ref: 'urn:x#/$defs/t'}}\n"
        "    allOf: [{$id: 'urn:x', $defs: {t: {enum: [guide]}}}]\n"
    )
    policy = policy_from_file(write(tmp_path, fine))
    assert policy.data["frontmatter"]["schema"]["$ref"] == "urn:kbkit:frontmatter:infermatrix"


ORACLE_CASES = [
    {},
    {"roots": ["a", "b"], "limits": {"fanout_warn": 3}},
    {"roots": [5.1, 7.4]},
    {"limits": {"fanout_warn": True}},
    {"limits": {"fanout_warn": -1}},
    {"secrets": {"bogus": 1}},
    {"rules": {"tree/secret-ip": False, "lint/orphan": "warning"}},
    {"rules": {"tree/secret-ip": "info"}},
    {"rules": {"Not A Rule": "off"}},
    {"rules": {"labels": {"must": []}}},
    {"overrides": [{"files": ["x/"], "rules": {"lint/orphan": "off"}}]},
    {"overrides": [{"rules": {}}]},
    {"overrides": [{"files": [], "rules": {}}]},
    {"overrides": [{"files": ["a"], "frontmatter": {"required": ["title"], "schema": None}}]},
    {"incidents": {"name_pattern": "[unclosed"}},
    {"validators": []},
    {"validators": [[]]},
    {"validator_timeout": 0},
    {"version": 2},
    {"links": {"site_root": "../x"}},
    {"links": {"site_root": ".", "extensions": {".html": [".html.md"], "": [".md"]}}},
    {"links": {"extensions": {"html": [".md"]}}},
    {"index": {"model": "toc", "toc": "SUMMARY.md"}},
    {"index": {"model": "tree"}},
    {"danger": {"commands": ["pkill", "rm -rf"]}},
    {"taxonomy": {"file": None, "tags": ["a", 1]}},
]


@pytest.mark.parametrize("document", ORACLE_CASES, ids=lambda d: json.dumps(d)[:60])
def test_the_hand_written_validator_agrees_with_jsonschema(document: dict) -> None:
    from kbkit.policy.schema import first_error

    schema = policy_schema()
    oracle = Draft202012Validator(schema, format_checker=FormatChecker())
    expected = [list(e.absolute_path) for e in oracle.iter_errors(document)]
    found = first_error(document, schema, schema, [])
    assert (found is None) == (expected == [])
    if found is not None:
        # the reported place is one jsonschema reports too (or the key below it, for an
        # unknown key, which jsonschema reports on its mapping)
        assert found.path in expected or found.path[:-1] in expected
