"""The corpus verdicts are real: every buggy kernel's witness (the
`# witness KIND: ...` launch in its header, see tests/corpus_loader.py) makes
the CPU simulator show exactly that bug at the site its `# bug:` header names
(the runtime error's line and column; for a race, the racing pair in the
trace), and every correct kernel runs cleanly, race-free in the trace, on
generated inputs. Independent of the prover."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from corpus_loader import corpus_kernel, load_corpus
from verikern.errors import (BarrierDivergenceError, DivisionByZeroError, DivisionOverflowError,
                             KernelAssertionError, KernelRuntimeError, OutOfBoundsError)
from verikern.backends.simulator import UninitializedReads, simulate
from verikern.errors import UnassignedReadError, UninitializedReadError
from verikern.runtime import prepare_launch
from verikern.trace import find_races, find_uninit_reads

#: the exact error classes a witness of each kind raises (a division faults
#: by zero or, on int32/int64, as INT_MIN / -1)
ERROR_OF = {"bounds": (OutOfBoundsError,), "div-zero": (DivisionByZeroError, DivisionOverflowError),
            "assert": (KernelAssertionError,), "invariant": (KernelAssertionError,),
            "divergence": (BarrierDivergenceError,), "unassigned": (UnassignedReadError,)}
CASES = {c.name: c for c in load_corpus()}
BUGGY = [c for _, c in sorted(CASES.items()) if c.expect_status == "failed"]


def kernel_of(case):
    return corpus_kernel(case).mir


def test_every_buggy_kernel_has_a_witness_or_says_why_not():
    for case in BUGGY:
        assert case.witnesses or case.no_witness, case.name
    no_witness = {c.name for c in BUGGY if not c.witnesses}
    # their bugs need >= 2**30 threads: the simulator cannot run such a launch;
    # bounds_after_400000_iteration_loop's takes the simulator ~20 s (its launch
    # runs on cpu:native in tests/proofs/test_native_replay.py)
    assert no_witness == {"assert_fails_overflow_i_plus_2", "bounds_index_overflow_2i",
                          "bounds_grid_stride_int32_overflow",
                          "bounds_after_400000_iteration_loop"}


ERROR_CASES = [(c, w) for c in BUGGY for w in c.witnesses if w.kind not in ("race", "uninit")]


@pytest.mark.parametrize("case,witness", ERROR_CASES, ids=[f"{c.name}-{w.kind}" for c, w in ERROR_CASES])
def test_witness_raises_the_documented_error_at_the_buggy_site(case, witness):
    mir = kernel_of(case)
    with pytest.raises(KernelRuntimeError) as info:
        vk.launch(mir, witness.dim, inputs=witness.launch_inputs(mir),
                  block_dim=witness.block_dim, device="cpu")
    err = info.value
    assert type(err) in ERROR_OF[witness.kind], f"{case.name}: {type(err).__name__}: {err}"
    assert err.loc is not None, f"{case.name}: the runtime error has no location: {err}"
    sites = {b.site for b in case.bugs_of(witness.kind)}
    assert (err.loc.line, err.loc.col) in sites, (
        f"{case.name}: the witness fails at {err.loc.line}:{err.loc.col}, not at a '# bug:' site "
        f"{sorted(sites)} of kind {witness.kind}:\n{err}")


RACE_CASES = [(c, w) for c in BUGGY for w in c.witnesses if w.kind == "race"]


def checked_trace(mir, witness) -> dict:
    """The witness's trace from a run in the simulator's checked mode (an
    uninitialised shared read is recorded and the run goes on, as replay
    runs it; `vk.launch` would stop there)."""
    k, config, arrays, scalars = prepare_launch(mir, witness.dim, witness.launch_inputs(mir),
                                                witness.block_dim)
    result = simulate(k, config, arrays, scalars, trace=True, check_array_contracts=False,
                      uninit_reads=UninitializedReads())
    assert result.document is not None
    return result.document


@pytest.mark.parametrize("case,witness", RACE_CASES, ids=[c.name for c, _ in RACE_CASES])
def test_race_witness_shows_every_buggy_pair_in_the_trace(case, witness):
    races = find_races(checked_trace(kernel_of(case), witness))
    assert races, f"{case.name}: no race in the trace of its witness"
    pairs = {frozenset({(r.line, r.col), (r.other_line, r.other_col)}) for r in races}
    for bug in case.bugs_of("race"):
        assert bug.pair() in pairs, (f"{case.name}: the witness's trace shows no race at '# bug: {bug}'; "
                                     f"it shows {sorted(sorted(p) for p in pairs)}")


UNINIT_CASES = [(c, w) for c in BUGGY for w in c.witnesses if w.kind == "uninit"]


@pytest.mark.parametrize("case,witness", UNINIT_CASES, ids=[c.name for c, _ in UNINIT_CASES])
def test_uninit_witness_reads_uninitialised_shared_memory_at_the_buggy_site(case, witness, tmp_path):
    """The simulator stops at the uninitialised read, or (a write by another
    thread in the same barrier interval, concurrent with the read) the trace
    shows a read with no write of the block before it, at a '# bug:' site."""
    mir = kernel_of(case)
    trace = tmp_path / "trace.json"
    sites = {b.site for b in case.bugs_of("uninit")}
    try:
        vk.launch(mir, witness.dim, inputs=witness.launch_inputs(mir),
                  block_dim=witness.block_dim, device="cpu:trace", trace_path=str(trace))
    except UninitializedReadError as err:
        assert (err.loc.line, err.loc.col) in sites, f"{case.name}: {err}"
        return
    found = {(u.line, u.col) for u in find_uninit_reads(str(trace))}
    assert found & sites, f"{case.name}: uninitialised reads at {sorted(found)}, bug sites {sorted(sites)}"


def launch_candidates(case, mir):
    """(dims, block_dim) pairs to try, smallest first."""
    fixed = mir.block_dim or (int(case.option("--block-dim")) if case.option("--block-dim") else None)
    blocks = [fixed] if fixed else [64, 128, 32]
    if case.option("--dim"):
        dims = [(int(case.option("--dim")),)]
    elif mir.launch_ndim == 1:
        dims = [(256,), (384,)]
    else:
        dims = [d for d in ((3, 5), (2, 512), (2, 3, 4), (2, 3, 4, 5)) if len(d) == mir.launch_ndim]
    return [(d, b) for d in dims for b in blocks]


# keep loop trip counts small (the generator would pick large sizes/params)
OVERRIDES = {
    "ok_matmul_tiled": ({"a": (20, 24), "b": (24, 30), "c": (20, 30)}, {}),
    "ok_matmul_naive": ({"a": (3, 7), "b": (7, 5), "c": (3, 5)}, {}),
    "ok_loop_barrier_uniform_trip_count": ({}, {"steps": 3}),
    "ok_barrier_loop_uniform_count_from_shape": ({"x": (100,)}, {}),
    "ok_invariant_loop_counter_range": ({}, {"n": 20}),
    "ok_range_step_bounded_length": ({"x": (300,)}, {"start": 3, "stop": 200}),
    "ok_stride_row_int64_length": ({"grad": (384, 3, 4), "contribs": (384, 36), "out": (384, 3)}, {}),
    # room for 256 headers in packed, one more offset than records
    "ok_csr_records_after_headers": ({"packed": (512,), "offsets": (257,), "connectivity": (256,)}, {}),
}
PROVED = [n for n, c in sorted(CASES.items()) if c.expect_status == "proved"]


@pytest.mark.parametrize("name", PROVED)
def test_correct_kernel_runs_cleanly_and_race_free(name, tmp_path):
    from verikern.errors import LaunchError
    from verikern.inputs import InputGenerationError, make_inputs, ordered_inputs

    case = CASES[name]
    mir = kernel_of(case)
    rng = np.random.default_rng(11)
    for dims, block_dim in launch_candidates(case, mir):
        try:
            sizes, params = OVERRIDES.get(name, ({}, {}))
            values = make_inputs(mir, dims, block_dim, rng, sizes=sizes, params=params)
        except (InputGenerationError, LaunchError):
            continue
        trace = tmp_path / "trace.json"
        vk.launch(mir, dims if len(dims) > 1 else dims[0], inputs=ordered_inputs(mir, values),
                  block_dim=block_dim, device="cpu:trace", trace_path=str(trace))
        assert not find_races(str(trace)), f"{name}: race in the trace"
        assert not find_uninit_reads(str(trace)), f"{name}: uninitialised shared read in the trace"
        return
    pytest.fail(f"{name}: no generated launch was accepted")
