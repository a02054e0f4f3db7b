"""`kb lessons bundle`: the final planner and worker prompts for a task, per KB_LESSONS."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from kbkit.infra import outward
from kbkit.infra.errors import InputError
from kbkit.infra.jsonl import atomic_write_text
from kbkit.infra.paths import REPO_HELP
from kbkit.infra.regular_file import read_regular_bytes
from kbkit.lessons.options import add_as_of, add_scope
from kbkit.lessons.store import LessonStore
from kbkit.lessons.task_records import read_task
from kbkit.lessons.usage import ASSIGNMENTS, bundle_prompts


def _read_prompt(path: str) -> str:
    try:
        data = read_regular_bytes(path)  # a FIFO or a device is refused unopened
    except OSError as exc:
        raise InputError(f"cannot read the prompt: {exc.strerror}", path=path) from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 (offset {exc.start}); re-save it as UTF-8", path=path) from exc


def main(argv: list[str] | None = None) -> int:
    """Write planner.txt, worker.txt and lessons.json into --out."""
    parser = argparse.ArgumentParser(
        prog="kb lessons bundle",
        description="Write the final planner and worker prompts for a task. KB_LESSONS (or "
        "ARTEX_RSI_LESSONS) decides: off (default) copies them unchanged and logs nothing; "
        "shadow logs the selection and copies them unchanged; inject logs it and appends the "
        "lessons block after each prompt.",
    )
    parser.add_argument(
        "--task", required=True, metavar="TASK.json", help="task record (- for stdin)"
    )
    parser.add_argument("--planner", required=True, metavar="P", help="rendered planner prompt")
    parser.add_argument("--worker", required=True, metavar="W", help="rendered worker prompt")
    parser.add_argument("--out", required=True, metavar="DIR", help="output folder")
    parser.add_argument(
        "--assign",
        choices=ASSIGNMENTS,
        default="none",
        help="hash: when lessons are on, a stable hash of the task id picks "
        "shadow or inject, for a fair comparison (default: none)",
    )
    add_scope(parser)
    add_as_of(parser)
    parser.add_argument("--repo", default=None, metavar="DIR", help=REPO_HELP)
    args = parser.parse_args(argv)
    task = read_task(args.task)
    planner, worker = _read_prompt(args.planner), _read_prompt(args.worker)
    store = LessonStore.for_repo(args.repo)
    out = Path(args.out)
    bundle = bundle_prompts(
        task,
        planner,
        worker,
        store=store,
        assign=args.assign,
        scope=args.scope,
        as_of=args.as_of,
        out=str(out.resolve()),  # named in the usage row, for kb lessons forget --purge
    )
    atomic_write_text(out / "planner.txt", bundle.planner)
    atomic_write_text(out / "worker.txt", bundle.worker)
    document = {"task": str(task["id"]), **bundle.to_dict()}
    atomic_write_text(
        out / "lessons.json", json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    )
    shown = len(bundle.lessons) if bundle.block else 0
    print(
        f"mode {bundle.mode}: {len(bundle.lessons)} lesson(s) selected, {shown} injected; "
        f"wrote {out}/planner.txt, worker.txt, lessons.json"
    )
    for note in bundle.withheld:  # ids from the store: a hand-edited one is text
        print(outward.line(f"withheld {note.lesson}: {note.why} ({', '.join(note.against)})"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
