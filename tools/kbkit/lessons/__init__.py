"""Evidence-gated lessons from closed tasks: extraction, store, selection, rendering, usage.

Library entry points: `extract(task)` (pure), `LessonStore.add(...)`, `select_lessons(task)`
and `bundle_prompts(task, planner, worker)`. Import them from their modules; this package
imports nothing eagerly so `kb lessons show` stays fast.
"""
