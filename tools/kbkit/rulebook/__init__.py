"""The rulebook: what a rule is and what a finding is, below every layer that reports one.

`Rule` (one declaration per rule: id, default severity, summary, why, fix, example, whether
`kb fix` fixes it; the declarations themselves live with the checks, `kbkit.checks.rules`)
and findings with their report formats (text, JSON, GitHub annotations, SARIF).

May import: `kbkit.infra`.
"""
