"""Compatibility facades that let a host built against another curator SDK use kbkit.

Nothing is imported here: `kb check` and the rest of kbkit never load a facade.

May import: `kbkit.curator` (its public API) and the layers below it; never `kbkit.distill`.
"""
