"""Prover verdicts on small hand-written kernels, one property at a time.
Each test states the exact failing kinds; every other obligation must be proved."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from prover_helpers import assert_verdicts, prove_src, prove_src_only  # noqa: E402
from verikern.proofs.obligations import ObligationKind  # noqa: E402


def _only(obs, kind):
    return [o for o in obs if o.kind.value == kind]


# ------------------------------------------------------------------ bounds
def test_guarded_access_proved():
    obs = prove_src("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32), a: vk.float32):
            vk.requires(x.shape[0] == y.shape[0])
            i = vk.tid()
            if i < x.shape[0]:
                y[i] = a * x[i] + y[i]
    """)
    assert_verdicts(obs, kinds={"bounds", "race"})


def test_unguarded_access_fails_with_counterexample():
    obs = prove_src("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.float32)):
            i = vk.tid()
            x[i] = 1.0
    """)
    assert_verdicts(obs, failed={"bounds"})
    (b,) = _only(obs, "bounds")
    cex = b.counterexample
    (blk, t), = cex.threads
    assert blk * cex.block_dim + t == cex.facts["index"]
    assert cex.facts["index"] >= cex.shapes["x"][0]
    assert "out of bounds" in b.message and "\n" not in b.message
    assert not cex.abstracted


def test_2d_guard_proved_and_off_by_one_failed():
    good = prove_src("""
        @vk.kernel
        def k(a: vk.array(dtype=vk.float32, ndim=2), n: int, m: int):
            vk.requires(a.shape[0] == n and a.shape[1] == m)
            i, j = vk.tid()
            if i < n and j < m:
                a[i, j] = 2.0
    """, dims=(64, 32), block_dim=128)
    assert_verdicts(good, kinds={"bounds", "race"})
    bad = prove_src("""
        @vk.kernel
        def k(a: vk.array(dtype=vk.float32, ndim=2), n: int, m: int):
            vk.requires(a.shape[0] == n and a.shape[1] == m)
            i, j = vk.tid()
            if i < n and j <= m:
                a[i, j] = 2.0
    """, dims=(64, 32), block_dim=128)
    assert_verdicts(bad, failed={"bounds"})
    dims = [o for o in bad if o.kind.value == "bounds" and o.status.value == "failed"]
    assert [o.counterexample.facts["dim"] for o in dims] == [1]


def test_int32_overflow_in_index_fails():
    # the bounds verdict alone: its race (the other obligation, 90% of the proof) stays undecided
    obs = prove_src_only("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.float32), n: int):
            vk.requires(x.shape[0] == n * 4)
            i = vk.tid()
            if i < n:
                x[i * 4] = 1.0
    """, ObligationKind.BOUNDS)
    assert "bounds" in {o.kind.value for o in obs if o.status.value == "failed"}
    (b,) = _only(obs, "bounds")
    cex = b.counterexample
    # only int32 wrap-around makes it fail: i * 4 wraps, or n * 4 in the requires does
    assert cex.facts["index"] < 0 or cex.scalars["n"] * 4 != cex.shapes["x"][0]
    assert not 0 <= cex.facts["index"] < cex.shapes["x"][0]


def test_uint_underflow_is_caught_by_the_unsigned_guard():
    obs = prove_src("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.float32)):
            i = vk.uint32(vk.tid())
            j = i - vk.uint32(1)
            if j < vk.uint32(x.shape[0]):
                x[j] = 1.0
    """)
    assert_verdicts(obs, failed={"race"} - {"race"}, kinds={"bounds"})


def test_uint_underflow_unguarded_fails():
    obs = prove_src("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.float32)):
            i = vk.uint32(vk.tid())
            if i < vk.uint32(x.shape[0]):
                x[i - vk.uint32(1)] = 1.0
    """)
    (b,) = _only(obs, "bounds")
    assert b.status.value == "failed"
    assert b.counterexample.facts["index"] == 2 ** 32 - 1


# ------------------------------------------------------------------ div-zero
def test_division_by_parameter():
    bad = prove_src("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.int32), d: int):
            i = vk.tid()
            if i < x.shape[0]:
                x[i] = x[i] // d
    """)
    assert_verdicts(bad, failed={"div-zero"})
    (dz,) = _only(bad, "div-zero")
    assert dz.counterexample.scalars["d"] == 0
    good = prove_src("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.int32), d: int):
            vk.requires(d > 0)
            i = vk.tid()
            if i < x.shape[0]:
                x[i] = x[i] % d
    """)
    assert_verdicts(good, kinds={"div-zero", "bounds"})


