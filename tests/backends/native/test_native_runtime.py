"""cpu:native runs launches like the simulator: barriers (also in loops),
partial last blocks, 2-D launches, atomics across cores, and reports the
same errors (bounds, division by zero, asserts, barrier divergence)."""
from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mir_kernels import (
    asserting, atomic_count, block_reverse, divergent_barrier, elementwise, grid_2d, saxpy,
)
from verikern.backends import native
from verikern.backends.native.jit import compile_kernel
from verikern.errors import (
    BarrierDivergenceError, DivisionByZeroError, DivisionOverflowError, KernelAssertionError,
    LaunchError, OutOfBoundsError,
)
from verikern.mir.types import I8, I32, I64
from verikern.runtime import launch

DEVICES = ("cpu", "cpu:native")


@functools.lru_cache(maxsize=None)
def built(make, *args, **kwargs):
    """`make(*args, **kwargs)`, built once per process: a MIR Kernel is immutable,
    and cpu:native compiles each kernel object once (jit.compile_kernel's cache is
    keyed by the object), so the examples and cases that launch the same kernel
    share one compile instead of compiling a fresh copy each."""
    return make(*args, **kwargs)


def both(kernel, dim, make_inputs, block_dim):
    """Run on the simulator and natively; return both input lists."""
    out = []
    for dev in DEVICES:
        inputs = make_inputs()
        launch(kernel, dim, inputs, block_dim=block_dim, device=dev)
        out.append(inputs)
    return out


@pytest.mark.parametrize("n,block", [(1, 256), (1000, 256), (1025, 128), (77, 32)])
def test_saxpy_partial_last_block(n, block):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    y0 = rng.standard_normal(n).astype(np.float32)
    sim, nat = both(built(saxpy), n, lambda: [x.copy(), y0.copy(), np.float32(1.5)], block)
    expect = np.float32(1.5) * x + y0
    np.testing.assert_array_equal(nat[1], expect)
    np.testing.assert_array_equal(nat[1], sim[1])


@pytest.mark.parametrize("rounds", [0, 1, 2, 3])
def test_barriers_in_a_loop_keep_values_per_thread(rounds):
    n, block = 256, 64
    src = np.arange(n, dtype=np.int32) * 3 + 1
    sim, nat = both(built(block_reverse), n,
                    lambda: [src.copy(), np.zeros(n, np.int32), rounds], block)
    expect = src.reshape(-1, block)
    if rounds % 2:
        expect = expect[:, ::-1]
    np.testing.assert_array_equal(nat[1], expect.reshape(-1))
    np.testing.assert_array_equal(nat[1], sim[1])


def test_large_launch_runs_on_all_cores_with_atomics():
    n = 1 << 17    # above PARALLEL_MIN_THREADS: blocks spread over the workers
    assert n >= native.PARALLEL_MIN_THREADS
    count = np.zeros(1, np.int32)
    olds = np.full(n, -1, np.int32)
    launch(atomic_count(), n, [count, olds], block_dim=256, device="cpu:native")
    assert count[0] == n
    np.testing.assert_array_equal(np.sort(olds), np.arange(n, dtype=np.int32))


def test_2d_launch():
    rows, cols = 37, 29
    sim, nat = both(built(grid_2d), (rows, cols), lambda: [np.zeros((rows, cols), np.int32)], 64)
    i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    np.testing.assert_array_equal(nat[0], i * 1000 + j)
    np.testing.assert_array_equal(nat[0], sim[0])


def _errors(kernel, dim, make_inputs, block_dim):
    errs = []
    for dev in DEVICES:
        with pytest.raises(Exception) as info:
            launch(kernel, dim, make_inputs(), block_dim=block_dim, device=dev)
        errs.append(info.value)
    return errs


def test_out_of_bounds_detected_natively_like_the_simulator():
    n = 1000   # threads 1000..1023 read x[i] past the end (no guard)
    x = np.ones(n, np.float32)
    sim, nat = _errors(built(saxpy, guarded=False), 1024,
                       lambda: [x.copy(), np.ones(n, np.float32), np.float32(2)], 256)
    assert isinstance(nat, OutOfBoundsError) and isinstance(sim, OutOfBoundsError)
    assert nat.loc == sim.loc and nat.loc.line == 4 and nat.loc.col == 20
    assert (nat.thread, nat.block) == (sim.thread, sim.block) == (1000 - 768, 3)
    assert "index 1000 in dimension 0 is outside 0..999" in str(nat)
    assert "hand_kernels.py:4:20" in str(nat)


