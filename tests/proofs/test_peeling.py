"""Exact counterexamples for loop-carried bugs (proofs.deciding.peeling) and their use
by the driver's `settle`: found in a peeled iteration, not abstracted,
confirmed by the simulator; nothing for correct kernels."""
import re
from pathlib import Path

import pytest

from verikern.proofs import pipeline
from verikern.proofs.deciding.budget import MEGA
from verikern.proofs.confirming.replay import ReplayOutcome, ReplayVerdict
from verikern.proofs.obligations import (
    Counterexample, Obligation, ObligationKind, Status,
)
from verikern.proofs.deciding.peeling import exact_counterexample, specs_for
from verikern.proofs.deciding.prover import enumerate_obligations
from verikern.proofs.confirming.replay import replay

from shared_helpers import mir_of

# line 10 is the read; k = start + 16 wraps to a negative index in iteration 2
COUNTER_WRAPS = """
@vk.kernel
def window(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), start: vk.int32, stop: vk.int32):
    vk.requires(start >= 0)
    i = vk.tid()
    if i < out.shape[0]:
        acc = 0.0
        for k in range(start, stop, 16):
            if k < x.shape[0]:
                acc += x[k]
        out[i] = acc
"""

# the hint k < 3 first fails in iteration 4 (k == 3)
BAD_HINT = """
@vk.kernel
def hinted(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), n: vk.int32):
    vk.requires(n <= x.shape[0])
    i = vk.tid()
    if i < out.shape[0]:
        acc = 0.0
        for k in range(n):
            vk.invariant(k < 3)
            acc += x[k]
        out[i] = acc
"""

# correct: every access guarded, the counter cannot wrap (step 1, k < stop)
CORRECT = """
@vk.kernel
def guarded(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), n: vk.int32):
    i = vk.tid()
    if i < out.shape[0]:
        acc = 0.0
        for k in range(n):
            if k < x.shape[0]:
                acc += x[k]
        out[i] = acc
"""


def _kernel(src: str):
    return mir_of(src, header=True, filename="peel_test.py")


def _spec(kernel, kind: ObligationKind, line: int):
    (spec,) = [s for s in enumerate_obligations(kernel) if s.kind is kind and s.loc.line == line]
    return spec


def test_counter_wrap_found_exactly_in_the_second_iteration_and_confirmed():
    k = _kernel(COUNTER_WRAPS)
    ob = exact_counterexample(k, _spec(k, ObligationKind.BOUNDS, 12), budget=20 * MEGA)
    assert ob is not None and ob.status is Status.FAILED
    cex = ob.counterexample
    assert not cex.abstracted
    assert cex.facts["iteration"] == "iteration 2 of the loop at line 10"
    assert ob.loc.line == 12 and ob.kind is ObligationKind.BOUNDS
    start, stop = cex.scalars["start"], cex.scalars["stop"]
    # hand check: iteration 1 has k = start < stop, iteration 2 has k = start + 16 wrapped
    wrapped = (start + 16 + 2 ** 31) % 2 ** 32 - 2 ** 31
    assert 0 <= start < stop and start + 16 >= 2 ** 31
    assert wrapped == cex.facts["index"] < 0 and wrapped < stop
    ok, why = replay(k, ob)
    assert ok, why


def test_wrong_invariant_hint_fails_in_its_first_false_iteration():
    k = _kernel(BAD_HINT)
    ob = exact_counterexample(k, _spec(k, ObligationKind.INVARIANT, 11), budget=20 * MEGA)
    assert ob is not None and ob.kind is ObligationKind.INVARIANT
    assert ob.counterexample.facts["iteration"] == "iteration 4 of the loop at line 10"
    assert ob.counterexample.scalars["n"] >= 4
    assert "invariant at line 11" in ob.message
    ok, why = replay(k, ob)
    assert ok and "KernelAssertionError at line 11" in why, why


def test_three_peeled_iterations_alone_do_not_reach_the_fourth():
    k = _kernel(BAD_HINT)
    assert exact_counterexample(k, _spec(k, ObligationKind.INVARIANT, 11), iterations=3,
                                budget=20 * MEGA) is None


def test_correct_kernel_gets_no_counterexample():
    k = _kernel(CORRECT)
    specs = enumerate_obligations(k)
    assert specs
    for spec in specs:
        assert exact_counterexample(k, spec, budget=20 * MEGA) is None, spec


