"""Shared pieces of the report tests: small real kernels and the CLI runner."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from shared_helpers import ROOT
CORPUS = ROOT / "tests" / "corpus"
EXAMPLES = ROOT / "examples"
SCHEMA = ROOT / "docs" / "schemas" / "verikern-report.schema.json"
SARIF_SCHEMA = ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"

SAXPY = EXAMPLES / "saxpy.py"                            # proved, one requires
UNGUARDED = CORPUS / "bounds_unguarded_write.py"         # failed bounds at 11:5
GATHER = CORPUS / "ok_gather_in_range.py"                # proved, all_in_range contract


def copy(src: Path, tmp_path: Path, name: str | None = None) -> Path:
    dst = tmp_path / (name or src.name)
    shutil.copyfile(src, dst)
    return dst


def cli(*args, input=None):
    """(exit code, stdout, stderr) of `verikern ARGS`."""
    from verikern.cli import main

    result = CliRunner().invoke(main, [str(a) for a in args], input=input,
                                                catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def validate_report(data: dict) -> None:
    import jsonschema

    jsonschema.validate(data, json.loads(SCHEMA.read_text()))


def validate_sarif(data: dict) -> None:
    import jsonschema

    jsonschema.validate(data, json.loads(SARIF_SCHEMA.read_text()))