def test_division_by_zero_detected_natively():
    k = built(elementwise, "binop", "floordiv", I32)
    a = np.arange(70, dtype=np.int32)
    b = np.ones(70, np.int32)
    b[45] = 0
    sim, nat = _errors(k, 70, lambda: [a.copy(), b.copy(), np.zeros(70, np.int32)], 32)
    assert isinstance(nat, DivisionByZeroError) and isinstance(sim, DivisionByZeroError)
    assert nat.loc == sim.loc
    assert (nat.thread, nat.block) == (sim.thread, sim.block) == (13, 1)


@pytest.mark.parametrize("t", [I32, I64], ids=str)
@pytest.mark.parametrize("op", ["div", "floordiv", "mod"])
def test_int_min_divided_by_minus_one_is_a_fault_natively(op, t):
    # LLVM's sdiv/srem of INT_MIN by -1 is undefined (x86 idiv traps: SIGFPE would
    # kill this process); native reports the simulator's error at the same thread
    k = built(elementwise, "binop", op, t)
    a = np.arange(70, dtype=t.np_dtype)
    a[45] = t.min_value
    b = np.ones(70, t.np_dtype)
    b[40:50] = -1
    sim, nat = _errors(k, 70, lambda: [a.copy(), b.copy(), np.zeros(70, t.np_dtype)], 32)
    assert isinstance(nat, DivisionOverflowError) and isinstance(sim, DivisionOverflowError)
    assert nat.loc == sim.loc and nat.kind == sim.kind == "div-zero"
    assert (nat.thread, nat.block) == (sim.thread, sim.block) == (13, 1)
    assert f"{t.name} INT_MIN / -1" in str(nat)


def test_int8_min_divided_by_minus_one_wraps_natively_as_simulated():
    k = built(elementwise, "binop", "floordiv", I8)
    a = np.array([-128, -128, 7], np.int8)
    b = np.array([-1, 1, -1], np.int8)
    sim, nat = both(k, 3, lambda: [a.copy(), b.copy(), np.zeros(3, np.int8)], 32)
    assert sim[2].tolist() == nat[2].tolist() == [-128, -128, -7]


def test_assert_failure_detected_natively():
    x = np.zeros(300, np.int32)
    x[257] = -5
    sim, nat = _errors(asserting(), 300, lambda: [x.copy()], 128)
    assert isinstance(nat, KernelAssertionError) and isinstance(sim, KernelAssertionError)
    assert nat.loc == sim.loc and "x must be non-negative" in str(nat)
    assert (nat.thread, nat.block) == (sim.thread, sim.block) == (1, 2)


def test_barrier_divergence_detected_natively():
    sim, nat = _errors(built(divergent_barrier), 64, lambda: [np.zeros(64, np.int32), 5], 32)
    assert isinstance(nat, BarrierDivergenceError) and isinstance(sim, BarrierDivergenceError)
    assert nat.loc == sim.loc and nat.loc.line == 43   # first barrier in reverse postorder
    assert (nat.thread, nat.block) == (sim.thread, sim.block) == (0, 0)
    assert "waits at the barrier at line 41" in str(nat)


def test_returning_before_a_barrier_is_divergence():
    """docs/LANGUAGE.md section 4: every thread of the block must reach the barrier;
    a thread that returned counts as missing (as in the simulator)."""
    sim, nat = _errors(divergent_barrier(split_returns=True), 64,
                       lambda: [np.zeros(64, np.int32), 5], 32)
    assert isinstance(nat, BarrierDivergenceError) and isinstance(sim, BarrierDivergenceError)
    assert nat.loc == sim.loc and nat.loc.line == 41
    assert (nat.thread, nat.block) == (sim.thread, sim.block) == (5, 0)
    assert "has returned without reaching it" in str(nat)


def test_no_divergence_when_all_threads_agree():
    for cut in (0, 32):
        out = [np.zeros(64, np.int32), cut]
        launch(built(divergent_barrier), 64, out, block_dim=32, device="cpu:native")
        np.testing.assert_array_equal(out[0], np.arange(64) % 32)


