"""The C entry point checks every launch the proof does not cover before
the kernel runs (the C form of vk.check_launch): array contracts, launch
geometry, block features; a kernel with barriers and shared memory runs
as on the simulator."""
from __future__ import annotations

import ctypes
import subprocess
import sys

import numpy as np
from click.testing import CliRunner

import verikern as vk
from cabi_helpers import CORPUS, REPO, built, call, needs_cc, ptr
from verikern.cli import main
from verikern.frontend import compile_file

I64, I32 = ctypes.c_int64, ctypes.c_int32


@needs_cc
def test_all_distinct_and_all_in_range_at_the_boundary(tmp_path):
    _, lib = built(CORPUS / "ok_scatter_permutation.py", tmp_path / "p", checks="unproved")
    x = np.arange(6, dtype=np.float32) + 1
    out = np.zeros(6, np.float32)

    def scatter(perm):
        return call(lib, "scatter_perm", ptr(x), I64(6), ptr(perm), I64(6), ptr(out), I64(6),
                    I64(6), I32(4))

    st = scatter(np.array([5, 4, 3, 2, 1, 0], np.int32))
    assert st.code == 0
    np.testing.assert_array_equal(out, x[::-1])
    out[:] = 0
    st = scatter(np.array([5, 4, 3, 4, 1, 0], np.int32))
    assert st.code == 17 and b"all_distinct" in st.message and b"elements 1 and 3" in st.message
    assert not out.any()                                   # the kernel did not run
    st = scatter(np.array([5, 4, 3, 2, 1, -1], np.int32))
    assert st.code == 17 and b"all_in_range(0, 6)" in st.message and b"element 5" in st.message


@needs_cc
def test_all_sorted_at_the_boundary(tmp_path):
    _, lib = built(CORPUS / "ok_csr_edge_scale_sorted.py", tmp_path / "c", checks="unproved")
    w = np.arange(5, dtype=np.float32) + 1
    x = np.array([2.0, 3.0], np.float32)
    out = np.zeros(5, np.float32)

    def scale(offsets):
        return call(lib, "scale_edges", ptr(offsets), I64(3), ptr(w), I64(5), ptr(x), I64(2),
                    ptr(out), I64(5), I64(2), I32(32))

    assert scale(np.array([0, 2, 5], np.int32)).code == 0
    np.testing.assert_array_equal(out, w * np.array([2, 2, 3, 3, 3], np.float32))
    st = scale(np.array([0, 3, 2], np.int32))
    assert st.code == 17 and b"all_sorted" in st.message and b"element 1 is 3" in st.message


@needs_cc
def test_block_features_and_barriers_match_the_simulator(tmp_path):
    src = REPO / "examples" / "block_reduce.py"
    _, lib = built(src, tmp_path / "r", checks="unproved")
    rng = np.random.default_rng(3)
    x = rng.standard_normal(1000).astype(np.float32)
    partial = np.zeros(8, np.float32)
    st = call(lib, "block_sum", ptr(x), I64(1000), ptr(partial), I64(8), I64(1024), I32(128))
    assert st.code == 0, st.message
    want = np.zeros(8, np.float32)
    kernel = compile_file(src).kernel("block_sum").mir
    vk.launch(kernel, 1024, inputs=[x, want], block_dim=128, device="cpu")
    np.testing.assert_array_equal(partial, want)
    # a launch that is not a multiple of block_dim, a block_dim the requires refuses
    st = call(lib, "block_sum", ptr(x), I64(1000), ptr(partial), I64(8), I64(1000), I32(128))
    assert st.code == 16 and b"multiple of block_dim" in st.message
    st = call(lib, "block_sum", ptr(x), I64(1000), ptr(partial), I64(8), I64(960), I32(96))
    assert st.code == 17 and st.line == 17


@needs_cc
def test_cli_build_writes_the_files_and_refuses_bad_input(tmp_path):
    out = tmp_path / "o"
    run = subprocess.run([sys.executable, "-m", "verikern.cli", "build",
                          str(CORPUS / "ok_gather_in_range.py"), "-o", str(out)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "PROVED  gather_checked: vk_gather_checked (0 bounds check(s) removed, 3 kept)" \
        in run.stdout
    names = {p.name for p in out.iterdir()}
    assert names == {"libok_gather_in_range.so", "ok_gather_in_range.h", "ok_gather_in_range.c",
                     "ok_gather_in_range.manifest.json", "ok_gather_in_range.proof.json"}
    # the refusals in this process (the command's own exit code and stderr): the process
    # above already ran `python -m verikern.cli build`
    bad = CliRunner().invoke(main, ["build", str(tmp_path / "no.py"), "-o", str(out)])
    assert bad.exit_code == 3 and "no.py: no such file" in bad.stderr
    bad = CliRunner().invoke(main, ["build", str(CORPUS / "ok_gather_in_range.py"), "-o", str(out),
                                    "--target", "gpu"])
    assert bad.exit_code == 3 and "bad --target 'gpu'" in bad.stderr


CLASHING_NAMES = '''import verikern as vk


@vk.kernel
def tricky(size: vk.array(dtype=vk.float32), data: vk.array(dtype=vk.int32), n: vk.int32,
           free: vk.float32, vk_x: vk.int32, status: vk.int32, int: vk.int32):
    vk.requires(vk.all_in_range(data, 0, size.shape[0]))
    vk.requires(vk.all_distinct(data))
    vk.requires(n <= size.shape[0])
    i = vk.tid()
    if i < n and i < data.shape[0]:
        size[data[i]] = free + float(vk_x + status + int)
'''


@needs_cc
def test_parameters_named_like_c_keywords_or_the_wrappers_locals_are_renamed(tmp_path):
    src = tmp_path / "names.py"
    src.write_text(CLASHING_NAMES)
    result, lib = built(src, tmp_path / "n", checks="unproved")
    assert result.manifest["kernels"][0]["prototype"] == (
        "int32_t vk_tricky(float* u_size, int64_t u_size_shape0, const int32_t* u_data, "
        "int64_t u_data_shape0, int32_t u_n, float u_free, int32_t u_vk_x, int32_t u_status, "
        "int32_t u_int, int64_t dim0, int32_t block_dim, vk_status* status)")
    size = np.zeros(6, np.float32)
    data = np.array([4, 0, 2], np.int32)
    args = [ptr(size), I64(6), ptr(data), I64(3), I32(3), ctypes.c_float(0.5), I32(1), I32(2),
            I32(3)]
    assert call(lib, "tricky", *args, I64(3), I32(2)).code == 0
    np.testing.assert_array_equal(size, [6.5, 0, 6.5, 0, 6.5, 0])
    data[2] = 0
    st = call(lib, "tricky", *args, I64(3), I32(2))
    assert st.code == 17 and b"all_distinct" in st.message