# ------------------------------------------------------------------ array contracts
GATHER = """
    @vk.kernel
    def k(idx: vk.array(dtype=vk.int32), src: vk.array(dtype=vk.float32),
          dst: vk.array(dtype=vk.float32)):
        {contract}
        vk.requires(dst.shape[0] == idx.shape[0])
        i = vk.tid()
        if i < idx.shape[0]:
            dst[i] = src[idx[i]]
"""


def test_gather_with_all_in_range_proved():
    obs = prove_src(GATHER.format(contract="vk.requires(vk.all_in_range(idx, 0, src.shape[0]))"))
    assert_verdicts(obs, kinds={"bounds"})


def test_gather_without_contract_fails_with_the_index_value():
    obs = prove_src(GATHER.format(contract="vk.requires(src.shape[0] >= 0)"))
    assert_verdicts(obs, failed={"bounds"})
    (b,) = [o for o in obs if o.status.value == "failed"]
    cex = b.counterexample
    (blk, t), = cex.threads
    i = blk * cex.block_dim + t
    assert cex.arrays["idx"][i] == cex.facts["index"]
    assert not 0 <= cex.facts["index"] < cex.shapes["src"][0]


SCATTER = """
    @vk.kernel
    def k(perm: vk.array(dtype=vk.int32), src: vk.array(dtype=vk.float32),
          dst: vk.array(dtype=vk.float32)):
        vk.requires(vk.all_in_range(perm, 0, dst.shape[0]))
        {contract}
        vk.requires(src.shape[0] == perm.shape[0])
        i = vk.tid()
        if i < perm.shape[0]:
            dst[perm[i]] = src[i]
"""


def test_scatter_with_all_distinct_has_no_race():
    obs = prove_src(SCATTER.format(contract="vk.requires(vk.all_distinct(perm))"))
    assert_verdicts(obs, kinds={"bounds", "race"})


def test_scatter_without_all_distinct_races():
    obs = prove_src(SCATTER.format(contract="vk.requires(src.shape[0] >= 0)"))
    assert_verdicts(obs, failed={"race"})
    (r,) = [o for o in obs if o.status.value == "failed"]
    cex = r.counterexample
    (b1, t1), (b2, t2) = cex.threads
    i1, i2 = b1 * cex.block_dim + t1, b2 * cex.block_dim + t2
    assert i1 != i2 and cex.arrays["perm"][i1] == cex.arrays["perm"][i2]


# ------------------------------------------------------------------ atomics
def test_atomics_do_not_race_with_each_other_but_with_plain_stores():
    good = prove_src("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.int32), h: vk.array(dtype=vk.int32)):
            vk.requires(vk.all_in_range(x, 0, h.shape[0]))
            i = vk.tid()
            if i < x.shape[0]:
                vk.atomic_add(h, x[i], 1)
    """)
    assert_verdicts(good, kinds={"bounds"})
    bad = prove_src("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.int32), h: vk.array(dtype=vk.int32)):
            vk.requires(vk.all_in_range(x, 0, h.shape[0]))
            i = vk.tid()
            if i < x.shape[0]:
                vk.atomic_add(h, x[i], 1)
                if i == 0:
                    h[0] = 5
    """)
    assert_verdicts(bad, failed={"race"})
    races = [o for o in bad if o.kind.value == "race"]
    # atomic vs store fails; the store with itself is done by one thread only
    assert sorted((o.loc.line, o.other_loc.line, o.status.value) for o in races) == [
        (9, 11, "failed"), (11, 11, "proved")]


# ------------------------------------------------------------------ barriers
REDUCE = """
    @vk.kernel
    def k(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
        vk.requires(vk.block_dim() == 256)
        vk.requires(out.shape[0] == vk.grid_dim())
        sh = vk.shared.array(shape=(256,), dtype=vk.float32)
        t = vk.thread_idx()
        i = vk.tid()
        if i < x.shape[0]:
            sh[t] = x[i]
        else:
            sh[t] = 0.0
        vk.sync_threads()
        s = vk.block_dim() // 2
        while s > 0:
            if t < s:
                sh[t] = sh[t] + sh[t + s]
            {barrier}
            s //= 2
        vk.sync_threads()
        if t == 0:
            out[vk.block_idx()] = sh[0]
"""


def test_tree_reduction_with_barrier_proved():
    obs = prove_src(REDUCE.format(barrier="vk.sync_threads()"))
    assert_verdicts(obs, kinds={"bounds", "race", "divergence"})


def test_tree_reduction_without_barrier_races():
    obs = prove_src(REDUCE.format(barrier="pass"))
    assert_verdicts(obs, failed={"race"})
    r = [o for o in obs if o.status.value == "failed"]
    assert all(o.counterexample.threads[0][0] == o.counterexample.threads[1][0] for o in r)
    assert all("block" in o.message for o in r)


