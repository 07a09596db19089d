"""examples/c_host: a C program compiled with gcc calls the library that
`verikern build` wrote, on real data, with no Python at run time; its
outputs equal the simulator's, and contract violations give error codes."""
from __future__ import annotations

import subprocess

import numpy as np

from cabi_helpers import C_HOST, c_host_reference, needs_cc, parse_host_output
from verikern.app.build import BuildOptions, build


@needs_cc
def test_c_program_matches_the_simulator_and_gets_contract_errors(tmp_path):
    lib = tmp_path / "lib"
    result = build(C_HOST / "kernels.py", lib, BuildOptions(checks="unproved"))
    assert all(k["proof"]["status"] == "proved" for k in result.manifest["kernels"])
    exe = tmp_path / "c_host"
    subprocess.run(["gcc", "-O2", "-Wall", "-Werror", "-I", str(lib), str(C_HOST / "main.c"),
                    "-L", str(lib), "-lkernels", f"-Wl,-rpath,{lib}", "-o", str(exe)],
                   check=True, capture_output=True, text=True)
    # a bare environment: no Python, no virtualenv on the way
    run = subprocess.run([str(exe)], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"},
                         timeout=120)
    assert run.returncode == 0, run.stderr
    outputs, statuses = parse_host_output(run.stdout)
    expected = c_host_reference()
    for name, want in expected.items():
        np.testing.assert_array_equal(outputs[name], want, err_msg=name)
    assert statuses["saxpy"][0] == 0
    code, line, message = statuses["saxpy_lengths"]
    assert (code, line) == (17, 12) and "x.shape[0] == y.shape[0]" in message
    code, line, message = statuses["gather_index"]
    assert (code, line) == (17, 21) and "element 5 (flat) is 1000" in message
    assert statuses["saxpy_block_dim"][0] == 16 and "block_dim" in statuses["saxpy_block_dim"][2]
    assert statuses["saxpy_overlap"][0] == 16 and "overlap" in statuses["saxpy_overlap"][2]
    assert statuses["saxpy_dim"][0] == 16
