"""Commands hand the library typed options, never the parsed command line: no function
below the command layer takes an `argparse.Namespace`, and the ones that did now take a
typed record or plain arguments the command builds (#41 point 3)."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from kbkit.checks import check_run, fix_run, reporting
from kbkit.checks.reporting import ReportOptions, exit_code, failing
from kbkit.curator import files
from kbkit.intake import options
from kbkit.rulebook.findings import ERROR, WARNING, Finding

PACKAGE = Path(__file__).resolve().parents[1] / "tools" / "kbkit"
COMMAND_LINE = {"commands", "__main__.py", "help.py", "shell_completion.py", "demo.py"}


def _library_modules() -> list[Path]:
    return [
        path
        for path in PACKAGE.rglob("*.py")
        if path.relative_to(PACKAGE).parts[0] not in COMMAND_LINE
    ]


def test_no_library_function_takes_a_namespace() -> None:
    taking = []
    for path in _library_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
                for argument in arguments:
                    shown = ast.unparse(argument.annotation) if argument.annotation else ""
                    if "Namespace" in shown:
                        where = path.relative_to(PACKAGE).as_posix()
                        taking.append(f"{where}:{node.name}({argument.arg})")
    assert taking == []


def test_the_scan_sees_a_namespace_parameter(tmp_path: Path) -> None:
    source = "import argparse\ndef run(args: argparse.Namespace) -> int:\n    return 0\n"
    (node,) = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef)]
    assert "Namespace" in ast.unparse(node.args.args[0].annotation)  # type: ignore[arg-type]


def _annotations(function: object) -> dict[str, str]:
    return {
        name: str(parameter.annotation)
        for name, parameter in inspect.signature(function).parameters.items()  # type: ignore[arg-type]
    }


def test_the_changed_functions_take_typed_options() -> None:
    assert _annotations(reporting.report)["args"] == "ReportOptions"
    assert _annotations(check_run.check_repo)["args"] == "CheckOptions"
    assert _annotations(fix_run.run_fix) == {
        "args": "ReportOptions",
        "paths": "list[str]",
        "diff": "bool",
        "validators": "tuple[str, ...]",
        "checked": "Checked",
    }
    assert _annotations(files.curator_for) == {
        "repo": "str | None",
        "policy": "str | None",
        "kwargs": "Any",
    }
    assert _annotations(options.intake_dir) == {"repo": "str | None"}
    assert _annotations(options.identity) == {
        "repo": "str | None",
        "slug": "str | None",
        "aliases": "Sequence[str]",
    }


def test_report_options_decide_the_verdict_and_the_exit_code() -> None:
    warned = [Finding("a.md", 1, "lint/x", WARNING, "m")]
    assert not failing(ReportOptions(), warned) and exit_code(ReportOptions(), warned) == 0
    assert failing(ReportOptions(fail_on=WARNING), warned)
    assert exit_code(ReportOptions(fail_on=WARNING), warned) == 1
    errors = [Finding("a.md", 1, "lint/x", ERROR, "m")]
    assert exit_code(ReportOptions(), errors) == 1
    assert exit_code(ReportOptions(exit_zero=True), errors) == 0
    assert failing(ReportOptions(exit_zero=True), errors)  # the verdict stays


def test_intake_options_resolve_from_plain_arguments(tmp_path: Path) -> None:
    assert options.intake_dir(str(tmp_path)) == tmp_path / "intake"
    found = options.identity(str(tmp_path), "acme/app", ["old/app=acme/app"])
    assert found.slug == "acme/app" and found.normalize("old/app") == "acme/app"
    assert options.identity(str(tmp_path), None, []).slug is None
