"""kbkit.checks.repeated_pages: a page-local answer about a text asked before is the first
answer, under the same policy and variant only; the checks that ask (the secret scan, a
page's anchor ids) answer a repeated page as they answer it alone."""

from __future__ import annotations

from kbkit.checks.link_model import anchor_ids
from kbkit.checks.repeated_pages import remembered
from kbkit.checks.rules.tree.secrets import secret_findings
from kbkit.pages.page import parse_page
from kbkit.policy.model import builtin_policy

# an AWS access key ID that is no published example
KEY = "AKIA" + "QYLPMN5HHHFPZAM2"


def test_an_answer_about_a_text_is_computed_once_per_policy_and_variant() -> None:
    policy, other = builtin_policy("default"), builtin_policy("default")
    calls: list[str] = []

    def ask(text: str, on: object = policy, variant: int = 0) -> str:
        def compute() -> str:
            calls.append(text)
            return text.upper()

        return remembered("test", text, on, compute, variant)  # type: ignore[arg-type]

    assert ask("a") == "A"
    assert ask("a") == "A"  # remembered
    assert ask("b") == "B"
    assert ask("a", variant=1) == "A"  # another variant: computed again
    assert ask("a", on=other) == "A"  # another policy: every memo dropped
    assert ask("a", on=other) == "A"
    assert calls == ["a", "b", "a", "a"]


def test_a_repeated_page_has_its_own_secret_findings_path() -> None:
    policy = builtin_policy("default")
    text = f"# Keys\n\naws_access_key_id = {KEY}\nserver 203.0.113.9 and 8.8.8.8\n"
    first = secret_findings("v1/p.md", text, policy)
    again = secret_findings("v2/p.md", text, policy)
    assert first, "the key and the public address are found"
    assert {f.path for f in first} == {"v1/p.md"}
    assert {f.path for f in again} == {"v2/p.md"}
    assert [f._replace(path="") for f in again] == [f._replace(path="") for f in first]


def test_a_page_kept_without_its_headings_gets_its_own_anchor_ids() -> None:
    # the same text, read whole and then kept without headings (`compact`): the ids of the
    # first must not answer for the second
    policy = builtin_policy("default")
    data = b'# Install\n\n## Run it\n\n<a id="old-name"></a>\n'
    whole = parse_page("p.md", data)
    bare = whole._replace(headings=())
    assert anchor_ids(whole, policy) == ("install", "run-it", "old-name")
    assert anchor_ids(bare, policy) == ("old-name",)
    assert anchor_ids(parse_page("v2/p.md", data), policy) == ("install", "run-it", "old-name")
