"""git and GitHub: the only modules that run `git` or talk to GitHub (through `gh`).

May import: `kbkit.infra`.
"""
