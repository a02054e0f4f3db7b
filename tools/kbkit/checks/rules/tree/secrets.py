"""Sensitive text in a page (T13-T16): IP addresses, home folders, private keys, and
credential tokens (`tree/secret-token`: the token families of `kbkit.infra.secret_tokens`,
the one pattern set lessons are redacted with; documentation stand-ins aside).

Every check scans the whole text (frontmatter, prose and code) with a cheap `in` prefilter
first, and reports at most one finding per rule and line. Pure: text and policy in, findings out.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Iterator

from kbkit.checks.repeated_pages import remembered
from kbkit.checks.rules.tree import (
    SECRET_IP,
    SECRET_PRIVATE_KEY,
    SECRET_REMOTE_HOME,
    SECRET_TOKEN,
    SECRET_WINDOWS_HOME,
)
from kbkit.infra.errors import UsageError
from kbkit.infra.lazy_pattern import lazy
from kbkit.infra.secret_tokens import is_example_token, token_hits
from kbkit.pages.lines import LineCounter
from kbkit.policy.model import Policy
from kbkit.rulebook.findings import Finding
from kbkit.rulebook.rule import Rule

# A dotted quad that is not part of a word, a longer dotted run (`1.2.3.4.5`), a `v1.2.3.4`
# version or a pinned requirement (`==1.2.3.4`, `>=`, `<=`, `~=`, `!=`). The full pattern is
# only tried where the literal-first `_IPV4_MIDDLE` (GB/s) found `.d.d.`.
_IPV4 = lazy(
    r"(?<![\w.])(?<![=<>~!]=)([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})(?!\.?\w)"
)
_IPV4_MIDDLE = lazy(r"\.[0-9]{1,3}\.[0-9]{1,3}\.")
# A home or data folder counts only as an absolute path: at the start of a line or after
# whitespace, a quote, a backtick, `(`, `[`, `=`, `:` or `,` (so `tests/data/x` is relative).
_PATH_BEFORE = frozenset(" \t\n\"'`([=:,{>")
_NAME = r"([^\s/\"'`)\]>,;:|]+)"
_REMOTE_HOME = lazy(r"/(home|data)/" + _NAME)
_MAC_HOME = lazy(r"/Users/" + _NAME)
_WINDOWS_HOME = lazy(r":(?:\\+|/+)[Uu]sers(?:\\+|/+)" + _NAME.replace("/", "\\\\/"))
# One literal-first scan decides whether a home or data path can match at all.
_HOME_HINT = lazy(r"/(?:home|data|Users)/")
# `C:\Users\x`, `/Users/x`: one regex scan (a literal prefix) instead of two substring scans
_WINDOWS_HINT = lazy(r"sers[\\/]")
_PRIVATE_KEY = lazy(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
# A key block has a body: optional `Name: value` headers (encrypted PEM, PGP), then a line
# of base64. Newlines may be written `\n` (a key pasted into a JSON or YAML string).
_KEY_BODY = lazy(
    r"(?:\\n|[ \t\r\n\"'])*(?:[A-Za-z][\w-]*:[^\n\\]*(?:\\n|\n)[ \t]*)*"
    r"(?:\\n|[ \t\r\n])*[A-Za-z0-9+/]{16,}={0,2}(?:\\n|[ \t]*\r?(?:\n|$))"
)
_KEY_WINDOW = 1024  # the body starts within this many characters (bounds the regex's work)
_PLACEHOLDER_START = ("<", "$", "{", "%", "*", "...", "…")
_GENERIC_USERS = frozenset({"public", "shared", "default", "all users"})
# The homes of service accounts and of the default users of images, CI runners and
# development containers: nobody's personal folder.
_SERVICE_USERS = frozenset(
    {
        "git", "runner", "jenkins", "www-data", "postgres", "mysql", "redis", "nginx",
        "apache", "node", "circleci", "gitlab-runner", "docker", "app", "deploy", "deployer",
        "nobody", "build", "builder", "ci", "bot", "service", "svc", "daemon", "hadoop",
        "spark", "airflow", "jovyan", "vscode", "codespace", "codespaces", "gitpod", "coder",
        "pi", "centos", "debian", "fedora", "alpine", "opc", "azure", "gcp", "cloud-user",
    }
)  # fmt: skip
# Names that stand for "your name here" in documentation, not a person's home folder.
_PLACEHOLDER_NAME = lazy(
    r"(?:(?:your|my|the|some|example|test|demo|dummy|sample|local|current)?[-_.]?"
    r"(?:user(?:[-_.]?name)?|name|login|account|id|home)[a-z]?"
    r"|you|me|someone|somebody|username|yourname|foo|bar|baz|x{2,}|\?+|j(?:ohn|ane)?[-_.]?doe"
    # built-in and cloud images' default accounts, and names that say they stand in
    r"|admin|administrator|guest|test|tester|azureuser|ubuntu|ec2-user|vagrant|root"
    r"|[a-z]*(?:user|test)[a-z]*"
    r"|[A-Z][A-Z_]*)\d*",
)


# "user" in the languages docs are translated to (astro's French, Spanish and Portuguese
# pages write `/home/utilisateur`, `/home/usuario`): a stand-in, as `/home/user` is
_LOCALIZED_USERS = frozenset(
    {
        "utilisateur", "usuario", "usuário", "utilizador", "benutzer", "nutzer", "utente",
        "gebruiker", "uzytkownik", "użytkownik", "kullanici", "kullanıcı", "användare",
        "bruker", "bruger", "käyttäjä", "uzivatel", "uživatel", "felhasznalo", "felhasználó",
        "utilizator", "korisnik", "пользователь", "користувач", "ユーザー", "ユーザ", "사용자",
        "用户", "用戶", "người-dùng", "pengguna",
    }
)  # fmt: skip


# `firstname.lastname`, `yourname-laptop`: a stand-in followed by more of the same
_PLACEHOLDER_PREFIX = ("firstname", "first.name", "first_name", "lastname", "yourname", "username")


def _is_placeholder(name: str) -> bool:
    bare = name.rstrip(".!?")
    if not bare or name.startswith(_PLACEHOLDER_START):
        return True
    if bare.isupper() and _PLACEHOLDER_NAME.fullmatch(bare):
        return True  # USER, USERNAME, YOUR_NAME: an environment-variable-like stand-in
    lower = bare.lower()
    if lower in _SERVICE_USERS or lower in _LOCALIZED_USERS or "example" in lower:
        return True  # /home/git, /Users/example, /home/example-user
    return _PLACEHOLDER_NAME.fullmatch(lower) is not None or lower.startswith(_PLACEHOLDER_PREFIX)


@functools.lru_cache(maxsize=8)
def allowed_networks(spec: tuple[str, ...]) -> tuple[ipaddress.IPv4Network, ...]:
    """The policy's allowed IPv4 networks; a bad entry is a usage error."""
    nets = []
    for item in spec:
        try:
            nets.append(ipaddress.IPv4Network(item, strict=False))
        except ValueError as exc:
            raise UsageError(f"policy key 'secrets.allowed_ip_networks': {exc}") from exc
    return tuple(nets)


