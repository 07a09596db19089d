"""Replay paths that confirm more real violations: only some blocks of a
launch too large to simulate, array shapes grown to cover the launch, a
descending fill, and small-model tiers in the prover. Each confirmation is
checked against the simulator run directly, and correct kernels are never
confirmed by any variant."""
from __future__ import annotations

import math
import textwrap
import warnings

import numpy as np
import pytest
import z3

import verikern.backends.simulator as simulator
from verikern.backends.simulator.engine import chunk_ranges
from verikern.errors import (BarrierDivergenceError, KernelAssertionError, LaunchError,
                             OutOfBoundsError)
from verikern.frontend import compile_source
from verikern.mir.nodes import Assert, Atomic, Barrier, BinOp, Load, SourceLoc, Store
from verikern.proofs.deciding.session import SolverSession
from verikern.proofs.obligations import Counterexample, Obligation, ObligationKind, Status
from verikern.proofs.confirming.replay import concrete_launch, replay, replay_with_witness
from verikern.proofs.confirming.replay_launch import (
    ConcreteLaunch, MAX_REPLAY_THREADS, apply_fill, covering_shapes, remap_contents,
)
from verikern.runtime import LaunchConfig, launch_config, prepare_launch

FILE = "k.py"


def kernel(src: str):
    """The MIR of the one kernel in `src` (source lines count from 1 at the
    first line after the dedent)."""
    res = compile_source(textwrap.dedent(src).lstrip("\n"), FILE)
    assert not res.errors, res.errors
    kr = res.kernels[0]
    assert kr.error is None, kr.error
    return kr.mir


_SITE_CLASSES = {
    ObligationKind.BOUNDS: (Load, Store, Atomic), ObligationKind.RACE: (Load, Store, Atomic),
    ObligationKind.DIVERGENCE: (Barrier,), ObligationKind.ASSERT: (Assert,),
    ObligationKind.INVARIANT: (Assert,), ObligationKind.DIV_ZERO: (BinOp,),
}


def _site_loc(k, kind, line, array=None) -> SourceLoc:
    """The source position of the first instruction of `kind`'s sites on
    `line` (on `array`, when given): replay matches line and column."""
    for _, ins in k.instructions():
        if isinstance(ins, _SITE_CLASSES[kind]) and ins.loc.line == line and \
                (array is None or getattr(getattr(ins, "array", None), "name", None) == array):
            return ins.loc
    raise AssertionError(f"no {kind.value} site on line {line}")


def obligation(k, kind, cex, line, other=None, abstracted=True) -> Obligation:
    if abstracted:
        cex = Counterexample(cex.dims, cex.block_dim, cex.threads, cex.scalars, cex.shapes,
                             cex.arrays, cex.facts, abstracted=True)
    array = cex.facts.get("array")
    other_loc = _site_loc(k, kind, other, array) if other is not None else None
    return Obligation(kind, _site_loc(k, kind, line, array), Status.FAILED, "m", cex,
                      other_loc=other_loc)


def run_witness(k, witness: Counterexample):
    """Simulate the launch a witness describes (its fill, if any) directly:
    the independent check that the witness is what replay ran."""
    fill = {n: (float("nan") if v == "nan" else v) for n, v in witness.facts.get("fill", {}).items()}
    launch = concrete_launch(k, witness, fill or None)
    dim = launch.dims[0] if len(launch.dims) == 1 else launch.dims
    mir, config, arrays, scalars = prepare_launch(k, dim, list(launch.inputs), launch.block_dim)
    return simulator.simulate(mir, config, arrays, scalars, trace=True, blocks=launch.blocks)


# ------------------------------------------------------------- simulator option
BLOCK_WRITER = """
import verikern as vk

@vk.kernel
def mark(out: vk.array(dtype=vk.int32), g: vk.array(dtype=vk.int32)):
    i = vk.tid()
    out[i] = vk.block_idx() * 100 + vk.thread_idx() + 1
    if i == 0 or vk.thread_idx() == 0:
        g[vk.block_idx()] = vk.grid_dim()
"""


