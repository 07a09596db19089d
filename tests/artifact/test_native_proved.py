"""The "cpu:native:proved" device: cpu:native without the index checks
whose bounds are proved; results equal cpu:native's, and an unproved
access still stops the kernel where cpu:native does."""
from __future__ import annotations

import llvmlite.binding as llvm
import numpy as np
import pytest

import verikern as vk
from cabi_helpers import CORPUS, REPO
from verikern.app.native_proved import unchecked_for
from verikern.backends.llvm.abi import ERR_BOUNDS
from verikern.backends.native.jit import compile_kernel
from verikern.errors import ContractError, OutOfBoundsError
from verikern.frontend import compile_file


def test_proved_device_drops_the_proved_checks_and_computes_the_same():
    k = compile_file(CORPUS / "ok_gather_in_range.py").kernel("gather_checked").mir
    unchecked = unchecked_for(k)
    assert len(unchecked) == 3
    assert [s for s in compile_kernel(k, unchecked=unchecked).lowered.sites
            if s.code == ERR_BOUNDS] == []
    rng = np.random.default_rng(0)
    x = rng.standard_normal(5000).astype(np.float32)
    idx = rng.integers(0, 5000, 4000).astype(np.int32)
    got, want = np.zeros(4000, np.float32), np.zeros(4000, np.float32)
    vk.launch(k, 4000, [x, idx, got], device="cpu:native:proved")
    vk.launch(k, 4000, [x, idx, want], device="cpu:native")
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, x[idx])
    # the contract is still checked at launch
    with pytest.raises(ContractError):
        vk.launch(k, 4000, [x, np.full(4000, 5000, np.int32), got], device="cpu:native:proved")


def test_proved_device_on_a_buggy_kernel_still_stops_at_the_bad_access():
    k = compile_file(CORPUS / "bounds_stencil_no_halo_guard.py").kernel("stencil3_no_halo").mir
    x, out = np.ones(64, np.float32), np.zeros(64, np.float32)
    with pytest.raises(OutOfBoundsError) as err:
        vk.launch(k, 64, [x, out], device="cpu:native:proved")
    assert (err.value.loc.line, err.value.loc.col) == (14, 19)


def test_proved_device_matches_the_simulator_on_saxpy():
    k = compile_file(REPO / "examples" / "saxpy.py").kernel("saxpy").mir
    x = np.arange(1000, dtype=np.float32)
    y1, y2 = np.ones(1000, np.float32), np.ones(1000, np.float32)
    vk.launch(k, 1000, [x, y1, 2.5], block_dim=96, device="cpu:native:proved")
    vk.launch(k, 1000, [x, y2, 2.5], block_dim=96, device="cpu")
    np.testing.assert_array_equal(y1, y2)


def test_the_column_stencil_vectorises_only_without_its_proved_checks():
    k = compile_file(REPO / "benchmarks" / "kernels" / "column_stencil.py").kernel(
        "column_stencil").mir
    unchecked = unchecked_for(k)
    assert len(unchecked) == 4
    if llvm.get_host_cpu_features().get("avx512f", False):
        assert "vector.body" not in compile_kernel(k).optimized_ir      # the checks' early exits
        assert "vector.body" in compile_kernel(k, unchecked=unchecked).optimized_ir
    x = np.random.default_rng(2).standard_normal(5000).astype(np.float32)
    out = np.zeros(5000, np.float32)
    vk.launch(k, 5000, [x, out, 64], block_dim=128, device="cpu:native:proved")
    want = np.zeros(5000, np.float32)
    want[64:-64] = x[:-128] + x[64:-64] + x[128:]
    np.testing.assert_array_equal(out, want)
