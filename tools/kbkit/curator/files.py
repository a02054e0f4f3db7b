"""Reading the curator's JSON input files; every error names the file."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from kbkit.curator.errors import InvalidRequestError
from kbkit.curator.events import KnowledgeEvidenceBatch
from kbkit.curator.proposals import KnowledgeProposalValidation
from kbkit.infra.charset import json_escaped
from kbkit.infra.errors import InputError
from kbkit.infra.json_input import loads
from kbkit.infra.paths import REPO_HELP, named_file


def read_json(path: str) -> Any:
    named_file(path, "pass a JSON file")
    try:
        text = Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read ({exc.__class__.__name__}: {exc})", path=path) from exc
    try:
        return loads(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        raise InputError(f"not valid JSON ({exc})", path=path, line=line) from exc


def read_batch(path: str) -> KnowledgeEvidenceBatch:
    try:
        return KnowledgeEvidenceBatch.from_dict(read_json(path))
    except InvalidRequestError as exc:
        raise InputError(f"invalid evidence batch: {exc}", path=path) from exc


def read_validation(path: str) -> KnowledgeProposalValidation:
    data = read_json(path)
    try:
        return KnowledgeProposalValidation.from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(
            f"not a validation written by `kb curate validate` ({exc.__class__.__name__}: {exc})",
            path=path,
        ) from exc


def dump(data: Any) -> str:
    """JSON for stdout: readable text, every invisible character escaped (charset)."""
    return json_escaped(json.dumps(data, ensure_ascii=False, indent=2, sort_keys=False)) + "\n"


def common_parser(prog: str, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--repo", default=None, metavar="DIR", help=REPO_HELP)
    parser.add_argument(
        "--policy",
        default=None,
        help="a built-in profile (default, infermatrix) or a policy YAML file "
        "(default: knowledge/policy.yaml of the clone when present)",
    )
    return parser


def curator_for(repo: str | None, policy: str | None, **kwargs: Any) -> Any:
    """The curator of the repository at `repo` (None: found from the working folder) under
    `policy` (a built-in profile or a policy file; None: the repository's own)."""
    from kbkit.curator import KnowledgeCurator
    from kbkit.infra.paths import repo_root

    return KnowledgeCurator(repo_root(repo), policy=policy, **kwargs)