def test_simulating_a_subset_of_blocks_runs_only_those_with_real_ids():
    k = kernel(BLOCK_WRITER)
    out, g = np.zeros(10, np.int32), np.zeros(3, np.int32)
    simulator.simulate(k, launch_config(k, 10, 4), {"out": out, "g": g}, {}, blocks=[2, 0])
    assert out.tolist() == [1, 2, 3, 4, 0, 0, 0, 0, 201, 202]   # block 2 is the partial last one
    assert g.tolist() == [3, 0, 3]                               # grid_dim unchanged


def test_a_block_outside_the_grid_is_refused():
    k = kernel(BLOCK_WRITER)
    with pytest.raises(LaunchError, match="block 3 is not in the launch"):
        simulator.simulate(k, launch_config(k, 10, 4),
                           {"out": np.zeros(10, np.int32), "g": np.zeros(3, np.int32)}, {}, blocks=[3])


def test_chunk_ranges_merge_consecutive_blocks_up_to_the_chunk_size():
    launch = LaunchConfig((10,), 4, 3, 10)
    assert list(chunk_ranges(launch, 8)) == [(0, 8), (8, 2)]
    assert list(chunk_ranges(launch, 8, [2, 0, 1, 1])) == [(0, 8), (8, 2)]
    assert list(chunk_ranges(launch, 4, [0, 2])) == [(0, 4), (8, 2)]
    assert list(chunk_ranges(launch, 1, [1])) == [(4, 4)]


def test_barrier_divergence_is_still_caught_in_a_block_subset():
    k = kernel("""
        import verikern as vk

        @vk.kernel
        def diverge(out: vk.array(dtype=vk.int32)):
            if vk.block_idx() == 1 and vk.thread_idx() == 0:
                vk.sync_threads()
            out[vk.tid()] = 1
        """)
    out = np.zeros(8, np.int32)
    simulator.simulate(k, launch_config(k, 8, 4), {"out": out}, {}, blocks=[0])
    assert out.tolist() == [1, 1, 1, 1, 0, 0, 0, 0]
    with pytest.raises(BarrierDivergenceError):
        simulator.simulate(k, launch_config(k, 8, 4), {"out": np.zeros(8, np.int32)}, {}, blocks=[1])


# ------------------------------------------------------------- huge launches
GRID_STRIDE = """
import verikern as vk

@vk.kernel
def sum_grid_stride(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    stride = vk.grid_dim() * vk.block_dim()
    acc = 0.0
    k = i
    while k < x.shape[0]:
        acc += x[k]
        k += stride
    if i < out.shape[0]:
        out[i] = acc
"""

GRID_STRIDE_SAFE = GRID_STRIDE.replace("while k < x.shape[0]:", "while k >= 0 and k < x.shape[0]:")


def test_int32_grid_stride_overflow_is_confirmed_by_running_only_the_offending_block():
    """dim = 2**31 - 1, block_dim 1: thread 0 of block 1 reads x[1], then
    k = 1 + (2**31 - 1) wraps to -2**31 < len(x) and x[-2**31] is read."""
    k = kernel(GRID_STRIDE)
    cex = Counterexample((2 ** 31 - 1,), 1, ((1, 0),), shapes={"x": (2,), "out": (2,)})
    ok, why, witness = replay_with_witness(k, obligation(k, ObligationKind.BOUNDS, cex, 10))
    assert ok, why
    assert "OutOfBoundsError at line 10 (thread 0 of block 1)" in why
    assert f"only block 1 of the {2 ** 31 - 1} blocks of the launch ran" in why
    assert witness is None                     # the prover's launch itself, as given
    launch = concrete_launch(k, cex)
    assert launch.dims == (2 ** 31 - 1,) and launch.blocks == (1,)
    with pytest.raises(OutOfBoundsError) as err:  # independent: the simulator on that block
        run_witness(k, cex)
    assert err.value.loc.line == 10 and err.value.block == 1


def test_the_guarded_grid_stride_loop_is_not_confirmed_on_the_same_huge_launch():
    k = kernel(GRID_STRIDE_SAFE)
    cex = Counterexample((2 ** 31 - 1,), 1, ((1, 0),), shapes={"x": (2,), "out": (2,)})
    ok, why = replay(k, obligation(k, ObligationKind.BOUNDS, cex, 10))
    assert not ok and "ran without a bounds violation" in why
    assert "only block 1 of" in why