def test_compiled_once_per_kernel():
    k = saxpy()
    first = compile_kernel(k)
    assert compile_kernel(k) is first
    assert first.compile_seconds > 0
    x = np.ones(10, np.float32)
    for _ in range(2):
        launch(k, 10, [x, np.zeros(10, np.float32), np.float32(1)], device="cpu:native")
    assert compile_kernel(k) is first


def test_fast_math_kernel_close_to_simulator():
    """With fast_math the generated code may reassociate/contract; the
    differential tolerance used here is 1e-6 relative (+1e-6 absolute)."""
    from dataclasses import replace

    k = replace(saxpy(), fast_math=True)
    n = 500
    rng = np.random.default_rng(5)
    x = rng.standard_normal(n).astype(np.float32)
    y0 = rng.standard_normal(n).astype(np.float32)
    sim, nat = both(k, n, lambda: [x.copy(), y0.copy(), np.float32(0.75)], 128)
    np.testing.assert_allclose(nat[1], sim[1], rtol=1e-6, atol=1e-6)
    assert compile_kernel(k).optimized_ir.count("fast") > 0


ATOMIC_CASES = [("int32", "add"), ("int32", "sub"), ("int32", "min"), ("int32", "max"),
                ("uint32", "min"), ("uint32", "max"), ("int32", "and"), ("int32", "or"),
                ("int32", "xor"), ("int64", "add"), ("float32", "add"), ("float32", "min"),
                ("float32", "max"), ("float64", "sub"), ("float16", "add")]


@pytest.mark.parametrize("tname,op", ATOMIC_CASES)
def test_atomics_final_value_matches_simulator(tname, op):
    """One thread per slot (block 1 thread), so old values are deterministic
    and every op is checked exactly; then 4 threads per slot for the final
    value (float add: order may differ, so a tolerance; exact otherwise)."""
    from mir_kernels import atomic_mix
    from verikern.mir.types import SCALAR_TYPES

    t = SCALAR_TYPES[tname]
    k = atomic_mix(t, op)
    rng = np.random.default_rng(2)
    n = 64
    if t.is_float:
        vals = rng.uniform(-4, 4, n).astype(t.np_dtype)
        start = rng.uniform(-4, 4, 16).astype(t.np_dtype)
    else:
        vals = rng.integers(-50 if t.is_signed else 0, 1000, n).astype(t.np_dtype)
        start = rng.integers(0, 1000, 16).astype(t.np_dtype)
    for slots in (n, 16):
        acc0 = np.resize(start, slots).astype(t.np_dtype)
        sim, nat = both(k, n, lambda acc0=acc0: [acc0.copy(), vals.copy(), vals.copy(),
                                       np.zeros(n, t.np_dtype)], 32)
        if slots == n:
            assert sim[3].tobytes() == nat[3].tobytes()      # old values
            assert sim[0].tobytes() == nat[0].tobytes()
        elif t.is_float and op in ("add", "sub"):
            np.testing.assert_allclose(nat[0], sim[0], rtol=1e-2 if t.bits == 16 else 1e-5)
        else:
            assert sim[0].tobytes() == nat[0].tobytes()


@pytest.mark.parametrize("tname", ["int32", "float32", "uint8"])
def test_atomic_cas_and_exch_match_simulator(tname):
    from mir_kernels import atomic_mix
    from verikern.mir.types import SCALAR_TYPES

    t = SCALAR_TYPES[tname]
    n = 40
    acc0 = np.arange(n).astype(t.np_dtype)
    vals = (np.arange(n) * 2 + 1).astype(t.np_dtype)
    cmps = np.where(np.arange(n) % 2 == 0, acc0, acc0 + 1).astype(t.np_dtype)
    for op, cas in (("cas", True), ("exch", False)):
        k = atomic_mix(t, op, with_compare=cas)
        sim, nat = both(k, n, lambda: [acc0.copy(), vals.copy(), cmps.copy(),
                                       np.zeros(n, t.np_dtype)], 16)
        assert sim[0].tobytes() == nat[0].tobytes(), op
        assert sim[3].tobytes() == nat[3].tobytes(), op
        if op == "cas":   # even slots matched their compare value and were replaced
            w = vals + (np.float32(0.25) if t.is_float else 3)
            assert nat[0][0] == w.astype(t.np_dtype)[0] and nat[0][1] == acc0[1]


