"""`vk.launch` with Warp arrays (read through `.numpy()`, results written back,
as docs/LANGUAGE.md section 3 and `vk.check_launch` promise) and the simulator's
limits `max_steps` and `max_work`."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.errors import KernelRuntimeError, LaunchError, SimulationBudgetExceeded
from verikern.runtime import check_launch, launch

from shared_helpers import mir_of

SAXPY = mir_of("""
    @vk.kernel
    def saxpy(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32), a: vk.float32):
        i = vk.tid()
        if i < x.shape[0]:
            y[i] = a * x[i] + y[i]
""", header=True)

LOOP = mir_of("""
    @vk.kernel
    def spin(out: vk.array(dtype=vk.int32), n: vk.int32):
        i = vk.tid()
        total = 0
        for k in range(n):
            total = total + k
        if i < out.shape[0]:
            out[i] = total
""", header=True)


@pytest.fixture(scope="module")
def wp():
    warp = pytest.importorskip("warp", reason="warp-lang is a test dependency")
    warp.config.quiet = True
    warp.init()
    return warp


@pytest.mark.parametrize("device", ["cpu", "cpu:native"])
def test_warp_cpu_arrays_are_read_and_written_back(wp, device):
    x_np = np.arange(50, dtype=np.float32)
    x = wp.array(x_np, dtype=wp.float32, device="cpu")
    y = wp.array(np.ones(50, dtype=np.float32), dtype=wp.float32, device="cpu")
    launch(SAXPY, 50, [x, y, 2.0], block_dim=32, device=device)
    np.testing.assert_array_equal(y.numpy(), 2.0 * x_np + 1.0)
    np.testing.assert_array_equal(x.numpy(), x_np)                 # read, not changed
    check_launch(SAXPY, 50, [x, y, 2.0])                            # the same arrays pass the checks


def test_a_warp_array_of_the_wrong_dtype_is_refused_naming_the_parameter(wp):
    x = wp.array(np.arange(8, dtype=np.int32), dtype=wp.int32, device="cpu")
    y = wp.zeros(8, dtype=wp.float32, device="cpu")
    with pytest.raises(LaunchError, match="x"):
        launch(SAXPY, 8, [x, y, 1.0])


class _CopyingArray:
    """An array object whose `.numpy()` is a read-only copy (as for device
    memory): the launch must write its results back with `.assign`."""

    def __init__(self, data):
        self.data = np.array(data)
        self.shape = self.data.shape
        self.assigned = 0

    def numpy(self):
        view = self.data.copy()
        view.flags.writeable = False
        return view

    def assign(self, values):
        self.assigned += 1
        self.data[...] = values


def test_an_array_read_through_a_copy_gets_the_results_assigned_back():
    x, y = _CopyingArray(np.arange(5, dtype=np.float32)), _CopyingArray(np.zeros(5, dtype=np.float32))
    launch(SAXPY, 5, [x, y, 3.0], device="cpu")
    np.testing.assert_array_equal(y.data, 3.0 * np.arange(5, dtype=np.float32))
    assert y.assigned == 1


def test_max_steps_bounds_the_simulators_scheduling_and_says_how_to_raise_it():
    out = np.zeros(4, np.int32)
    launch(LOOP, 4, [out, 10], device="cpu", max_steps=1000)
    assert list(out) == [45] * 4
    with pytest.raises(KernelRuntimeError) as info:
        launch(LOOP, 4, [out, 10_000], device="cpu", max_steps=1000)
    message = str(info.value)
    assert "did not finish after 1000 scheduling steps" in message
    assert "--max-steps N" in message and "simulate(..., max_steps=N)" not in message


def test_max_work_counts_warp_steps_and_only_the_simulator_takes_limits():
    out = np.zeros(64, np.int32)
    launch(LOOP, 64, [out, 5], device="cpu", block_dim=32, max_work=10_000)
    with pytest.raises(SimulationBudgetExceeded) as info:
        launch(LOOP, 64, [out, 5000], device="cpu", block_dim=32, max_work=10_000)
    assert (info.value.limit, info.value.used > 10_000) == (10_000, True)
    with pytest.raises(LaunchError, match="limit the simulator"):
        launch(LOOP, 64, [out, 5], device="cpu:native", max_steps=10)
    with pytest.raises(LaunchError, match="max_work must be a positive integer"):
        launch(LOOP, 64, [out, 5], device="cpu", max_work=0)
    assert vk.launch is launch