def test_a_two_dimensional_launch_too_large_runs_only_the_offending_blocks():
    k = kernel("""
        import verikern as vk

        @vk.kernel
        def corner(x: vk.array(dtype=vk.float32, ndim=2)):
            i, j = vk.tid()
            x[i, j + 1] = 1.0
        """)
    dims = (2048, 1024)
    assert math.prod(dims) > MAX_REPLAY_THREADS
    last_block = math.prod(dims) // 256 - 1
    cex = Counterexample(dims, 256, ((last_block, 255),), shapes={"x": dims})
    ok, why = replay(k, obligation(k, ObligationKind.BOUNDS, cex, 6, abstracted=False))
    assert ok and "OutOfBoundsError at line 6 (thread 255 of block 8191)" in why
    assert "only block 8191 of the 8192 blocks" in why
    inner = Counterexample(dims, 256, ((0, 3),), shapes={"x": dims})
    ok, why = replay(k, obligation(k, ObligationKind.BOUNDS, inner, 6, abstracted=False))
    assert not ok and "ran without a bounds violation" in why


# ------------------------------------------------------------- covering shapes
DATA_BARRIER = """
import verikern as vk

@vk.kernel
def barrier_if_positive(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    i = vk.tid()
    v = 0.0
    if i < x.shape[0]:
        v = x[i]
    if v > 0.0:
        vk.sync_threads()
    if i < out.shape[0]:
        out[i] = v
"""


def test_data_dependent_divergence_is_confirmed_on_shapes_that_cover_the_launch():
    k = kernel(DATA_BARRIER)
    cex = Counterexample((64,), 32, ((0, 9), (0, 0)), shapes={"x": (0,), "out": (0,)},
                         facts={"barrier_line": 10})
    ok, why, witness = replay_with_witness(k, obligation(k, ObligationKind.DIVERGENCE, cex, 10))
    assert ok, why
    assert "on array shapes grown to cover the launch (x.shape=(64,), out.shape=(64,))" in why
    assert witness.shapes == {"x": (64,), "out": (64,)}
    assert witness.facts["fill"]["x"] == "alternating" and witness.dims == (64,)
    with pytest.raises(BarrierDivergenceError) as err:   # the witness, simulated directly
        run_witness(k, witness)
    assert err.value.loc.line == 10


def test_variants_are_tried_after_a_different_error_stopped_the_prover_launch():
    """x.shape=(0,) makes the unguarded read at line 6 fail first; the
    covering shapes get past it to the divergence at line 8."""
    k = kernel("""
        import verikern as vk

        @vk.kernel
        def unguarded(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32)):
            i = vk.tid()
            v = x[i]
            if v > 0.0:
                vk.sync_threads()
            y[i] = v
        """)
    cex = Counterexample((8,), 4, ((0, 1), (0, 0)), shapes={"x": (0,), "y": (8,)})
    ok, why = replay(k, obligation(k, ObligationKind.DIVERGENCE, cex, 8, abstracted=False))
    assert not ok and "OutOfBoundsError at line 6" in why
    ok, why, witness = replay_with_witness(k, obligation(k, ObligationKind.DIVERGENCE, cex, 8))
    assert ok and "BarrierDivergenceError at line 8" in why, why
    assert witness.shapes == {"x": (8,), "y": (8,)}


def test_without_the_abstraction_mark_no_variant_is_tried():
    k = kernel(DATA_BARRIER)
    cex = Counterexample((64,), 32, ((0, 9), (0, 0)), shapes={"x": (0,), "out": (0,)})
    ok, why, witness = replay_with_witness(
        k, obligation(k, ObligationKind.DIVERGENCE, cex, 10, abstracted=False))
    assert not ok and witness is None and "other array contents" not in why


ODD_EVEN = """
import verikern as vk

@vk.kernel(block_dim=64)
def odd_even(keys: vk.array(dtype=vk.int32)):
    buf = vk.shared.array(shape=(64,), dtype=vk.int32)
    t = vk.thread_idx()
    i = vk.tid()
    v = 2147483647
    if i < keys.shape[0]:
        v = keys[i]
    buf[t] = v
    vk.sync_threads()
    for phase in range(64):
        if PARITY t + 1 < 64:
            a = buf[t]
            b = buf[t + 1]
            if a > b:
                buf[t] = b
                buf[t + 1] = a
        vk.sync_threads()
    if i < keys.shape[0]:
        keys[i] = buf[t]
"""


