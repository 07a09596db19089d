"""The fixed-seed CI set of generated kernels (issue 25): 300 programs of
verikern.testing.generate, each run on the simulator and on cpu:native and
compared (integers bit for bit, floats within docs/LANGUAGE.md section 6).
Every program is well defined by construction, so any difference, any
runtime error and any program the frontend rejects is a bug (a shrunk
kernel file and a reproduce command are in the failure message).

Split into chunks so that `-n 2` runs them on both cores."""
from __future__ import annotations

import pytest

from verikern.testing.generate.campaign import run_program
from verikern.testing.generate.program import program_from_seed

SEEDS = range(300)
CHUNK = 25


@pytest.mark.parametrize("first", range(SEEDS.start, SEEDS.stop, CHUNK))
def test_generated_kernels_agree_on_cpu_and_cpu_native(first, tmp_path):
    findings = []
    for seed in range(first, first + CHUNK):
        o = run_program(program_from_seed(seed), ["cpu", "cpu:native"], tmp_path / "work",
                        save_dir=str(tmp_path / "found"), shrink_budget=60)
        assert o.compared == ("cpu", "cpu:native"), o.dropped
        if o.compile_error:
            findings.append(f"seed {seed}: the frontend rejected a generated kernel:\n{o.compile_error}")
        if o.mismatch is not None:
            findings.append(f"seed {seed}: " + o.mismatch.report(o.reproduce))
    assert not findings, "\n\n".join(findings)
