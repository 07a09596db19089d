"""The C encoder through the command line: `emit --ir c`, `replay`,
`prove --confirm-with c`."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from verikern.cli import main

from shared_helpers import CORPUS
OFF_BY_ONE = str(CORPUS / "bounds_off_by_one_le.py")

needs_cc = pytest.mark.skipif(not (shutil.which("gcc") or shutil.which("cc")),
                              reason="no C compiler (apt-get install gcc)")


def _run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_emit_c_writes_the_file_with_every_obligation(tmp_path):
    out = tmp_path / "k.c"
    r = _run("emit", OFF_BY_ONE, "--ir", "c", "-o", str(out))
    assert r.exit_code == 0, r.output
    text = out.read_text()
    assert f'"bounds@12:9#0 bounds {OFF_BY_ONE}:12:9"' in text
    assert f'"race@12:9+12:9 race {OFF_BY_ONE}:12:9"' in text
    assert "__CPROVER_assert" in text and "nondet_int32()" in text


def test_emit_c_writes_float16_as_c_float16(tmp_path):
    """float16 is C's _Float16, its arithmetic done in float and rounded once
    (encoders/c/ops.py); tests/encoders/test_c_ops.py checks the values."""
    src = tmp_path / "half.py"
    src.write_text("import verikern as vk\n\n\n@vk.kernel\n"
                   "def half(x: vk.array(dtype=vk.float16)):\n"
                   "    i = vk.tid()\n    if i < x.shape[0]:\n        x[i] = x[i] * x[i]\n")
    r = _run("emit", str(src), "--ir", "c")
    assert r.exit_code == 0, r.output
    assert "_Float16 *g0_x;" in r.output
    # x[i] * x[i]: the widened operands multiplied in float, rounded once to float16
    assert re.search(r"\(\(_Float16\)\(\(\(float\)\(\(\(\(float\)\(T->v\d+\)\)\) \* "
                     r"\(\(\(float\)\(T->v\d+\)\)\)\)\)\)\)", r.output)


def _report(tmp_path, path, *extra):
    rep = tmp_path / "report.json"
    r = _run("prove", path, "--format", "json", "-o", str(rep), "--no-cache", *extra)
    assert r.exit_code in (0, 1), r.output
    return rep


@needs_cc
def test_replay_confirms_the_report_and_refutes_an_altered_launch(tmp_path):
    rep = _report(tmp_path, OFF_BY_ONE)
    r = _run("replay", OFF_BY_ONE, "--counterexample", str(rep))
    assert r.exit_code == 0, r.output
    assert r.output.startswith("bounds@12:9#0: confirmed: the C program failed the same obligation")
    data = json.loads(rep.read_text())
    ce = data["kernels"][0]["obligations"][0]["counterexample"]
    n = ce["dims"][0]
    ce["shapes"]["x"] = [n + 1]                  # every thread's x[i] is now in bounds
    alt = tmp_path / "alt.json"
    alt.write_text(json.dumps(ce))
    r = _run("replay", OFF_BY_ONE, "--counterexample", str(alt), "--obligation", "bounds@12:9#0")
    assert r.exit_code == 1
    assert "not confirmed: the C program ran the launch without any failed check" in r.output
    ce["shapes"]["x"] = [n - 1]                  # the last thread writes x[n - 1]: out of bounds
    alt.write_text(json.dumps(ce))
    r = _run("replay", OFF_BY_ONE, "--counterexample", str(alt), "--obligation", "bounds@12:9#0")
    assert r.exit_code == 0, r.output


@needs_cc
def test_prove_confirm_with_c_records_both_engines(tmp_path):
    race = str(CORPUS / "race_reduce_missing_initial_barrier.py")
    ok = str(CORPUS / "ok_copy_guard_both_shapes.py")
    rep = _report(tmp_path, OFF_BY_ONE, race, ok, "--confirm-with", "c")
    data = json.loads(rep.read_text())
    seen = {}
    for k in data["kernels"]:
        for ob in k["obligations"]:
            seen[(Path(k["file"]).name, ob["kind"], ob["status"])] = ob.get("confirmed_by")
    assert seen[("bounds_off_by_one_le.py", "bounds", "failed")] == ["simulator", "c"]
    assert seen[("race_reduce_missing_initial_barrier.py", "race", "failed")] == ["simulator", "c"]
    assert all(v is None for (f, _, st), v in seen.items() if st == "proved")
    assert any(f == "ok_copy_guard_both_shapes.py" for f, _, _ in seen)