def test_fixed_launch_is_respected():
    k = _kernel(COUNTER_WRAPS)
    ob = exact_counterexample(k, _spec(k, ObligationKind.BOUNDS, 12), dims=(5,), block_dim=4,
                              budget=20 * MEGA)
    assert ob is not None
    assert ob.counterexample.dims == (5,) and ob.counterexample.block_dim == 4


def test_specs_for_an_obligation_match_kind_and_location():
    k = _kernel(COUNTER_WRAPS)
    spec = _spec(k, ObligationKind.BOUNDS, 12)
    ob = Obligation(ObligationKind.BOUNDS, spec.loc, Status.UNKNOWN, "undecided")
    assert specs_for(k, ob) == [spec]
    assert specs_for(k, spec) == [spec]


def _abstract_failure(loc) -> Obligation:
    cex = Counterexample(dims=(1,), block_dim=1, threads=((0, 0),), abstracted=True)
    return Obligation(ObligationKind.BOUNDS, loc, Status.FAILED, "x[k] out of bounds",
                      counterexample=cex, reason="counterexample found through an abstraction")


def test_settle_reports_the_confirmed_exact_failure_instead_of_unknown():
    k = _kernel(COUNTER_WRAPS)
    spec = _spec(k, ObligationKind.BOUNDS, 12)
    spurious = _abstract_failure(spec.loc)
    (out,) = pipeline.settle(k, [spurious])
    assert out.status is Status.FAILED and out.confirmed is True
    assert out.loc == spurious.loc and out.kind is spurious.kind
    assert "iteration 2 of the loop at line 10" in out.reason
    assert "confirmed by replay" in out.reason
    assert out.counterexample.scalars["start"] + 16 >= 2 ** 31


def test_settle_keeps_unknown_when_the_exact_failure_is_not_confirmed():
    k = _kernel(COUNTER_WRAPS)
    spurious = _abstract_failure(_spec(k, ObligationKind.BOUNDS, 12).loc)
    calls = []

    def replayer(kernel, ob):
        calls.append(ob)
        return False, "no violation"

    (out,) = pipeline.settle(k, [spurious], replayer)
    assert out.status is Status.UNKNOWN and out.confirmed is False
    assert len(calls) == 2 and "iteration" in calls[1].reason   # the exact one was tried


def test_settle_without_a_kernel_does_not_search():
    def search(*args, **kwargs):
        raise AssertionError("searched without a kernel")

    spurious = _abstract_failure(_kernel(CORRECT).loc)
    (out,) = pipeline.settle(None, [spurious], lambda k, ob: (False, "no"), exact_search=search)
    assert out.status is Status.UNKNOWN


@pytest.mark.parametrize("found_ok", [True, False])
def test_settle_tries_unknown_obligations_too(found_ok):
    k = _kernel(COUNTER_WRAPS)
    spec = _spec(k, ObligationKind.BOUNDS, 12)
    unknown = Obligation(ObligationKind.BOUNDS, spec.loc, Status.UNKNOWN, "undecided",
                         reason="solver answered unknown")
    exact = exact_counterexample(k, spec, budget=20 * MEGA)
    (out,) = pipeline.settle(k, [unknown], lambda kernel, ob: (found_ok, "replayed"),
                           exact_search=lambda *a, **kw: exact)
    if found_ok:
        assert out.status is Status.FAILED and out.confirmed is True
    else:
        assert out is unknown


def test_settle_keeps_an_exact_failure_that_another_error_hides():
    """Replay of an exact counterexample that stops at a different runtime
    error first: the failure stays, unconfirmed, and says why."""
    k = _kernel(COUNTER_WRAPS)
    spec = _spec(k, ObligationKind.BOUNDS, 12)
    unknown = Obligation(ObligationKind.BOUNDS, spec.loc, Status.UNKNOWN, "undecided",
                         reason="solver answered unknown")
    exact = exact_counterexample(k, spec, budget=20 * MEGA)
    why = "the simulator stopped at a different error first: OutOfBoundsError at line 3"
    hidden = ReplayOutcome(ReplayVerdict.OTHER_ERROR_FIRST, why)
    (out,) = pipeline.settle(k, [unknown], lambda kernel, ob: hidden,
                           exact_search=lambda *a, **kw: exact)
    assert out.status is Status.FAILED and out.confirmed is False
    assert "not confirmed by replay" in out.reason and "different error first" in out.reason
    # the decision reads the verdict, not the words: any other verdict drops it
    for verdict in ReplayVerdict:
        if verdict in (ReplayVerdict.OTHER_ERROR_FIRST, ReplayVerdict.CONFIRMED):
            continue
        (out,) = pipeline.settle(k, [unknown], lambda kernel, ob, verdict=verdict: ReplayOutcome(verdict, why),
                               exact_search=lambda *a, **kw: exact)
        assert out is unknown, verdict


