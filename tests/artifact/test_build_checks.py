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


FLOAT_BRANCH = '''import verikern as vk


@vk.kernel{options}
def mark(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    vk.requires(x.shape[0] == out.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        if x[i] > 0.5:
            out[i] = 1.0
'''


@needs_cc
def test_under_fast_math_a_float_controlled_access_keeps_its_check(tmp_path):
    ieee = tmp_path / "ieee.py"
    ieee.write_text(FLOAT_BRANCH.format(options=""))
    fast = tmp_path / "fast.py"
    fast.write_text(FLOAT_BRANCH.format(options='(module_options={"fast_math": True})'))
    r_ieee, _ = built(ieee, tmp_path / "i", checks="unproved")
    r_fast, _ = built(fast, tmp_path / "f", checks="unproved")
    assert set(bounds_verdicts(r_ieee, "mark").values()) == {"proved"}
    assert set(bounds_verdicts(r_fast, "mark").values()) == {"proved"}
    assert removed_ids(r_ieee, "mark") == {"bounds@9:12#0", "bounds@10:13#0"}
    assert removed_ids(r_fast, "mark") == {"bounds@9:12#0"}     # x[i]: no float feeds i


RACY_SCATTER = '''import verikern as vk


@vk.kernel
def scatter_ones(idx: vk.array(dtype=vk.int32), x: vk.array(dtype=vk.float32)):
    vk.requires(vk.all_in_range(idx, 0, x.shape[0]))
    vk.requires(idx.shape[0] == x.shape[0]){distinct}
    i = vk.tid()
    if i < idx.shape[0]:
        x[idx[i]] = 1.0
'''


@needs_cc
def test_an_index_read_from_memory_keeps_its_check_while_a_race_is_unproved(tmp_path):
    racy = tmp_path / "racy.py"
    racy.write_text(RACY_SCATTER.format(distinct=""))
    clean = tmp_path / "clean.py"
    clean.write_text(RACY_SCATTER.format(distinct="\n    vk.requires(vk.all_distinct(idx))"))
    r_racy, _ = built(racy, tmp_path / "r", checks="unproved")
    r_clean, _ = built(clean, tmp_path / "c", checks="unproved")
    assert r_racy.manifest["kernels"][0]["proof"]["status"] == "failed"     # the race
    assert set(bounds_verdicts(r_racy, "scatter_ones").values()) == {"proved"}
    assert removed_ids(r_racy, "scatter_ones") == {"bounds@10:11#0"}        # idx[i] only
    assert removed_ids(r_clean, "scatter_ones") == {"bounds@11:9#0", "bounds@11:11#0"}