def _absolute_at(text: str, offset: int) -> bool:
    return offset == 0 or text[offset - 1] in _PATH_BEFORE


def _ipv4_matches(text: str) -> Iterator[re.Match[str]]:
    seen = -1
    for middle in _IPV4_MIDDLE.finditer(text):
        dot = middle.start()
        for start in range(max(0, dot - 3, seen + 1), dot):
            match = _IPV4.match(text, start)
            if match is not None:
                seen = match.end()
                yield match
                break


# Words right before a dotted quad that make it a number, not an address: versions, spec
# sections, object identifiers.
_NOT_ADDRESS_BEFORE = lazy(
    r"(?:\b(?:v|ver|version|versions|release|build|rev|revision|section|sections|sec|sect"
    r"|clause|chapter|ch|paragraph|para|table|figure|fig|step|item|oid|oids|arc"
    r"|ansi|iso|iec|ieee|ecma|itu|rfc|fips|nist|unicode|spec|specification|standard)\.?"
    r"|§|\bid-[\w-]+|\w*oid[-_]?\w*|\w+version\w*)[ \t:=(#\"'\[]*$",
    re.I,
)
# Words and characters right before a quad that make it an address, and a port or prefix
# length right after it.
_ADDRESS_BEFORE = lazy(
    r"(?:[@=]|//|\b(?:ip|ipv4|ips|host|hosts|hostname|address|addr|server|servers|gateway|gw"
    r"|dns|nameserver|proxy|endpoint|ping|ssh|scp|curl|wget|connect|listen|bind|route|via"
    r"|subnet|network|node|peer|upstream|machine|vm|box)s?\b[ \t:=\"'`]*)[ \t\"'`\[(]*$",
    re.I,
)
_ADDRESS_AFTER = lazy(r"(?::[0-9]{1,5}\b|/[0-9]{1,2}\b)")
# A numbered heading or list item: `4.9.9.1 Certificate Policies`, `### 4.9.9.1 Title`.
_NUMBERING = lazy(r"[ \t]*(?:#{1,6}[ \t]+|[-*+][ \t]+)?$")


