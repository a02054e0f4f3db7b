"""The tag taxonomy: a list in the policy, a section of a markdown file, or both.

From a file, the taxonomy is every backticked token between the configured heading and the
next heading of the same or a higher level (code blocks excluded). A missing file, heading or
an empty result is a `problem`, reported by lint as one finding, never an exception.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from kbkit.infra.lazy_pattern import lazy
from kbkit.pages.page import Page, parse_page
from kbkit.policy.model import Policy
from kbkit.tree.page_file import PageRefused, read_page_file

_BACKTICKED = lazy(r"`([^`\n]+)`")


POLICY_SOURCE = "taxonomy.tags in the policy"


class Taxonomy(NamedTuple):
    tags: frozenset[str]
    source: str  # repo-relative file, or POLICY_SOURCE when only policy tags are used
    problem: str | None  # why the taxonomy is unusable (then `tags` must not be trusted)


def load_taxonomy(repo: Path, policy: Policy) -> Taxonomy:
    """Read the taxonomy `policy` points to; problems are returned, not raised."""
    config = policy.data["taxonomy"]
    listed = frozenset(str(tag) for tag in config.get("tags") or [])
    file, section = config.get("file"), config.get("section")
    if not file:
        if listed:
            return Taxonomy(listed, POLICY_SOURCE, None)
        return Taxonomy(
            listed, POLICY_SOURCE, "no tag taxonomy configured: set taxonomy.tags or taxonomy.file"
        )
    try:
        data, _ = read_page_file(str(repo), str(file), policy.limit("read_bytes"), "the repository")
    except PageRefused as refused:  # a FIFO, a device, a link out of the repository, too big
        return Taxonomy(listed, str(file), f"the taxonomy file {file} is {refused.message}")
    except OSError as exc:
        reason = "does not exist" if isinstance(exc, FileNotFoundError) else str(exc.strerror)
        return Taxonomy(listed, str(file), f"the taxonomy file {file} {reason}")
    page = parse_page(str(file), data)
    if page.error is not None:
        return Taxonomy(listed, str(file), f"the taxonomy file {file} is unreadable: {page.error}")
    if not section:
        return Taxonomy(listed, str(file), "taxonomy.section is not set in the policy")
    tags = section_tags(page, str(section))
    if tags is None:
        return Taxonomy(listed, str(file), f"{file} has no heading {section!r}")
    if not tags and not listed:
        return Taxonomy(
            listed, str(file), f"the section {section!r} of {file} holds no backticked tags"
        )
    return Taxonomy(listed | tags, str(file), None)


def section_tags(page: Page, section: str) -> frozenset[str] | None:
    """Backticked tokens of the section headed `section` (None when there is no such heading)."""
    headings = page.headings
    for index, heading in enumerate(headings):
        if heading.text != section.strip():
            continue
        end = page.line_count + 1
        for later in headings[index + 1 :]:
            if later.level <= heading.level:
                end = later.line
                break
        skip = page.code_line_numbers()
        lines = page.text.split("\n")
        return frozenset(
            token.strip()
            for number in range(heading.line + 1, end)
            if number not in skip
            for token in _BACKTICKED.findall(lines[number - 1])
            if token.strip()
        )
    return None
