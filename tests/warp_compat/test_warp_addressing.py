"""Element addresses of global arrays under real Warp on its CPU device,
verikern's simulator and cpu:native, against numpy multi-indices: 1-4
dimensions, int32, vec3 and mat22 elements, every mix of uniform and
per-thread index parts, read and written (the part of
tests/backends/simulator/addressing_kernels.py that Warp can express:
Warp kernels have no shared arrays or barriers)."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import verikern as vk
from addressing_kernels import (WARP_ELEMENTS, WARP_THREADS, warp_inputs, warp_kernel_name,
                                warp_reference, warp_source)
from warp_kernel_cache import init_warp_quietly

wp = pytest.importorskip("warp")


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    init_warp_quietly(wp)
    path = tmp_path_factory.mktemp("kernels") / "addressing_warp_kernels.py"
    path.write_text(warp_source())
    spec = importlib.util.spec_from_file_location("verikern_warp_addressing", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("element", sorted(WARP_ELEMENTS))
@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
def test_warp_simulator_and_native_agree_with_numpy(kernels, ndim, element):
    kernel = getattr(kernels, warp_kernel_name(ndim, element))
    args = warp_inputs(ndim, element)
    want = warp_reference(ndim, element, args)
    theirs = [wp.array(a, dtype=kernel.adj.args[k].type.dtype, device="cpu")
              if isinstance(a, np.ndarray) else a for k, a in enumerate(args)]
    wp.launch(kernel, dim=WARP_THREADS, inputs=theirs, device="cpu")
    wp.synchronize_device("cpu")
    for k, a in enumerate(theirs):
        if isinstance(args[k], np.ndarray):
            got = a.numpy().reshape(want[k].shape)
            np.testing.assert_array_equal(got, want[k], err_msg=f"warp, argument {k}")
    for device in ("cpu", "cpu:native"):
        ours = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        vk.launch(kernel, WARP_THREADS, ours, block_dim=16, device=device)
        for k, a in enumerate(ours):
            if isinstance(a, np.ndarray):
                np.testing.assert_array_equal(a, want[k], err_msg=f"{device}, argument {k}")