def test_barrier_in_thread_dependent_branch_diverges():
    obs = prove_src("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.float32)):
            sh = vk.shared.array(shape=(64,), dtype=vk.float32)
            t = vk.thread_idx()
            if t < 16:
                vk.sync_threads()
            vk.sync_threads()
    """)
    assert_verdicts(obs, failed={"divergence"})
    (d,) = [o for o in obs if o.status.value == "failed"]
    (b1, t1), (b2, t2) = d.counterexample.threads
    assert b1 == b2 and t1 < 16 <= t2


def test_barrier_in_uniform_branch_proved():
    obs = prove_src("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.float32), n: int):
            sh = vk.shared.array(shape=(64,), dtype=vk.float32)
            if n > 3:
                vk.sync_threads()
            if vk.block_idx() > 2:
                vk.sync_threads()
    """)
    assert_verdicts(obs, kinds={"divergence"})


def test_loop_with_barrier_and_thread_dependent_trip_count_diverges():
    obs = prove_src("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.float32)):
            sh = vk.shared.array(shape=(64,), dtype=vk.float32)
            t = vk.thread_idx()
            for j in range(t):
                vk.sync_threads()
    """)
    assert_verdicts(obs, failed={"divergence"})


# ------------------------------------------------------------------ loops
def test_grid_stride_loop_proved():
    obs = prove_src("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.float32), n: int):
            vk.requires(n <= x.shape[0] and n <= 1000000)
            i = vk.tid()
            stride = vk.block_dim() * vk.grid_dim()
            while i < n:
                x[i] = 2.0 * x[i]
                i += stride
    """, dims=(1024,), block_dim=256)
    assert_verdicts(obs, kinds={"bounds", "race"})


def test_range_loop_counter_is_bounded():
    obs = prove_src("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.float32, ndim=2), n: int, m: int):
            vk.requires(x.shape[0] == n and x.shape[1] == m)
            i = vk.tid()
            if i < n:
                for j in range(m):
                    x[i, j] = 1.0
    """)
    assert_verdicts(obs, kinds={"bounds", "race"})


def test_range_loop_off_by_one_fails():
    obs = prove_src("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.float32), n: int):
            vk.requires(x.shape[0] == n)
            if vk.tid() == 0:
                for j in range(n):
                    x[j + 1] = 1.0
    """)
    assert_verdicts(obs, failed={"bounds"})


# ------------------------------------------------------------------ asserts, invariants
def test_asserts_proved_and_failed():
    obs = prove_src("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.int32), n: int):
            vk.requires(n > 2)
            i = vk.tid()
            assert n > 1, "n is big"
            assert i < n, "i small"
    """)
    a = sorted((o.loc.line, o.status.value) for o in obs if o.kind.value == "assert")
    assert a == [(8, "proved"), (9, "failed")]
    failed = [o for o in obs if o.status.value == "failed"][0]
    (b, t), = failed.counterexample.threads
    assert b * failed.counterexample.block_dim + t >= failed.counterexample.scalars["n"]


def test_true_invariant_proved_and_used():
    obs = prove_src("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.float32), n: int):
            vk.requires(x.shape[0] == n)
            if vk.tid() == 0:
                k = 0
                while k < n:
                    vk.invariant(k >= 0)
                    x[k] = 1.0
                    k += 1
    """)
    assert_verdicts(obs, kinds={"invariant", "bounds", "race"})


def test_false_invariant_failed():
    obs = prove_src("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.float32), n: int):
            k = 0
            while k < n:
                vk.invariant(k > 0)
                k += 1
    """)
    assert_verdicts(obs, failed={"invariant"})
    (inv,) = obs
    assert inv.counterexample.scalars["n"] > 0


def test_symbolic_2d_launch_race_freedom_is_proved():
    # needs the div/mod lemmas on vk.tid()'s lowering; no launch is fixed
    obs = prove_src("""
        @vk.kernel
        def k(a: vk.array(dtype=vk.float32, ndim=2), s: vk.float32):
            i, j = vk.tid()
            if i < a.shape[0] and j < a.shape[1]:
                a[i, j] = s * a[i, j]
    """, budget=5)
    assert_verdicts(obs, kinds={"bounds", "race", "div-zero"})


def test_tiled_indices_nested_modulo_race_free():
    # (j % D1) % 256 == j % 256 when 256 divides D1: threads of a block own
    # distinct tile cells
    obs = prove_src("""
        @vk.kernel(block_dim=256)
        def k(c: vk.array(dtype=vk.float32, ndim=2)):
            vk.requires(vk.launch_dim(1) % 256 == 0)
            sa = vk.shared.array(shape=(16, 16), dtype=vk.float32)
            by, j = vk.tid()
            t = j % 256
            sa[t // 16, t % 16] = 1.0
    """, budget=5)
    assert_verdicts(obs, kinds={"bounds", "race"})
