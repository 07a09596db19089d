"""Uniformity, barrier intervals, vacuity and soundness guards of the prover."""
from __future__ import annotations

import os
import sys

import z3

sys.path.insert(0, os.path.dirname(__file__))

from prover_helpers import compile_kernel, prove_src  # noqa: E402
from verikern.proofs import prove_kernel  # noqa: E402

from verikern.encoders.smt.abstraction import NonlinearAbstraction  # noqa: E402
from verikern.proofs.analysis.intervals import IntervalMap  # noqa: E402
from verikern.proofs.analysis.uniformity import varying_values  # noqa: E402


def _named(kernel, name):
    for b in kernel.blocks:
        for ins in (*b.phis, *b.instrs):
            r = getattr(ins, "result", None)
            if r is not None and r.name == name:
                yield r


def test_uniformity_of_loop_phis_and_thread_values():
    k = compile_kernel("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.float32), n: int):
            sh = vk.shared.array(shape=(64,), dtype=vk.float32)
            t = vk.thread_idx()
            s = vk.block_dim() // 2
            while s > 0:
                if t < s:
                    sh[t] = 1.0
                vk.sync_threads()
                s //= 2
            u = t
            while u < n:
                u += 1
    """)
    varying = varying_values(k)
    assert all(v.id not in varying for v in _named(k, "s"))      # uniform despite `if t < s`
    assert all(v.id in varying for v in _named(k, "t"))
    assert all(v.id in varying for v in _named(k, "u"))


def test_intervals_separate_accesses_by_barriers():
    k = compile_kernel("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.float32)):
            sh = vk.shared.array(shape=(64,), dtype=vk.float32)
            t = vk.thread_idx()
            sh[t] = 1.0
            vk.sync_threads()
            x[0] = sh[63 - t]
    """)
    im = IntervalMap(k)
    sites = sorted({s for m in im.sites_from.values() for s in m},
                   key=lambda s: (list(b.label for b in k.blocks).index(s[0]), s[1]))
    store_sh, load_sh, store_x = sites
    assert im.common_starts(store_sh, load_sh) == []
    assert im.common_starts(load_sh, store_x)


def test_barrier_separated_shared_accesses_proved():
    obs = prove_src("""
        @vk.kernel(block_dim=64)
        def k(x: vk.array(dtype=vk.float32)):
            sh = vk.shared.array(shape=(64,), dtype=vk.float32)
            t = vk.thread_idx()
            sh[t] = 1.0
            vk.sync_threads()
            v = sh[63 - t]
    """)
    assert {o.status.value for o in obs} == {"proved"}


def test_unsatisfiable_requires_is_not_proved_vacuously():
    obs = prove_src("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.float32), n: int):
            vk.requires(n > 5 and n < 3)
            x[1000000] = 1.0
    """)
    assert obs and all(o.status.value == "unknown" for o in obs)
    assert all("requires" in o.reason for o in obs)


def test_fixed_launch_violating_block_rule_is_refused():
    obs = prove_src("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.float32)):
            sh = vk.shared.array(shape=(64,), dtype=vk.float32)
            vk.sync_threads()
    """, dims=(100,), block_dim=64)
    assert obs and all(o.status.value == "unknown" for o in obs)


def test_requires_arithmetic_wraps():
    # n * 2 > 0 in int32 does not imply n > 0 (n = -2**31 + 1 wraps) nor small n
    obs = prove_src("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.float32), n: int):
            vk.requires(n * 2 > 0)
            assert n > 0
    """)
    (a,) = [o for o in obs if o.kind.value == "assert"]
    assert a.status.value == "failed"
    n = a.counterexample.scalars["n"]
    assert n <= 0 and ((n * 2 + 2 ** 31) % 2 ** 32) - 2 ** 31 > 0


def test_float_conditions_are_abstracted_not_trusted():
    obs = prove_src("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.int32)):
            i = vk.tid()
            if i < x.shape[0] and i < y.shape[0]:
                if x[i] * x[i] < 0.0:
                    y[i + 1] = 1
    """)
    bad = [o for o in obs if o.status.value != "proved"]
    # reachable only through a float test: never proved, flagged as abstracted
    assert bad and all(o.counterexample is None or o.counterexample.abstracted
                       for o in bad)


