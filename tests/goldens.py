"""Golden files: compare a test's output with a checked-in file, or rewrite it.

One switch rewrites every golden file of the suite: `pytest --update-goldens`
(registered in tests/conftest.py) or the environment variable
VERIKERN_UPDATE_GOLDENS=1. Review the diff (`git diff`) before committing.

Invariant: without the switch a test never writes a golden file, and a
missing or different golden file fails the test with a unified diff.
"""
from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

ENV = "VERIKERN_UPDATE_GOLDENS"
OPTION = "--update-goldens"


def update_requested(config=None, environ=os.environ) -> bool:
    """Whether this run rewrites golden files ($VERIKERN_UPDATE_GOLDENS set to
    anything but "", "0" or "false", or `--update-goldens` given)."""
    if environ.get(ENV, "").strip().lower() not in ("", "0", "false"):
        return True
    return bool(config is not None and config.getoption(OPTION, default=False))


def check_golden(path: Path, text: str, update: bool) -> None:
    """Assert `text` equals the file at `path` (with `update`: write it instead)."""
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        return
    hint = f"rerun with `pytest {OPTION}` (or {ENV}=1) and review the diff"
    if not path.exists():
        pytest.fail(f"missing golden file {path.name}; {hint}")
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                            f"{path.name} (golden)", f"{path.name} (now)"))
        pytest.fail(f"{path.name} differs from the output; {hint}:\n{diff}", pytrace=False)