def test_exact_race_in_a_peeled_barrier_loop_is_reported_though_an_earlier_error_hides_it():
    """The corpus reduction with guard t <= s: in iteration 1 thread 64 reads
    buf[128] (out of bounds, the launch stops) in the very statement where it
    writes buf[64] while thread 0 reads buf[64]. The race is found exactly in
    the peeled first iteration, and reported unconfirmed with the reason."""
    from verikern.app.prove import prove_file
    path = Path(__file__).resolve().parents[1] / "corpus" / "bounds_race_reduce_wrong_guard.py"
    (report,) = prove_file(path)
    races = [o for o in report.obligations if o.kind is ObligationKind.RACE
             and o.status is Status.FAILED]
    assert races, [o.message for o in report.obligations]
    race = races[0]
    assert race.confirmed is False and "iteration 1 of the loop" in race.reason
    assert "OutOfBoundsError" in race.reason
    b = race.counterexample.threads
    assert sorted(t for _, t in b) == [0, 64] and race.counterexample.facts["index"] == [64]


# j = i + (iteration - 1) wraps for the last threads of a launch of 2**31 - 1
# threads: i = 2**31 - 2 in iteration 3 (iteration 2 would need i = 2**31 - 1,
# beyond the last thread); the guard j < x.shape[0] passes a negative j
SHIFTED = """
@vk.kernel
def shifted(x: vk.array(dtype=vk.float32), n: vk.int32):
    i = vk.tid()
    j = i
    for k in range(n):
        if j < x.shape[0]:
            x[j] = 1.0
        j = j + 1
"""


def test_wrap_that_needs_the_largest_launch_is_found_in_the_third_iteration():
    k = _kernel(SHIFTED)
    ob = exact_counterexample(k, _spec(k, ObligationKind.BOUNDS, 10), budget=20 * MEGA)
    assert ob is not None
    cex = ob.counterexample
    assert cex.facts["iteration"] == "iteration 3 of the loop at line 8"
    (block, thread), = cex.threads
    tid = block * cex.block_dim + thread
    assert tid == 2 ** 31 - 2 and cex.dims[0] == 2 ** 31 - 1 and cex.scalars["n"] >= 3
    assert cex.facts["index"] == -2 ** 31


def test_race_between_iterations_of_neighbouring_threads_is_exact():
    k = _kernel(SHIFTED)
    (spec,) = [s for s in enumerate_obligations(k) if s.kind is ObligationKind.RACE]
    ob = exact_counterexample(k, spec, budget=20 * MEGA)
    assert ob is not None and not ob.counterexample.abstracted
    # thread t in iteration a and thread u in iteration b write x[t + a - 1] == x[u + b - 1]
    (b1, t1), (b2, t2) = ob.counterexample.threads
    bd = ob.counterexample.block_dim
    tid1, tid2 = b1 * bd + t1, b2 * bd + t2
    its = [int(n) for n in re.findall(r"iteration (\d+)", ob.counterexample.facts["iteration"])]
    a, b = (its[0], its[-1])
    (elem,) = ob.counterexample.facts["index"]
    assert tid1 != tid2 and elem == tid1 + a - 1 == tid2 + b - 1
    ok, why = replay(k, ob)
    assert ok, why


def test_specs_for_an_undecided_bounds_obligation_keep_its_dimension():
    k = _kernel("""
    @vk.kernel
    def grid(a: vk.array(dtype=vk.float32, ndim=2), n: vk.int32):
        i = vk.tid()
        for k in range(n):
            a[i, k] = 0.0
    """)
    specs = [s for s in enumerate_obligations(k) if s.kind is ObligationKind.BOUNDS]
    assert [s.dim for s in specs] == [0, 1]
    for spec in specs:
        ob = Obligation(ObligationKind.BOUNDS, spec.loc, Status.UNKNOWN,
                        "reworded: any message at all", spec=spec)
        assert specs_for(k, ob) == [spec]
    anonymous = Obligation(ObligationKind.BOUNDS, specs[0].loc, Status.UNKNOWN, "undecided")
    assert specs_for(k, anonymous) == specs


