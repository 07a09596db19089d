"""`--checks unproved`: a bounds check is removed exactly where its
obligation is proved under the contract the entry point enforces; an
`unknown` proof (a small budget, a contract taken away) keeps it, and a
buggy kernel still stops at its bad access."""
from __future__ import annotations

import ctypes
import hashlib
import json

import numpy as np

from cabi_helpers import CORPUS, bounds_verdicts, built, call, needs_cc, ptr, removed_ids
from verikern.app.prove import prove_file
from verikern.backends.llvm import build as lower_kernel
from verikern.backends.llvm.abi import ERR_BOUNDS
from verikern.frontend import compile_file

GATHER = CORPUS / "ok_gather_in_range.py"


def _bounds_sites(path, name, unchecked=frozenset()):
    kernel = compile_file(path).kernel(name).mir
    return [s for s in lower_kernel(kernel, "cpu", unchecked=unchecked).sites if s.code == ERR_BOUNDS]


@needs_cc
def test_unproved_removes_every_proved_bounds_check_and_lists_it(tmp_path):
    result, _ = built(GATHER, tmp_path / "u", checks="unproved")
    verdicts = bounds_verdicts(result, "gather_checked")
    assert verdicts and set(verdicts.values()) == {"proved"}
    assert removed_ids(result, "gather_checked") == set(verdicts)
    kernel = result.manifest["kernels"][0]
    assert kernel["checks"]["kept_bounds_checks"] == 0
    # the LLVM code has no bounds check left, and the full build keeps all three
    assert len(_bounds_sites(GATHER, "gather_checked")) == 3
    all_checks, _ = built(GATHER, tmp_path / "a", checks="all")
    assert removed_ids(all_checks, "gather_checked") == set()


@needs_cc
def test_a_removed_contract_brings_the_check_back_and_it_fires(tmp_path):
    src = tmp_path / "gather_no_contract.py"
    src.write_text(GATHER.read_text().replace(
        "    vk.requires(vk.all_in_range(idx, 0, x.shape[0]))\n", ""))
    result, lib = built(src, tmp_path / "out", checks="unproved")
    verdicts = bounds_verdicts(result, "gather_checked")
    x_read = next(i for i, s in verdicts.items() if s != "proved")
    assert removed_ids(result, "gather_checked") == {i for i, s in verdicts.items() if s == "proved"}
    assert x_read not in removed_ids(result, "gather_checked")
    # the same kernel with its contract removes that check (the test above)
    x = np.arange(8, dtype=np.float32)
    idx = np.array([0, 3, 8, 1], np.int32)          # idx[2] is out of x's range
    out = np.zeros(4, np.float32)
    st = call(lib, "gather_checked", ptr(x), ctypes.c_int64(8), ptr(idx), ctypes.c_int64(4),
              ptr(out), ctypes.c_int64(4), ctypes.c_int64(4), ctypes.c_int32(2))
    assert st.code == 1 and (st.line, st.col) == (int(x_read.split("@")[1].split(":")[0]),
                                                   int(x_read.split(":")[1].split("#")[0]))
    assert b"index 8 is out of bounds" in st.message and b"array 'x'" in st.message


@needs_cc
def test_a_budget_too_small_to_prove_keeps_every_check(tmp_path):
    result, _ = built(GATHER, tmp_path / "b", checks="unproved", budget=1e-6)
    verdicts = bounds_verdicts(result, "gather_checked")
    assert "proved" not in verdicts.values()
    assert removed_ids(result, "gather_checked") == set()
    assert result.manifest["kernels"][0]["checks"]["kept_bounds_checks"] == 3


@needs_cc
def test_a_buggy_kernel_built_unproved_still_stops_at_its_bad_access(tmp_path):
    src = CORPUS / "bounds_stencil_no_halo_guard.py"
    result, lib = built(src, tmp_path / "s", checks="unproved")
    verdicts = bounds_verdicts(result, "stencil3_no_halo")
    assert verdicts["bounds@14:19#0"] == "failed" and verdicts["bounds@14:37#0"] == "failed"
    assert removed_ids(result, "stencil3_no_halo") == {i for i, s in verdicts.items() if s == "proved"}
    x = np.arange(5, dtype=np.float32)
    out = np.full(5, 7.0, np.float32)
    st = call(lib, "stencil3_no_halo", ptr(x), ctypes.c_int64(5), ptr(out), ctypes.c_int64(5),
              ctypes.c_int64(5), ctypes.c_int32(4))
    assert (st.code, st.line, st.col, st.thread, st.block) == (1, 14, 19, 0, 0)
    assert b"index -1 is out of bounds" in st.message


@needs_cc
def test_the_manifest_ties_the_library_to_its_proof(tmp_path):
    result, _ = built(GATHER, tmp_path / "m", checks="unproved")
    m = result.manifest
    on_disk = json.loads((tmp_path / "m" / "ok_gather_in_range.manifest.json").read_text())
    assert on_disk == m
    report = (tmp_path / "m" / m["proof_report"]["file"]).read_bytes()
    assert hashlib.sha256(report).hexdigest() == m["proof_report"]["sha256"]
    for name, sha in m["files"].items():
        assert hashlib.sha256((tmp_path / "m" / name).read_bytes()).hexdigest() == sha
    kernel = m["kernels"][0]
    assert kernel["mir_sha256"] == prove_file(GATHER)[0].scope.mir_sha256
    assert kernel["contract"] == [{"kind": "all_in_range", "line": 8, "col": 5,
                                   "text": "vk.all_in_range(idx, 0, x.shape[0])"}]
    assert kernel["signature"][1] == {"name": "idx", "kind": "array", "dtype": "int32", "ndim": 1,
                                      "inner": [], "written": False}
    assert kernel["prototype"].startswith("int32_t vk_gather_checked(const float* x, int64_t "
                                          "x_shape0, const int32_t* idx")
    assert {"verikern", "llvmlite", "llvm", "cc"} <= set(m["toolchain"])
    assert json.loads(report)[0]["status"] == "proved"
