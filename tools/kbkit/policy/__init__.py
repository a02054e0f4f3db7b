"""Policy: a team's conventions (roots, labels, limits, severities) and everything about them.

Loading a policy over a built-in profile (`profiles/`), validating it against
`policy.schema.json`, the built-in frontmatter rules as a JSON Schema, inferring a policy
from a tree (`kb init`) and the files `kb init` writes.

May import: `kbkit.sites`, `kbkit.pages`, `kbkit.rulebook`, `kbkit.infra`.
"""