def _is_address(text: str, match: re.Match[str], octets: list[int]) -> bool:
    """Whether a valid dotted quad is meant as an address (see README, `tree/secret-ip`)."""
    line_start = text.rfind("\n", 0, match.start()) + 1
    before = text[max(line_start, match.start() - 40) : match.start()]
    if _NOT_ADDRESS_BEFORE.search(before):
        return False
    if _ADDRESS_BEFORE.search(before) or _ADDRESS_AFTER.match(text, match.end()):
        return True
    if _NUMBERING.match(before) and re.match(r"[ \t]+[A-Z]", text[match.end() :]):
        return False  # a section number opening a heading or an outline item
    # Quads that look like outline numbers (`4.9.9.1`) or object identifiers (`2.5.29.37`,
    # first arc 0-2) need an address-like context; other valid quads are addresses anywhere.
    return not (max(octets) < 10 or octets[0] <= 2)


@functools.lru_cache(maxsize=8)
def _allowed_masks(spec: tuple[str, ...]) -> tuple[tuple[int, int], ...]:
    """Each allowed network as (its address, its mask) in integers: an address is in it when
    `address & mask == network`, as `ipaddress` decides `address in net` (without building
    an address object per dotted quad: docs of networking tools hold thousands)."""
    return tuple((int(net.network_address), int(net.netmask)) for net in allowed_networks(spec))


def _public_ips(text: str, policy: Policy) -> Iterator[tuple[int, str]]:
    allowed = _allowed_masks(tuple(map(str, policy.data["secrets"]["allowed_ip_networks"])))
    for match in _ipv4_matches(text):
        parts = match.groups()
        if any(len(part) > 1 and part[0] == "0" for part in parts):
            continue  # `171.09.21.207`: no address is written with leading zeros
        octets = [int(part) for part in parts]
        if max(octets) > 255:
            continue
        value = octets[0] << 24 | octets[1] << 16 | octets[2] << 8 | octets[3]
        if any(value & mask == network for network, mask in allowed):
            continue
        if _is_address(text, match, octets):
            yield match.start(), match.group(0)


