"""A parallel cpu:native launch: the calling thread and its helpers claim
chunks of blocks from one shared counter (kernel_cpu._worker_wrapper).
Results and the failure reported do not depend on the number of workers or
on the chunk size: the lowest failing block wins, a failing worker stops the
others claiming, and barrier kernels keep their per-worker scratch."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

from mir_kernels import asserting, block_reverse, divergent_barrier, saxpy
from verikern.backends import native
from verikern.backends.launch import launch_config
from verikern.backends.llvm.abi import ERR_BOUNDS, ERR_WORDS
from verikern.backends.native.jit import compile_kernel
from verikern.errors import BarrierDivergenceError, KernelAssertionError
from verikern.runtime import launch


@pytest.mark.parametrize("grid,block_dim,workers,chunk", [
    (16384, 256, 2, 64),    # 4M threads: 16K threads a claim
    (64, 256, 2, 4),        # the smallest parallel launch: an eighth of a share
    (16, 1024, 4, 1),       # never below one block
    (4096, 1024, 2, 16),
])
def test_a_claim_is_about_16k_threads_and_a_fraction_of_each_share(grid, block_dim, workers,
                                                                   chunk):
    assert native.claim_blocks(grid, block_dim, workers) == chunk


def _worker_call(ck, kernel, n_threads, arrays, chunk, counter):
    lc = launch_config(kernel, n_threads, 256)
    args = native._pack_args(ck, kernel, lc, arrays, {"a": np.float32(2)})
    err = np.zeros(ERR_WORDS, np.int64)
    state = np.zeros(256, np.int32)
    shared = np.zeros(16, np.uint8)
    spill = np.zeros(256, np.int64)
    code = ck.worker(ctypes.addressof(args), counter.ctypes.data, chunk, shared.ctypes.data,
                     state.ctypes.data, spill.ctypes.data, err.ctypes.data)
    return code, err, lc.grid_dim


def test_a_failing_worker_stops_at_its_first_failure_and_ends_every_claim():
    """Threads >= 1000 read past x's end (blocks 3.. fail); a worker
    claiming one block at a time stops in block 3, moves the counter to
    grid_dim, and a second worker then finds nothing left to claim."""
    kernel = saxpy(guarded=False)
    ck = compile_kernel(kernel)
    n_threads = 4096
    arrays = {"x": np.ones(1000, np.float32), "y": np.ones(n_threads, np.float32)}
    counter = np.zeros(1, np.int64)
    code, err, grid = _worker_call(ck, kernel, n_threads, arrays, 1, counter)
    assert code == ERR_BOUNDS and int(err[3]) == 3 and int(err[2]) == 1000 - 768
    assert int(counter[0]) == grid == 16
    code, err, _ = _worker_call(ck, kernel, n_threads, arrays, 1, counter)
    assert code == 0 and not err.any()
    # blocks 0..2 ran in full before the failure: y = 2 * 1 + 1 there
    np.testing.assert_array_equal(arrays["y"][:768], np.full(768, 3, np.float32))


def test_a_worker_without_failures_runs_every_block_exactly_once():
    kernel = saxpy()
    ck = compile_kernel(kernel)
    n_threads = 5000   # a partial last block; claims of 3 blocks end past grid_dim
    x = np.arange(n_threads, dtype=np.float32)
    arrays = {"x": x, "y": np.ones(n_threads, np.float32)}
    counter = np.zeros(1, np.int64)
    code, _, grid = _worker_call(ck, kernel, n_threads, arrays, 3, counter)
    assert code == 0 and int(counter[0]) >= grid
    np.testing.assert_array_equal(arrays["y"], np.float32(2) * x + np.float32(1))


@pytest.mark.parametrize("threads", ["2", "3", "8"])
def test_the_lowest_failing_block_is_reported_whatever_the_worker_count(monkeypatch, threads):
    """Two failing threads far apart (blocks 5 and 900 of 1024): every
    worker count reports block 5's, as the one-thread run does."""
    monkeypatch.setenv(native.THREADS_ENV, threads)
    n = 1 << 17
    x = np.zeros(n, np.int32)
    x[900 * 128 + 7] = -1
    x[5 * 128 + 100] = -2
    with pytest.raises(KernelAssertionError) as info:
        launch(asserting(), n, [x], block_dim=128, device="cpu:native")
    assert (info.value.thread, info.value.block) == (100, 5)
    assert "global thread 740" in str(info.value)


@pytest.mark.parametrize("threads", ["2", "3"])
def test_barrier_kernels_run_in_parallel_with_their_own_scratch(monkeypatch, threads):
    """block_reverse through shared memory over 512 blocks: every worker
    reuses its own shared buffer, thread states and spills block after block."""
    monkeypatch.setenv(native.THREADS_ENV, threads)
    n, block = 1 << 15, 64
    assert n >= native.PARALLEL_MIN_THREADS
    src = (np.arange(n, dtype=np.int32) * 7) % 1009
    for rounds in (1, 2, 3):
        dst = np.zeros(n, np.int32)
        launch(block_reverse(), n, [src.copy(), dst, rounds], block_dim=block,
               device="cpu:native")
        want = src.reshape(-1, block)[:, ::-1] if rounds % 2 else src.reshape(-1, block)
        np.testing.assert_array_equal(dst, want.reshape(-1))


def test_divergence_in_a_parallel_launch_is_explained_from_the_failing_workers_states(
        monkeypatch):
    monkeypatch.setenv(native.THREADS_ENV, "2")
    n = 1 << 15
    with pytest.raises(BarrierDivergenceError) as info:
        launch(divergent_barrier(split_returns=True), n, [np.zeros(n, np.int32), 5],
               block_dim=32, device="cpu:native")
    assert (info.value.thread, info.value.block) == (5, 0)
    assert info.value.loc.line == 41 and "has returned without reaching it" in str(info.value)
