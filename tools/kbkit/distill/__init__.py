"""The daily batch: pending intake rows -> one bounded batch -> model -> curator -> day branch
-> publication (shadow or a reviewed PR).

`job` runs it step by step; `session` holds a run's options, notes and report; `selection`
picks the batch; `rows` is the one status-marking helper; `delivery` publishes committed
batches and marks their rows; `report_section` is the day's `kb report` in the PR body;
`evidence`, `artifacts`, `work_clone` and `publication` are the rows as curator events,
the per-batch files, the work clone and the outward writes; `models` are the model gateways
the batch is sent to (replay, llm). Nothing is re-exported here, so importing one part does
not import the curator and the model gateways.

May import: `kbkit.report` and every layer below it; never `kbkit.compat`.
"""
