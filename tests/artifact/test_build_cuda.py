"""`verikern build --target sm_XY`: PTX assembled by ptxas into cubins, a C
loader that gcc compiles and links without the CUDA toolkit, and -- where a
GPU is lent -- the C host example on the GPU equal to the simulator."""
from __future__ import annotations

import subprocess

import numpy as np
import pytest

from cabi_helpers import C_HOST, CORPUS, c_host_reference, needs_cc, parse_host_output
from verikern.app.build import BuildOptions, build
from verikern.backends.cuda import cuda_available
from verikern.backends.llvm import build as lower_kernel
from verikern.backends.llvm.abi import ERR_BOUNDS
from verikern.backends.ptx import find_ptxas
from verikern.frontend import compile_file

needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="no ptxas on this machine")


def _host_program(tmp_path, arch: str):
    out = tmp_path / "gpu"
    result = build(C_HOST / "kernels.py", out, BuildOptions(target=arch, checks="unproved"))
    exe = tmp_path / "c_host_cuda"
    subprocess.run(["gcc", "-O2", "-Wall", "-Werror", "-I", str(out),
                    str(C_HOST / "main_cuda.c"), "-L", str(out), "-lkernels_cuda",
                    f"-Wl,-rpath,{out}", "-o", str(exe)], check=True, capture_output=True)
    return result, out, exe


@needs_cc
@needs_ptxas
def test_gpu_build_assembles_its_ptx_and_the_loader_links_with_gcc(tmp_path):
    result, out, exe = _host_program(tmp_path, "sm_80")
    m = result.manifest
    assert m["target"] == "sm_80" and m["toolchain"]["ptxas"] != "not found"
    for k in ("saxpy", "gather", "blur_rows"):
        ptx = (out / f"{k}.ptx").read_text()
        assert ".target sm_80" in ptx and f".entry {k}(" in ptx
        assert (out / f"{k}.cubin").read_bytes()[:4] == b"\x7fELF"
        assert m["files"][f"{k}.cubin"]
    run = subprocess.run([str(exe), str(out)], capture_output=True, text=True, timeout=300)
    _, statuses = parse_host_output(run.stdout)
    # refused before any device work, GPU or not
    assert statuses["saxpy_lengths"][:2] == (17, 12)
    if not cuda_available(0)[0]:
        assert run.returncode == 2, run.stderr
        assert statuses["saxpy_unloaded"][0] == 19


def test_removed_checks_are_gone_from_the_ptx_lowering_too():
    kernel = compile_file(CORPUS / "ok_gather_in_range.py").kernel("gather_checked").mir
    full = [s for s in lower_kernel(kernel, "nvptx").sites if s.code == ERR_BOUNDS]
    labels = {(b.label, i) for b in kernel.blocks for i, ins in enumerate(b.instrs)
              if hasattr(ins, "indices") and ins.array.name == "x"}
    (label, index), = labels
    fewer = lower_kernel(kernel, "nvptx", unchecked=frozenset({(label, index, 0)})).sites
    assert len(full) == 3 and [s.array for s in fewer if s.code == ERR_BOUNDS] == ["idx", "out"]


@pytest.mark.gpu
@needs_cc
@needs_ptxas
@pytest.mark.skipif(not cuda_available(0)[0], reason=cuda_available(0)[1] or "no CUDA device")
def test_the_c_host_example_on_the_gpu_equals_the_simulator(tmp_path):
    from verikern.backends.cuda.runner import default_arch  # lazy: only where a GPU is lent

    _, out, exe = _host_program(tmp_path, default_arch(0))
    run = subprocess.run([str(exe), str(out)], capture_output=True, text=True, timeout=300,
                         env={"PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stdout + run.stderr
    outputs, statuses = parse_host_output(run.stdout)
    for name, want in c_host_reference().items():
        # docs/LANGUAGE.md section 6: + - * agree within 1e-6 relative on a GPU (fma)
        np.testing.assert_allclose(outputs[name], want, rtol=1e-6, atol=1e-6, err_msg=name)
    assert statuses["gather_index"][0] == 17 and statuses["saxpy_block_dim"][0] == 16