NESTED = """
@vk.kernel
def nest(out: vk.array(dtype=vk.int32), n: vk.int32, m: vk.int32):
    vk.requires(n <= 5 and m <= 5)
    i = vk.tid()
    acc = 0
    for r in range(n):
        for c in range(m):
            assert r * 10 + c != 11
            acc += c
    if i < out.shape[0]:
        out[i] = acc
"""


def test_nested_loops_are_peeled_inside_peeled_iterations():
    k = _kernel(NESTED)
    ob = exact_counterexample(k, _spec(k, ObligationKind.ASSERT, 11), budget=20 * MEGA)
    assert ob is not None
    # r == 1 and c == 1: the 2nd inner iteration of the 2nd outer iteration
    assert ob.counterexample.facts["iteration"] == \
        "iteration 2 of the loop at line 10, in iteration 2 of the loop at line 9"
    assert 2 <= ob.counterexample.scalars["n"] <= 5 and 2 <= ob.counterexample.scalars["m"] <= 5
    ok, why = replay(k, ob)
    assert ok, why


SUM_N = """
@vk.kernel
def sum_n(x: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32), n: vk.int32):
    i = vk.tid()
    acc = 0
    for k in range(n):
        for m in range(k):
            acc += x[m]
    if i < out.shape[0]:
        out[i] = acc + 1
"""


def test_truncated_kernel_runs_the_peeled_prefix_exactly():
    """Cut loops: identical results while every loop test that ends a loop
    lies in a peeled copy (n <= 2 of 3 peeled iterations: the 4th test of
    the outer loop is the remaining loop's); else the thread ends at the
    cut (no store)."""
    import numpy as np

    from verikern.mir.passes.peel import peel_loops
    from verikern.mir.verifier import verify
    from verikern.proofs.deciding.peeling import truncate_loops
    from verikern.runtime import launch

    k = _kernel(SUM_N)
    peeled, _ = peel_loops(k, 3, outer_only=True)
    cut = truncate_loops(peeled)
    verify(cut)
    assert cut.loops == () and {b.label for b in cut.blocks} - {b.label for b in peeled.blocks} \
        == {"loop_cut"}
    x = np.arange(1, 6, dtype=np.int32)
    for n, expected in ((0, 1), (1, 1), (2, 2), (3, 0), (4, 0)):
        outs = []
        for kernel in (k, cut):
            out = np.zeros(2, np.int32)
            launch(kernel, 2, [x, out, np.int32(n)], block_dim=2)
            outs.append(out.tolist())
        assert outs[1] == [expected] * 2, n
        if n <= 2:
            assert outs[0] == outs[1]


# an int32 grid-stride loop (the corpus kernel bounds_grid_stride_int32_overflow):
# with a launch of 2**31 - 1 threads the stride is 2**31 - 1, so thread t's
# second k = t + 2**31 - 1 wraps to t - 2**31 - 1, still below x.shape[0]
GRID_STRIDE = """
@vk.kernel
def sum_grid_stride(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
    REQUIRE
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


def test_grid_stride_wrap_is_found_by_the_limit_probe_within_a_small_budget():
    """The limit probe (block_dim 1, 2**31 - 1 threads) is tried before the
    exact query, whose model-dependent search needs more than a 1M-unit
    budget: the wrap is found all the same, exact, and replay confirms it."""
    k = _kernel(GRID_STRIDE.replace("REQUIRE", "pass"))
    ob = exact_counterexample(k, _spec(k, ObligationKind.BOUNDS, 12), budget=MEGA)
    assert ob is not None and ob.status is Status.FAILED and not ob.counterexample.abstracted
    cex = ob.counterexample
    assert cex.block_dim == 1 and cex.dims == (2 ** 31 - 1,)
    (block, thread), = cex.threads
    assert cex.facts["index"] == block - 2 ** 31 - 1      # t + (2**31 - 1) wrapped
    assert block < cex.shapes["x"][0] <= 4096
    ok, why = replay(k, ob)
    assert ok, why


def test_the_limit_probe_finds_nothing_where_the_stride_cannot_wrap():
    k = _kernel(GRID_STRIDE.replace(
        "REQUIRE", "vk.requires(vk.launch_dim() <= 536870912 and x.shape[0] <= 536870912)"))
    for spec in enumerate_obligations(k):
        assert exact_counterexample(k, spec, budget=20 * MEGA) is None, spec
