"""Curator apply speed: 20 proposals on a copy of the real corpus (InferMatrixCopilot).

Target: an apply costs at most the two validators' own run time plus 0.3 s. The validators'
time is what their runs inside the apply took (`result.validators.runs[].seconds`), so the
overhead is everything else: lock, recovery check, SHA re-check, planning with the
post-condition, journal, atomic writes, journal removal. Median of 5 applies, each on the
base bytes again. Skips (exit 0) when ../shared/corpus is absent.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
CORPUS = PROJECT.parent / "shared" / "corpus" / "infermatrix-knowledge"
OVERHEAD_LIMIT = 0.3
RUNS = 5
SHIM = """import sys
sys.path.insert(0, {tools!r})
from kbkit.__main__ import main
raise SystemExit(main([{command!r}, "--repo", {repo!r}, "--policy", "infermatrix"]))
"""


def _clone(dest: Path) -> Path:
    shutil.copytree(CORPUS, dest, ignore=shutil.ignore_patterns("README.md"))
    for name, command in (
        ("check_knowledge_tree.py", "check-knowledge-tree"),
        ("check_wiki_lint.py", "check-wiki-lint"),
    ):
        shim = dest / "knowledge" / "tools" / name
        shim.parent.mkdir(parents=True, exist_ok=True)
        shim.write_text(SHIM.format(tools=str(PROJECT / "tools"), command=command, repo=str(dest)))
    return dest


def _rows(curator, labels: dict[str, list[str]]) -> list[dict[str, object]]:  # type: ignore[no-untyped-def]
    pages = [p for p in curator.catalog().pages.values() if p.style == "heading" and p.prefix]
    rows: list[dict[str, object]] = []
    used: dict[str, int] = {}
    n = 0
    while len(rows) < 20:
        page = pages[n % len(pages)]
        letter = used[page.prefix] = used.get(page.prefix, -1) + 1
        rule_id = f"{page.prefix}-8{'abcdefghijklmnopqrst'[letter]}"
        title = f"基准规则 {n}"
        section = "\n".join(
            [
                f"{page.heading_marker()} {rule_id} {page.separator} {title}",
                "",
                f"- {labels['trigger'][0]}：修改共享执行路径。",
                f"- {labels['must'][0]}：先验证调用链，再补测试；长句按两个空格",
                "  续行。",
                f"- {labels['must_not'][0]}：只看 mock 参数就声称覆盖。",
                f"- {labels['acceptance'][0]}：测试覆盖真实调用边界。 ^[PR #{9000 + n}]",
            ]
        )
        rows.append(
            {
                "target": page.document_id,
                "rule_id": rule_id,
                "title": title,
                "after": None,
                "group": None,
                "section": section,
                "citations": [f"PR #{9000 + n}"],
                "rationale": "benchmark",
            }
        )
        n += 1
    return rows


def main(argv: list[str] | None = None) -> int:
    if not CORPUS.is_dir():
        print(f"skipped: {CORPUS} not present")
        return 0
    from kbkit.curator import KnowledgeCurator, KnowledgeEvidenceBatch, KnowledgeEvidenceEvent
    from kbkit.curator.gate import commands, run_validators

    with tempfile.TemporaryDirectory() as tmp:
        clone = _clone(Path(tmp) / "clone")
        curator = KnowledgeCurator(clone, policy="infermatrix", today="2026-12-01")
        validators = commands(curator.policy.data["validators"])
        run_validators(clone, validators, 120)  # a clone's validators ran before: warm caches
        labels = curator.policy.data["rules"]["labels"]
        rows = _rows(curator, labels)
        events = [
            KnowledgeEvidenceEvent("merged_pr", f"PR #{9000 + n}", "acme/app", f"PR {n}")
            for n in range(20)
        ]
        batch = KnowledgeEvidenceBatch(events, max_rules=20)
        started = time.perf_counter()
        validation = curator.validate_proposals({"proposals": rows}, batch)
        validate_s = time.perf_counter() - started
        if len(validation.accepted) != 20:
            print(
                f"FAILED: only {len(validation.accepted)} of 20 proposals accepted: {validation.rejected}"
            )
            return 1
        targets = {clone / "knowledge" / f"{p.target}.md" for p in validation.accepted}
        bases = {path: path.read_bytes() for path in targets}
        totals, validator_times = [], []
        for _ in range(RUNS):
            started = time.perf_counter()
            result = curator.apply(validation)
            totals.append(time.perf_counter() - started)
            assert result.validators is not None and result.validators.status == "passed"
            validator_times.append(sum(run.seconds for run in result.validators.runs))
            for path, data in bases.items():
                path.write_bytes(data)
        overheads = [t - v for t, v in zip(totals, validator_times, strict=True)]
        total, valid, overhead = (
            statistics.median(x) for x in (totals, validator_times, overheads)
        )
    print(f"pages in the clone:        {sum(1 for _ in CORPUS.rglob('*.md'))} (.md files)")
    print(f"proposals applied:         20 on {len(targets)} rule pages")
    print(
        f"validate_proposals:        {validate_s:.3f} s (catalog read + checks, not in the target)"
    )
    print(f"apply, total (median {RUNS}):  {total:.3f} s")
    print(f"validators' own run time:  {valid:.3f} s")
    print(f"apply overhead:            {overhead:.3f} s (target <= {OVERHEAD_LIMIT} s)")
    if overhead > OVERHEAD_LIMIT:
        print("MISSED: the apply overhead is above the target")
        return 1
    print("met")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