def test_sort_race_is_confirmed_once_the_keys_cover_the_launch():
    """Lines 15 (a = buf[t]) and 19 (buf[t + 1] = a): with keys.shape=(0,)
    every key is the same and nothing swaps; covering shapes make it race."""
    k = kernel(ODD_EVEN.replace("PARITY ", ""))
    cex = Counterexample((128,), 64, ((1, 14), (1, 13)), shapes={"keys": (0,)})
    ok, why, witness = replay_with_witness(k, obligation(k, ObligationKind.RACE, cex, 15, other=19))
    assert ok, why
    assert witness.shapes == {"keys": (128,)} and "fill" in witness.facts
    from verikern.trace import find_races
    races = find_races(run_witness(k, witness).document)
    assert any(sorted((r.line, r.other_line)) == [15, 19] for r in races)


@pytest.mark.parametrize("lines", [(15, 19), (16, 18), (18, 19), (18, 22)])
def test_the_correct_odd_even_sort_is_never_confirmed_by_any_variant(lines):
    k = kernel(ODD_EVEN.replace("PARITY ", "(t + phase) % 2 == 0 and "))
    cex = Counterexample((128,), 64, ((1, 14), (1, 13)), shapes={"keys": (0,)})
    ok, why, witness = replay_with_witness(k, obligation(k, ObligationKind.RACE, cex, lines[0],
                                                         other=lines[1]))
    assert not ok and witness is None, why
    assert "other array contents or shapes tried" in why


def test_covering_shapes_grow_every_dim_monotonically_and_skip_huge_arrays():
    k = kernel("""
        import verikern as vk

        @vk.kernel
        def mm(a: vk.array(dtype=vk.float32, ndim=2), b: vk.array(dtype=vk.float32, ndim=2)):
            vk.requires(a.shape[1] == b.shape[0])
            i, j = vk.tid()
            a[i, j] = b[j, i]
        """)
    cex = Counterexample((2, 512), 256, ((0, 0),), shapes={"a": (0, 3), "b": (3, 700)})
    assert covering_shapes(k, cex) == [{"a": (1024, 1024), "b": (1024, 1024)},
                                       {"a": (512, 512), "b": (512, 700)}]
    # the launch size would give 384000 x 384000 arrays: only the largest dim covers
    big = Counterexample((1500, 256), 256, ((0, 0),), shapes={"a": (0, 3), "b": (3, 0)})
    assert covering_shapes(k, big) == [{"a": (1500, 1500), "b": (1500, 1500)}]
    covered = Counterexample((2,), 2, ((0, 0),), shapes={"a": (2, 2), "b": (2, 2)})
    assert covering_shapes(k, covered) == []


def test_recorded_contents_keep_their_multi_index_on_grown_shapes():
    assert remap_contents({5: 7.0, 0: 1.0}, (2, 3), (4, 4), ()) == {0: 1.0, 6: 7.0}
    # vec3 elements keyed over components: element (1, 0) component 2 of a (2, 2) array
    assert remap_contents({3 * 2 + 2: 9.0}, (2, 2), (3, 3), (3,)) == {3 * 3 + 2: 9.0}
    # shrinking drops what no longer fits
    assert remap_contents({5: 7.0, 1: 2.0}, (2, 3), (1, 2), ()) == {1: 2.0}


# ------------------------------------------------------------- clamped arrays
BAD_HINT = """
import verikern as vk

@vk.kernel
def prefix_sum_bad_hint(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), n: vk.int32):
    vk.requires(n <= x.shape[0])
    i = vk.tid()
    if i < out.shape[0]:
        acc = 0.0
        for k in range(n):
            vk.invariant(k < 10)
            acc += x[k]
        out[i] = acc
"""

HUGE_HINT_CEX = Counterexample((67,), 32, ((0, 2),), scalars={"n": 402650190},
                               shapes={"x": (1275066919,), "out": (4,)}, arrays={"x": {9: 0.0}},
                               facts={"phase": "consecution"})


def test_an_abstracted_counterexample_with_huge_arrays_is_confirmed_on_clamped_sizes():
    k = kernel(BAD_HINT)
    ok, why, witness = replay_with_witness(k, obligation(k, ObligationKind.INVARIANT, HUGE_HINT_CEX, 10))
    assert ok and "KernelAssertionError at line 10" in why, why
    assert "clamped to at most 67 (x.shape=(67,), n=67)" in why
    assert witness.scalars == {"n": 67} and witness.shapes == {"x": (67,), "out": (4,)}
    assert witness.arrays == {"x": {9: 0.0}} and witness.dims == (67,)
    with pytest.raises(KernelAssertionError) as err:
        run_witness(k, witness)
    assert err.value.loc.line == 10


