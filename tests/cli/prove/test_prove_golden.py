"""Golden `verikern prove --format short` output for a few corpus kernels:
one failing kernel of each obligation kind and one proved kernel (which
prints nothing). Paths are relative (the command runs in tests/corpus).

The output is deterministic (budgets count solver work, not time); after an
intended change of a message, regenerate with `pytest --update-goldens`
(tests/goldens.py) and review the diff. Independently of the golden text,
the exit status and the kinds and sites of the `error:` lines must agree with
the corpus header (`# expect:` and `# bug:` lines).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from corpus_loader import CORPUS_DIR, parse_header
from goldens import check_golden
from verikern.cli import main

GOLDEN = Path(__file__).parent / "golden"
KERNELS = ("bounds_off_by_one_le", "race_reduce_missing_barrier",
           "divergence_barrier_thread_dependent_branch", "invariant_fails_loop_bound_hint",
           "divzero_mod_by_shape_unguarded", "ok_copy_guard_both_shapes")
_ERROR = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): error: (?P<kind>[\w-]+): ",
                    re.M)


def test_golden_set_matches_the_files():
    assert {p.stem for p in GOLDEN.glob("*.short")} == set(KERNELS)


@pytest.mark.parametrize("name", KERNELS)
def test_short_output_matches_golden(name, monkeypatch, update_goldens):
    case = parse_header(CORPUS_DIR / f"{name}.py")
    monkeypatch.chdir(CORPUS_DIR)
    result = CliRunner().invoke(main, ["prove", f"{name}.py", "--format", "short",
                                       "--no-cache", *case.prove_args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    errors = [m.groupdict() for m in _ERROR.finditer(result.stdout)]
    if case.expect_status == "proved":
        assert result.exit_code == 0 and errors == [], result.output
    else:
        assert result.exit_code == 1, result.output
        assert {e["kind"] for e in errors} == set(case.failing_kinds), result.output
        assert all(e["file"] == f"{name}.py" for e in errors), result.output
        bug_sites = {(b.line, b.col) for b in case.bugs} | \
            {b.other for b in case.bugs if b.other is not None}
        assert {(int(e["line"]), int(e["col"])) for e in errors} <= bug_sites, result.output
    check_golden(GOLDEN / f"{name}.short", result.stdout, update_goldens)
