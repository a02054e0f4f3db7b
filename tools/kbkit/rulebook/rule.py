"""What a rule is: one declaration holds everything said about it.

Each rule is declared once, beside the check that reports it (`kbkit.checks.rules.<family>`):
its stable id, default severity, a one-line summary, why it exists, how to fix a finding, a
short example and whether `kb fix` can fix its findings. `kb rules`, `kb rule ID`, the policy
schema's list of rule ids, the rule reference page and SARIF's rule metadata are all made from
the declarations, and a finding takes its severity from its rule's declaration and the policy
(`kbkit.checks.scopes.apply_severities`), never from the place that reports it.
"""

from __future__ import annotations

from typing import NamedTuple

from kbkit.rulebook.findings import Finding


class Rule(NamedTuple):
    id: str
    severity: str  # the default: `error` or `warning`; the policy can change it per path
    summary: str  # what a finding means, in one line
    why: str = ""  # why the rule exists
    fix: str = ""  # how to fix a finding by hand
    example: str = ""  # a few lines of a page (or a path) that the rule reports
    fixable: bool = False  # `kb fix` fixes its findings

    def at(self, path: str, line: int, message: str, column: int = 0) -> Finding:
        """A finding of this rule at `path:line` (0: the whole file), with its declared
        severity (the policy's severities apply later, in one place)."""
        return Finding(path, line, self.id, self.severity, message, column)

    @property
    def suppression(self) -> str:
        """How to silence one finding of the rule, or all of them."""
        return (
            f"one finding: `<!-- kb-disable-next-line {self.id}: reason -->` on the line before "
            f"it; a whole page (or, in its _index.md, a folder): "
            f"`<!-- kb-disable-file {self.id}: reason -->`; "
            "every finding, or per path glob: `rules:` / `overrides:` in the policy"
        )


def nearest(typed: str, known: list[str]) -> str | None:
    """The rule id in `known` closest to a mistyped one (`tree/link-brokn`), if any is close."""
    import difflib

    close = difflib.get_close_matches(typed, sorted(known), n=1, cutoff=0.6)
    return close[0] if close else None


def unknown_rule(typed: str, known: list[str]) -> str:
    """The words for a rule id no validator has: `unknown rule 'x': did you mean 'y'?`."""
    guess = nearest(typed, known)
    hint = f": did you mean '{guess}'?" if guess else " (`kb rules` lists them)"
    return f"unknown rule '{typed}'{hint}"