def _homes(text: str, policy: Policy) -> Iterator[tuple[Rule, int, str]]:
    """(rule id, offset, path) for every personal home or data folder."""
    windows = _WINDOWS_HINT.search(text) is not None
    if not windows and _HOME_HINT.search(text) is None:
        return
    if "/home/" in text or "/data/" in text:
        allow = {
            "home": set(map(str, policy.data["secrets"]["home_allow"])),
            "data": set(map(str, policy.data["secrets"]["data_allow"])),
        }
        for match in _REMOTE_HOME.finditer(text):
            if not _absolute_at(text, match.start()):
                continue
            kind, name = match.group(1), match.group(2).rstrip(".!?")
            if name not in allow[kind] and not _is_placeholder(name):
                yield SECRET_REMOTE_HOME, match.start(), match.group(0)
    if "/Users/" in text:
        for match in _MAC_HOME.finditer(text):
            if not _absolute_at(text, match.start()):
                continue
            name = match.group(1).rstrip(".!?")
            if not _is_placeholder(name) and name.lower() not in _GENERIC_USERS:
                yield SECRET_WINDOWS_HOME, match.start(), match.group(0)
    if windows:
        for match in _WINDOWS_HOME.finditer(text):
            drive = match.start() - 1
            if drive < 0 or not text[drive].isascii() or not text[drive].isalpha():
                continue
            if drive > 0 and text[drive - 1].isascii() and text[drive - 1].isalpha():
                continue
            name = match.group(1).rstrip(".!?")
            if not _is_placeholder(name) and name.lower() not in _GENERIC_USERS:
                yield SECRET_WINDOWS_HOME, drive, text[drive : match.end()]


# (rule, line, message, column) of each finding of a text
Hits = list[tuple[Rule, int, str, int]]


def secret_findings(path: str, text: str, policy: Policy) -> list[Finding]:
    """T13-T16 on one page's text; one finding per rule and line."""
    # a page repeated word for word has the same findings (`kbkit.checks.repeated_pages`)
    hits = remembered("secrets", text, policy, lambda: _secret_hits(text, policy))
    return [rule.at(path, line, message, column) for rule, line, message, column in hits]


def _secret_hits(text: str, policy: Policy) -> Hits:
    hits: dict[tuple[Rule, int], tuple[str, int]] = {}  # (rule, line) -> (message, column)
    lines = LineCounter(text)

    def add(rule: Rule, offset: int, message: str) -> None:
        column = offset - text.rfind("\n", 0, offset)  # 1-based: rfind is -1 on line one
        hits.setdefault((rule, lines.line_at(offset)), (message, column))

    if "." in text:
        for offset, ip in _public_ips(text, policy):
            add(SECRET_IP, offset, f"IP address {ip}: use a placeholder such as <host>")
    for rule, offset, found in _homes(text, policy):
        add(rule, offset, f"personal folder {found}: use a placeholder such as <user>")
    if "PRIVATE KEY" in text:
        for match in _PRIVATE_KEY.finditer(text):
            if _KEY_BODY.match(text[match.end() : match.end() + _KEY_WINDOW]) is None:
                continue  # a BEGIN line quoted in prose, or an elided example body
            add(
                SECRET_PRIVATE_KEY,
                match.start(),
                "private key block: remove it and rotate the key",
            )
    for hit in token_hits(text):
        token = text[hit.start : hit.end]
        if hit.family in ("private-key", "putty-key") or is_example_token(token):
            continue  # key blocks are tree/secret-private-key (a header alone is no key)
        shown = token[:4].replace("\n", " ")
        add(
            SECRET_TOKEN,
            hit.start,
            f"{_FAMILY_WORDS.get(hit.family, hit.family + ' token')} {shown}…: remove it, then "
            "revoke or rotate it (it stays in the git history)",
        )
    return [(rule, line, message, column) for (rule, line), (message, column) in hits.items()]


_FAMILY_WORDS = {
    "github": "GitHub token",
    "gitlab": "GitLab token",
    "stripe": "Stripe key",
    "npm": "npm token",
    "slack": "Slack token",
    "azure": "Azure storage key",
    "aws-access-key": "AWS access key ID",
    "aws-secret-key": "AWS secret access key",
    "jwt": "JSON Web Token",
    "openai": "OpenAI key",
    "google": "Google API key",
    "sendgrid": "SendGrid key",
    "pypi": "PyPI token",
    "square": "Square token",
    "twilio": "Twilio key",
    "mailchimp": "Mailchimp key",
    "telegram": "Telegram bot token",
    "discord": "Discord token",
    "artifactory": "Artifactory key",
}