def test_nonlinear_abstraction_is_consistent_and_sound():
    a, b, c = z3.BitVecs("a b c", 8)
    ab = NonlinearAbstraction()
    f = ab.apply([a * b == c, a * b != c])
    s = z3.Solver()
    s.add(*f)
    assert s.check() == z3.unsat          # the same product got the same variable
    ab2 = NonlinearAbstraction()
    g = ab2.apply([a * b == 6, a == 2, b == 3])
    s2 = z3.Solver()
    s2.add(*g)
    assert s2.check() == z3.sat           # over-approximation keeps real models


def test_atomic_cas_and_shared_atomics():
    obs = prove_src("""
        @vk.kernel(block_dim=64)
        def k(x: vk.array(dtype=vk.int32)):
            cnt = vk.shared.array(shape=(1,), dtype=vk.int32)
            t = vk.thread_idx()
            if t == 0:
                cnt[0] = 0
            vk.sync_threads()
            vk.atomic_add(cnt, 0, 1)
            vk.sync_threads()
            if t == 0 and vk.block_idx() < x.shape[0]:
                x[vk.block_idx()] = cnt[0]
    """)
    assert {o.status.value for o in obs} == {"proved"}


def test_unsigned_division_by_zero_with_known_dividend_fails():
    # a range lemma about the quotient must not hide z3's value of x / 0
    obs = prove_src("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.uint32), d: vk.uint32):
            i = vk.tid()
            if i < x.shape[0]:
                x[i] = vk.uint32(5) // d + vk.uint32(7) % d
    """)
    dz = sorted((o for o in obs if o.kind.value == "div-zero"), key=lambda o: o.loc.col)
    # the first division stops a thread with d == 0, so the modulo after it is safe
    assert [o.status.value for o in dz] == ["failed", "proved"]
    assert dz[0].counterexample.scalars["d"] == 0


ZERO_TRIP_RACE = """
    @vk.kernel(block_dim=64)
    def k(x: vk.array(dtype=vk.int32)):
        buf = vk.shared.array(shape=(64,), dtype=vk.int32)
        t = vk.thread_idx()
        buf[t] = t
        vk.sync_threads()
        v = 0
        for k in range(3):
            v = buf[(t + 1) % 64]
            j = INNER
            while j > 0:
                vk.sync_threads()
                j -= 1
            buf[t] = v
            vk.sync_threads()
        if vk.tid() < x.shape[0]:
            x[vk.tid()] = v
"""


def _inner_header(kernel) -> str:
    return min(kernel.loops, key=lambda lp: len(lp.body)).header


def test_inner_loop_that_may_not_run_keeps_outer_interval_open():
    """j = k % 2 skips the inner loop when k is even: then thread t reads
    buf[t+1] and its neighbour writes it with no barrier between (a real
    race); the inner loop must not be taken as always entered."""
    k = compile_kernel(ZERO_TRIP_RACE.replace("INNER", "k % 2"))
    from verikern.proofs.deciding.prover_context import ProofContext
    ctx = ProofContext(k, None, None)
    assert _inner_header(k) not in ctx.intervals.entered
    obs = prove_kernel(k)
    races = [o for o in obs if o.kind.value == "race" and o.status.value == "failed"]
    assert races, [o.message for o in obs]


def test_inner_loop_that_always_runs_closes_outer_interval():
    """j = k % 2 + 1 >= 1: the inner loop's barrier always separates the
    read of buf[t+1] from the neighbour's write of it."""
    k = compile_kernel(ZERO_TRIP_RACE.replace("INNER", "k % 2 + 1"))
    from verikern.proofs.deciding.prover_context import ProofContext
    ctx = ProofContext(k, None, None)
    assert _inner_header(k) in ctx.intervals.entered
    obs = prove_kernel(k)
    assert all(o.status.value == "proved" for o in obs), \
        [o.message for o in obs if o.status.value != "proved"]


SHARED_FLAG_LOOP = """
    @vk.kernel(block_dim=64)
    def k(x: vk.array(dtype=vk.int32)):
        flag = vk.shared.array(shape=(1,), dtype=vk.int32)
        t = vk.thread_idx()
        for it in range(4):
            if t == 0:
                flag[0] = it
            SYNC
            if flag[0] > 2:
                vk.sync_threads()
            vk.sync_threads()
        if vk.tid() < x.shape[0]:
            x[vk.tid()] = t
"""


def test_shared_flag_published_by_a_barrier_is_block_uniform():
    """Thread 0 writes the flag, a barrier publishes it, and every thread of
    the block then reads one value: the barrier under `if flag[0] > 2` is
    reached by all or none."""
    obs = prove_src(SHARED_FLAG_LOOP.replace("SYNC", "vk.sync_threads()"))
    assert all(o.status.value == "proved" for o in obs), \
        [o.message for o in obs if o.status.value != "proved"]


def test_shared_flag_read_in_the_writing_interval_is_not_uniform():
    """Without the publishing barrier thread 0 may write the flag while
    others read it: the read is racy and the barrier under it may diverge."""
    obs = prove_src(SHARED_FLAG_LOOP.replace("SYNC", "pass"))
    kinds = {o.kind.value for o in obs if o.status.value != "proved"}
    assert {"race", "divergence"} <= kinds, [o.message for o in obs]


def test_an_access_after_an_assert_assumes_it_held():
    """A failing assert stops the launch, so the access after it is in bounds
    whenever it runs; the assert itself is the failure reported."""
    obs = prove_src("""
        @vk.kernel
        def k(a: vk.array(dtype=vk.int32), n: vk.int32):
            i = vk.tid()
            j = i + n
            assert j >= 0 and j < a.shape[0], "j in range"
            a[j] = 7
    """)
    by_kind = {o.kind.value: o.status.value for o in obs if o.kind.value in ("assert", "bounds")}
    assert by_kind == {"assert": "failed", "bounds": "proved"}, [o.message for o in obs]


def test_a_trip_count_of_a_shape_is_decided_by_the_launch_facts_alone(caplog):
    """`range(kdim // 16 + 1)` is entered whatever the thread: the launch
    facts (kdim is a shape, below 2**31) prove it in a small query, with no
    query over the thread's facts; `k % 2 + 1` (a loop counter's value, the
    test above) needs the outer loop's invariants and still gets them."""
    import logging

    from verikern.frontend import compile_file
    from verikern.proofs.deciding.prover_context import ProofContext
    from shared_helpers import CORPUS

    k = compile_file(str(CORPUS / "ok_matmul_tiled.py")).kernels[0].mir
    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"):
        ctx = ProofContext(k, None, None)
    outer = max(k.loops, key=lambda lp: len(lp.body)).header
    assert outer in ctx.intervals.entered
    entered = [r.getMessage() for r in caplog.records if "loop-entered" in r.getMessage()]
    assert len(entered) == 1 and ".loop-entered-launch: unsat" in entered[0], entered
    caplog.clear()
    inner = compile_kernel(ZERO_TRIP_RACE.replace("INNER", "k % 2 + 1"))
    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"):
        ctx = ProofContext(inner, None, None)
    assert _inner_header(inner) in ctx.intervals.entered
    entered = [r.getMessage() for r in caplog.records if "loop-entered" in r.getMessage()]
    assert any(".loop-entered-launch: sat" in m for m in entered), entered
