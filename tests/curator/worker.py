"""A real applying process for crash and concurrency tests.

Usage: python -m tests.curator.worker CLONE VALIDATION_JSON [PAUSE_SECONDS]
Prints `ready`, waits for a line on stdin, applies (pausing after each page it writes),
prints `applied` or `error: ...`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    from kbkit.curator import KnowledgeCurator, KnowledgeProposalValidation
    from kbkit.infra import steps
    from kbkit.infra.errors import KbkitError
    from tests.step_hooks import pause_at

    clone, validation_file = Path(argv[0]), Path(argv[1])
    if len(argv) > 2:
        steps.listen(pause_at("page-written", float(argv[2])))
    validation = KnowledgeProposalValidation.from_dict(json.loads(validation_file.read_text()))
    curator = KnowledgeCurator(clone, today="2026-12-01", lock_timeout=30)
    print("ready", flush=True)
    sys.stdin.readline()
    try:
        curator.apply(validation)
    except KbkitError as exc:
        print(f"error: {exc}", flush=True)
        return 1
    print("applied", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
