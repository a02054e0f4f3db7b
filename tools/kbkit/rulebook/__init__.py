"""The rulebook: every rule kbkit checks, what `kb rule ID` says of it, and its findings.

The catalog (id, severity, summary) that the validators and policy validation read, the
rule explanations, and findings with their report formats (text, JSON, GitHub annotations).

May import: `kbkit.infra`.
"""