def test_huge_arrays_are_not_clamped_for_a_concrete_counterexample_or_a_correct_kernel():
    k = kernel(BAD_HINT)
    ok, why, witness = replay_with_witness(
        k, obligation(k, ObligationKind.INVARIANT, HUGE_HINT_CEX, 10, abstracted=False))
    assert not ok and witness is None and "too large to replay" in why
    correct = kernel(BAD_HINT.replace("k < 10", "k < n"))
    ok, why, witness = replay_with_witness(correct, obligation(correct, ObligationKind.INVARIANT, HUGE_HINT_CEX, 10))
    assert not ok and witness is None and "too large to replay" in why
    assert "other array contents or shapes tried" in why


# ------------------------------------------------------------- descending fill
DESCENDING_ONLY = """
import verikern as vk

@vk.kernel
def three_down(x: vk.array(dtype=vk.int32)):
    i = vk.tid()
    if i == 0:
        assert not (x[0] > x[1] and x[1] > x[2]), "strictly descending start"
"""


def test_only_the_descending_fill_confirms_a_violation_that_needs_unsorted_data():
    k = kernel(DESCENDING_ONLY)
    cex = Counterexample((1,), 1, ((0, 0),), shapes={"x": (4,)})
    ok, why, witness = replay_with_witness(k, obligation(k, ObligationKind.ASSERT, cex, 7))
    assert ok and "KernelAssertionError at line 7" in why, why
    assert witness.facts["fill"] == {"x": "descending"}
    with pytest.raises(KernelAssertionError):
        run_witness(k, witness)


