"""Sensitive-text rules report secrets, not numbers that look like them (issue #12)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from kbkit.checks.rules.tree.secrets import secret_findings
from kbkit.policy.model import builtin_policy

DEFAULT = builtin_policy("default")


def rules_of(text: str) -> list[str]:
    return sorted({f.rule_id for f in secret_findings("p.md", text, DEFAULT)})


@pytest.mark.parametrize(
    "text",
    [
        "the box at 10.20.30.40 is down",
        "10.0.0.5 is the gateway",
        "- 172.16.5.4",
        "connect to 1.2.3.4:22",
        "range 2.3.4.0/24",
        "ssh root@4.9.9.1",
        "nameserver 1.1.1.2",
    ],
)
def test_addresses_in_address_like_context_are_found(text: str) -> None:
    assert rules_of(text) == ["tree/secret-ip"]


@pytest.mark.parametrize(
    "text",
    [
        "171.09.21.207",  # leading zeros: not how an address is written
        "10.020.30.40",
        "version 1.2.3.4",
        "Version: 10.2.3.4",
        "release 10.20.30.40",
        "section 4.9.9.1",
        "see 4.9.9.1 for the details",
        "### 4.9.9.1 Certificate Policies",
        "RFC 5280 § 4.2.1.3",
        "OID 2.5.29.37",
        "extended key usage (2.5.29.37)",
        "id-kp 1.3.6.1",
        # issue #28, from public documentation trees
        "version='6.0.0.0'",
        'ModuleVersion="1.0.0.0"',
        "SchemaVersion                 : 1.0.0.0",
        "FileVersion:      7.5.0.101",
        'szOID_ENHANCED_KEY_USAGE = "2.5.29.37"',
        "as ANSI 4.12.2.1 defines it",
        "ISO 8601.2.1.4",
    ],
)
def test_versions_sections_oids_and_bad_octets_are_not_ips(text: str) -> None:
    assert rules_of(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "/home/username/x",
        "/home/yourname",
        "/home/your-user/x",
        "/home/user/x",
        "/home/me/x",
        "/home/xxx/",
        "/data/jdoe/x",
        "/data/USER/cache",
        "/Users/USERNAME/x",
        "C:\\Users\\User1\\x",
        "C:\\Users\\YourName\\x",
        "/Users/firstname.lastname/x",
        # issue #28, from public documentation trees
        "C:\\Users\\UserA\\Documents",
        "/Users/UserB/.config",
        "C:\\Users\\Test\\x",
        "C:\\Users\\Administrator\\x",
        "C:\\Users\\PSRemoteUser\\x",
        "/home/azureuser/x",
        "/home/ubuntu/x",
        # issue #38: placeholder homes and service accounts' homes
        "/Users/example/Library",
        "C:\\Users\\example\\x",
        "/home/example-user/x",
        "/home/git/repositories",
        "/home/runner/work/repo",
        "/home/jenkins/workspace",
        "/home/jovyan/work",
        "/home/www-data/x",
        "/home/node/app",
        "/home/vscode/.cache",
        # "user" in the languages docs are translated to (withastro/docs)
        "/home/utilisateur/projet",
        "/home/usuario/proyecto",
        "C:\\Users\\Benutzer\\x",
        "/home/用户/x",
    ],
)
def test_home_folder_placeholders_are_not_secrets(text: str) -> None:
    assert rules_of(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "/home/johnsmith/x",
        "C:\\Users\\mwei\\x",
        "/Users/carol/x",
        "/home/gitte/x",
        "/home/nodeman/x",
    ],
)
def test_real_looking_names_still_are(text: str) -> None:
    assert rules_of(text) in (["tree/secret-remote-home"], ["tree/secret-windows-home"])


@pytest.mark.parametrize(
    "text",
    [
        "The `-----BEGIN RSA PRIVATE KEY-----` line starts a key.",
        "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----",
        "-----BEGIN PRIVATE KEY-----\n<your key here>\n",
        "-----BEGIN PRIVATE KEY-----" + " " * 100_000 + "x",
    ],
)
def test_a_begin_line_without_a_key_body_is_prose(text: str) -> None:
    assert rules_of(text) == []


def test_the_schema_names_exactly_the_built_in_danger_checks() -> None:
    from kbkit.checks.rules.tree.danger import COMMANDS, TEXT_PATTERNS
    from kbkit.policy.schema import policy_schema

    danger = policy_schema()["properties"]["danger"]["properties"]
    assert danger["patterns"]["items"]["enum"] == list(TEXT_PATTERNS)
    assert danger["commands"]["items"]["enum"] == list(COMMANDS)
    assert DEFAULT.data["danger"]["patterns"] == list(TEXT_PATTERNS)
    assert DEFAULT.data["danger"]["commands"] == list(COMMANDS)


def test_a_command_check_off_in_the_policy_reports_nothing() -> None:
    from kbkit.checks.rules.tree.danger import dangerous_commands

    line = "rm -rf build && pkill -f x"
    assert dangerous_commands(line, frozenset({"pkill"})) == ["pkill"]
    assert dangerous_commands(line, frozenset()) == []


@given(st.tuples(*[st.integers(0, 255)] * 4), st.sampled_from(["10.0.0.0/8", "192.168.1.7/24"]))
@example((127, 0, 0, 1), "10.0.0.0/8")
@example((192, 168, 1, 200), "192.168.1.7/24")
@example((192, 168, 2, 1), "192.168.1.7/24")
@example((10, 255, 0, 9), "10.0.0.0/8")
@example((203, 0, 113, 5), "10.0.0.0/8")
def test_allowed_networks_decide_as_ipaddress_does(octets: tuple[int, ...], extra: str) -> None:
    # the integer test (`address & mask == network`) against ipaddress's `address in net`
    import ipaddress

    from kbkit.checks.rules.tree.secrets import _allowed_masks, allowed_networks

    spec = (*map(str, DEFAULT.data["secrets"]["allowed_ip_networks"]), extra)
    address = ipaddress.IPv4Address(".".join(map(str, octets)))
    value = octets[0] << 24 | octets[1] << 16 | octets[2] << 8 | octets[3]
    fast = any(value & mask == network for network, mask in _allowed_masks(spec))
    assert fast == any(address in net for net in allowed_networks(spec))
