"""The tree and its loading: every page of a knowledge root, walked, read, parsed and cached.

The walk (forked beside the load), reading a page file safely, the parse cache, the
commit's tree in staged mode, and what the checks and the curator read from the tree: the
tag taxonomy and the rule IDs a page defines.

May import: `kbkit.policy`, `kbkit.pages`, `kbkit.rulebook`, `kbkit.vcs`, `kbkit.infra`.
"""