def test_parallel_launch_reports_the_lowest_failing_block():
    n_threads, n = 1 << 17, 100_000     # threads >= 100000 read past the end
    assert n_threads >= native.PARALLEL_MIN_THREADS
    x = np.ones(n, np.float32)
    sim, nat = _errors(built(saxpy, guarded=False), n_threads,
                       lambda: [x.copy(), np.ones(n, np.float32), np.float32(2)], 256)
    assert isinstance(nat, OutOfBoundsError)
    assert (nat.thread, nat.block) == (sim.thread, sim.block) == (n % 256, n // 256)


@pytest.mark.parametrize("threads", ["1", "3"])
def test_a_fixed_thread_count_changes_neither_results_nor_the_failure_reported(
        monkeypatch, threads):
    monkeypatch.setenv(native.THREADS_ENV, threads)
    assert native.workers() == int(threads)
    n_threads, n = 1 << 17, 100_000     # threads >= 100000 read past the end
    rng = np.random.default_rng(3)
    x = rng.standard_normal(n_threads).astype(np.float32)
    y0 = rng.standard_normal(n_threads).astype(np.float32)
    sim, nat = both(built(saxpy), n_threads, lambda: [x.copy(), y0.copy(), np.float32(1.5)], 256)
    np.testing.assert_array_equal(nat[1], np.float32(1.5) * x + y0)
    np.testing.assert_array_equal(nat[1], sim[1])
    _, err = _errors(built(saxpy, guarded=False), n_threads,
                     lambda: [x[:n].copy(), np.ones(n, np.float32), np.float32(2)], 256)
    assert isinstance(err, OutOfBoundsError)
    assert (err.thread, err.block) == (n % 256, n // 256)


@pytest.mark.parametrize("text", ["0", "-2", "two"])
def test_a_bad_thread_count_is_refused_with_what_to_do(monkeypatch, text):
    monkeypatch.setenv(native.THREADS_ENV, text)
    with pytest.raises(LaunchError, match="VERIKERN_NATIVE_THREADS.*positive whole number"):
        launch(built(saxpy), 8, [np.ones(8, np.float32), np.ones(8, np.float32), np.float32(1)],
               device="cpu:native")


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 900), st.sampled_from([1, 3, 32, 64, 100, 256, 1024]),
       st.integers(0, 2**32 - 1))
def test_launch_shapes_saxpy_hypothesis(n, block, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n).astype(np.float32)
    y0 = rng.standard_normal(n).astype(np.float32)
    sim, nat = both(built(saxpy), n, lambda: [x.copy(), y0.copy(), np.float32(-0.5)], block)
    assert sim[1].tobytes() == nat[1].tobytes()


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.sampled_from([1, 5, 32, 128]))
def test_launch_shapes_2d_hypothesis(rows, cols, block):
    sim, nat = both(built(grid_2d), (rows, cols), lambda: [np.zeros((rows, cols), np.int32)], block)
    i, j = np.indices((rows, cols))
    np.testing.assert_array_equal(nat[0], i * 1000 + j)
    assert sim[0].tobytes() == nat[0].tobytes()


@settings(max_examples=8, deadline=None)
@given(st.sampled_from([1, 2, 16, 64]), st.integers(1, 5), st.integers(0, 3))
def test_barrier_kernel_block_sizes_hypothesis(block, blocks, rounds):
    n = block * blocks
    src = np.arange(n, dtype=np.int32) * 7 - 3
    sim, nat = both(built(block_reverse), n, lambda: [src.copy(), np.zeros(n, np.int32), rounds],
                    block)
    assert sim[1].tobytes() == nat[1].tobytes()


def test_read_only_arrays():
    from verikern.errors import LaunchError

    n = 50
    x = np.arange(n, dtype=np.float32)
    x.flags.writeable = False                      # read-only input: fine
    y = np.zeros(n, np.float32)
    launch(built(saxpy), n, [x, y, np.float32(2)], device="cpu:native")
    np.testing.assert_array_equal(y, 2 * x)
    y.flags.writeable = False                      # read-only output: refused
    with pytest.raises(LaunchError, match="argument y is a read-only"):
        launch(built(saxpy), n, [x.copy(), y, np.float32(2)], device="cpu:native")