def test_named_fills_give_the_documented_contents():
    from verikern.mir.nodes import ArrayRef
    from verikern.mir.types import F32, I8
    ints = np.zeros(5, np.int8)
    apply_fill(ints, ArrayRef("x", I8, 1), "descending")
    assert ints.tolist() == [4, 3, 2, 1, 0]
    floats = np.zeros((2, 2), np.float32)
    apply_fill(floats, ArrayRef("y", F32, 2), "alternating")
    assert floats.tolist() == [[1.0, -1.0], [1.0, -1.0]]
    apply_fill(ints, ArrayRef("x", I8, 1), "ramp")
    assert ints.tolist() == [0, 1, 2, 3, 4]
    from verikern.mir.types import F16
    halves = np.zeros(70000, np.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # no numpy warning reaches the user's terminal
        apply_fill(halves, ArrayRef("h", F16, 1), "descending")
    assert np.isinf(halves[0]) and halves[-1] == 0 and halves[-2] == 1
    from verikern.mir.types import U32
    unsigned = np.zeros(2, np.uint32)
    apply_fill(unsigned, ArrayRef("u", U32, 1), -1)        # wraps, as numpy would refuse it
    assert unsigned.tolist() == [2 ** 32 - 1] * 2
    apply_fill(ints, ArrayRef("x", I8, 1), 1 << 30)
    assert ints.tolist() == [0] * 5


def test_concrete_launch_carries_the_blocks_it_runs():
    k = kernel(GRID_STRIDE)
    small = concrete_launch(k, Counterexample((8,), 4, ((1, 0),), shapes={"x": (2,), "out": (2,)}))
    assert isinstance(small, ConcreteLaunch) and small.blocks is None and small.note == ""


# ------------------------------------------------------------- small-model tiers
def _failed(obligations, kind):
    found = [o for o in obligations if o.kind is kind and o.status is Status.FAILED]
    assert found, [(o.kind.value, o.status.value, o.message) for o in obligations]
    return found[0].counterexample


def test_a_two_dimensional_probe_counterexample_comes_from_the_smallest_tier():
    from verikern.proofs.deciding.prover import prove_kernel
    k = kernel("""
        import verikern as vk

        @vk.kernel(block_dim=256)
        def all_write(out: vk.array(dtype=vk.float32, ndim=2)):
            i, j = vk.tid()
            if out.shape[0] > 0 and out.shape[1] > 0:
                out[0, 0] = 1.0
        """)
    cex = _failed(prove_kernel(k, budget=SolverSession.from_megaunits(10)), ObligationKind.RACE)
    assert math.prod(cex.dims) <= 512 and all(s <= 64 for s in cex.shapes["out"]), cex
    assert replay(k, obligation(k, ObligationKind.RACE, cex, 7, other=7, abstracted=False))[0]


def test_a_fixed_launch_counterexample_gets_small_arrays_and_scalars():
    from verikern.proofs.deciding.prover import prove_kernel
    k = kernel("""
        import verikern as vk

        @vk.kernel
        def shifted(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32), n: vk.int32):
            vk.requires(x.shape[0] > 10)
            i = vk.tid()
            if i < n:
                y[i] = x[i + 1]
        """)
    obligations = prove_kernel(k, dims=(100,), block_dim=50, budget=SolverSession.from_megaunits(10))
    failed = [o.counterexample for o in obligations if o.status is Status.FAILED]
    assert len(failed) == 2, [(o.kind.value, o.status.value) for o in obligations]
    for cex in failed:
        assert cex.dims == (100,) and abs(cex.scalars["n"]) <= 64, cex
        assert all(s[0] <= 64 for s in cex.shapes.values()), cex


def test_tiers_are_soft_a_bug_that_needs_a_large_scalar_is_still_found():
    from verikern.proofs.deciding.prover import prove_kernel
    k = kernel("""
        import verikern as vk

        @vk.kernel
        def far(x: vk.array(dtype=vk.float32), n: vk.int32):
            vk.requires(n > 5000)
            if vk.tid() == 0:
                x[n] = 1.0
        """)
    cex = _failed(prove_kernel(k, budget=SolverSession.from_megaunits(10)), ObligationKind.BOUNDS)
    assert cex.scalars["n"] > 5000 and cex.shapes["x"][0] <= cex.scalars["n"]
    assert replay(k, obligation(k, ObligationKind.BOUNDS, cex, 7, abstracted=False))[0]


def test_small_model_hints_clamp_limits_to_narrow_scalar_types():
    """An int8 limit of 4096 must not wrap to 0 (which would force the scalar to 0)."""
    from verikern.encoders.smt.launch import LaunchModel
    k = kernel("""
        import verikern as vk

        @vk.kernel
        def narrow(x: vk.array(dtype=vk.int32), s: vk.int8, u: vk.uint8):
            x[0] = int(s) + int(u)
        """)
    launch = LaunchModel(k, None, None)
    s_term, u_term = (launch.scalars[p.value.id] for p in k.scalar_params)
    solver = z3.Solver()
    solver.add(*launch.facts, *launch.small_model_hints(), s_term == -100, u_term == 200)
    assert solver.check() == z3.sat
    tight = z3.Solver()
    tight.add(*launch.small_model_hints(scalar_limit=64), s_term == -100)
    assert tight.check() == z3.unsat


def test_a_race_replay_traces_only_the_two_accesses_and_still_confirms_the_race():
    """`_confirm_race` records only the accesses at the obligation's two
    positions on its array (a race is a property of a pair of accesses):
    the tiled matmul's race on sb is confirmed from a trace of those alone."""
    from verikern.frontend import compile_file
    from verikern.proofs.confirming.replay import _traced_run, replay_outcome
    from verikern.backends.simulator import WorkMeter
    from verikern.proofs.pipeline import prove_mir

    from shared_helpers import CORPUS

    path = CORPUS / "race_matmul_tiled_missing_second_barrier.py"
    kernel = compile_file(str(path)).kernels[0].mir
    report = prove_mir(kernel, file=str(path))
    (race,) = [o for o in report.obligations
               if o.kind is ObligationKind.RACE and o.status is Status.FAILED][:1]
    assert race.confirmed
    positions = {(race.loc.line, race.loc.col), (race.other_loc.line, race.other_loc.col)}
    array = race.counterexample.facts["array"]
    trace, _stopped, _uninit = _traced_run(kernel, concrete_launch(kernel, race.counterexample),
                                  WorkMeter(10 ** 9), (positions, array))
    assert trace.n_events > 0
    assert {(int(ln), int(c)) for ln, c in zip(trace.line, trace.col)} <= positions
    assert replay_outcome(kernel, race).confirmed
