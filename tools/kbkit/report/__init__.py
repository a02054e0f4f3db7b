"""`kb report`: one page a team looks at (tree health, intake, curator, lessons).

Each section module collects plain numbers through the owning package's library API;
renderers (json, markdown, html) only format those numbers.

May import: `kbkit.curator`, `kbkit.lessons` and every layer below them.
"""
