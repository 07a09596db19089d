"""The `uninit` obligation (docs/LANGUAGE.md section 5, property 6): proved only
where every read shared element was written before by a thread of the block;
failures come with a counterexample the simulator confirms; the negative
cases show the witnesses are not applied where they would be unsound (a
write under a thread-dependent condition, after the barrier, in a later
iteration, outside the block's threads, in too few loop iterations)."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import z3

sys.path.insert(0, os.path.dirname(__file__))

from prover_helpers import compile_kernel, deciding_only, prove_src, prove_src_only  # noqa: E402
from verikern.errors import UninitializedReadError  # noqa: E402
from verikern.proofs.confirming.replay import replay  # noqa: E402
from verikern.proofs.obligations import ObligationKind, Status, enumerate_obligations  # noqa: E402
from verikern.proofs.pipeline import prove_mir  # noqa: E402
from verikern.frontend import compile_file  # noqa: E402
from verikern.runtime import launch  # noqa: E402
from shared_helpers import CORPUS  # noqa: E402
from verikern.proofs.deciding.uninit_candidates import StridedLoop, real_iteration  # noqa: E402

HALO = """
@vk.kernel(block_dim=32)
def halo(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32)):
    vk.requires(y.shape[0] == x.shape[0])
    vk.requires(vk.launch_dim() == x.shape[0])
    sh = vk.shared.array(shape=(34,), dtype=vk.float32)
    t = vk.thread_idx()
    i = vk.tid()
    sh[t + 1] = x[i]
    if t == 0:
        sh[0] = 0.0
    if t == 31{right_guard}:
        sh[33] = {right_value}
    vk.sync_threads()
    y[i] = sh[t] + sh[t + 2]
"""
BUGGY_HALO = HALO.format(right_guard=" and i + 1 < x.shape[0]", right_value="x[i + 1]")
FIXED_HALO = HALO.format(right_guard="", right_value="0.0")


def _uninit(obligations):
    return [o for o in obligations if o.kind is ObligationKind.UNINIT]


def _statuses(obligations) -> list[str]:
    return [o.status.value for o in _uninit(obligations)]


def test_one_uninit_obligation_per_shared_load_and_atomic():
    k = compile_kernel("""
    @vk.kernel(block_dim=32)
    def k(out: vk.array(dtype=vk.int32)):
        c = vk.shared.array(shape=(32,), dtype=vk.int32)
        t = vk.thread_idx()
        c[t] = 0
        vk.sync_threads()
        vk.atomic_add(c, 31 - t, 1)
        vk.sync_threads()
        out[vk.tid()] = c[t] + out[vk.tid()]
    """)
    specs = [s for s in enumerate_obligations(k) if s.kind is ObligationKind.UNINIT]
    # the atomic and the shared load; not the global load, not the stores
    assert sorted((s.loc.line, s.loc.col) for s in specs) == [(10, 5), (12, 21)]


def test_halo_missing_in_the_last_block_fails_and_replay_confirms():
    obs = prove_src(BUGGY_HALO)
    bad = [o for o in _uninit(obs) if o.status is Status.FAILED]
    assert [(o.loc.line, o.loc.col) for o in bad] == [(17, 20)], [o.message for o in obs]
    ob = bad[0]
    cex = ob.counterexample
    (block, thread), = cex.threads
    # the bug needs the right halo of a block past the end of x: thread 31 of
    # the last block (x.shape[0] == launch size, a multiple of 32)
    assert thread == 31 and (block + 1) * 32 == cex.shapes["x"][0]
    assert cex.facts["index"] == [33]
    ok, why = replay(compile_kernel(BUGGY_HALO), ob)
    assert ok, why
    assert "UninitializedReadError" in why
    # every other obligation of the kernel is proved
    assert all(o.status is Status.PROVED for o in obs if o is not ob), [o.message for o in obs]


def test_the_halo_counterexample_on_the_fixed_kernel_shows_no_uninit_read():
    """Replay traces only the read's array, but all of its accesses: on the
    fixed kernel every element read was written first, so the buggy
    kernel's counterexample is no violation there (a trace without the
    writes would show every read as uninitialised)."""
    (ob,) = [o for o in _uninit(prove_src(BUGGY_HALO)) if o.status is Status.FAILED]
    ok, why = replay(compile_kernel(FIXED_HALO), ob)
    assert not ok and "without a uninit violation" in why, why


def test_the_last_rounds_model_is_refined_not_searched_again(caplog):
    """When synthesis gives up, the last claim's model (found by that round)
    becomes the counterexample after refinement in its own launch: no second
    search of the same claim (`solve(seed=...)`), and replay confirms it."""
    import logging

    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"):
        obs = prove_src(BUGGY_HALO)
    (bad,) = [o for o in _uninit(obs) if o.status is Status.FAILED]
    kinds = [r.getMessage().split(": ")[0].rsplit(".", 1)[-1] for r in caplog.records
             if ".uninit@17:20." in r.getMessage()]
    # the rounds' own queries, then refinement only: no abstract/probe/exact
    # search of `solve` again
    assert kinds[-1] == "smaller-model", kinds
    assert all(k.startswith("uninit-") or k == "smaller-model" for k in kinds), kinds
    ok, why = replay(compile_kernel(BUGGY_HALO), bad)
    assert ok, why


def test_a_read_before_the_missing_barrier_is_found_in_the_races_launch(caplog):
    """The tiled matmul without its load barrier: the race on sa has a
    counterexample first; the uninit claim is then searched in that launch
    (an early probe, with the threads' earlier accesses in bounds) before
    any generic probe, and its model -- small already -- is kept without a
    second search; replay confirms every failure (only the race and uninit
    obligations decided: the others are not checked here)."""
    import logging

    path = CORPUS / "race_matmul_tiled_missing_first_barrier.py"
    kernel = compile_file(str(path)).kernels[0].mir
    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"), \
            deciding_only(ObligationKind.RACE, ObligationKind.UNINIT):
        report = prove_mir(kernel, file=str(path))
    bad = [o for o in report.obligations if o.kind is ObligationKind.UNINIT]
    assert len(bad) == 2 and all(o.status is Status.FAILED and o.confirmed for o in bad)
    names = [r.getMessage() for r in caplog.records if ".uninit@" in r.getMessage()]
    assert sum(".uninit-early-probe: sat" in n for n in names) == 2, names
    assert sum(".uninit-sample:" in n for n in names) == 1, names     # shared by both reads
    # the race on sb is found in the launch of the race on sa, its model kept
    sb = [r.getMessage() for r in caplog.records if ".race@39:9+41:33." in r.getMessage()]
    assert any(".early-probe: sat" in n for n in sb), sb
    assert not any(".smaller-model:" in n for n in sb), sb
    assert not any(".uninit-probe:" in n or ".smaller-model:" in n for n in names), names


TILE_LOOP = """
@vk.kernel(block_dim=256)
def tiles(out: vk.array(dtype=vk.float32)):
    sa = vk.shared.array(shape=(16, 17), dtype=vk.float32)
    t = vk.thread_idx()
    ty = t // 16
    tx = t % 16
    acc = 0.0
    for kt in range(4):
        sa[ty, tx] = 1.0
        vk.sync_threads()
        for kk in range(WIDTH):
            acc += sa[ty, kk]
        vk.sync_threads()
    if vk.tid() < out.shape[0]:
        out[vk.tid()] = acc
"""


def _uninit_queries(caplog) -> list[str]:
    return [r.getMessage().split(".uninit@", 1)[1] for r in caplog.records
            if ".uninit@" in r.getMessage()]


def test_a_tile_read_is_proved_by_the_barrier_after_its_load_alone(caplog):
    """The tile's one write has two candidates (the barrier after the load in
    the same iteration, and the loop's last barrier in the previous one):
    the claim with the first alone is unsat (it implies the whole claim),
    so no query with both copies is asked (only the uninit obligations decided)."""
    import logging

    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"):
        obs = prove_src_only(TILE_LOOP.replace("WIDTH", "16"), ObligationKind.UNINIT)
    assert _statuses(obs) == ["proved"], [o.message for o in _uninit(obs)]
    names = _uninit_queries(caplog)
    assert any("uninit-first-alone: unsat" in n for n in names), names
    assert not any("uninit-abstract" in n for n in names), names


def test_a_column_no_thread_writes_fails_after_the_first_candidate_alone(caplog):
    """Column 16 of the tile is never written: the first candidate alone
    does not prove the read, the whole claim is asked and fails, and replay
    confirms the uninitialised read (only the uninit obligations decided)."""
    import logging

    src = TILE_LOOP.replace("WIDTH", "17")
    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"):
        obs = prove_src_only(src, ObligationKind.UNINIT)
    (bad,) = _uninit(obs)
    assert bad.status is Status.FAILED and bad.counterexample.facts["index"][1] == 16
    names = _uninit_queries(caplog)
    assert any("uninit-first-alone: sat" in n for n in names), names
    assert any("uninit-abstract" in n for n in names), names
    ok, why = replay(compile_kernel(src), bad)
    assert ok, why


def test_different_writes_are_not_tried_one_at_a_time(caplog):
    """The halo stencil's reads have a candidate per write (the centre and
    each halo store): no one of them covers alone, so none is tried alone."""
    import logging

    path = CORPUS / "uninit_stencil_halo_last_block.py"
    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"):
        prove_mir(compile_file(str(path)).kernels[0].mir, file=str(path))
    names = _uninit_queries(caplog)
    assert names and not any("first-alone" in n for n in names), names


def test_fixed_halo_is_proved():
    obs = prove_src(FIXED_HALO)
    assert _statuses(obs) == ["proved", "proved"], [o.message for o in obs]


def test_one_sample_model_seeds_the_synthesis(caplog):
    """The fit of a candidate's first witness reads one sample model: the
    sample search stops at its first satisfiable query (the ones before it
    are launches whose contracts admit no large arrays); the second read
    (sh[t + 2], in the same block) is in bounds in that sample too, and
    takes it with no search of its own."""
    import logging

    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"):
        obs = prove_src(FIXED_HALO)
    assert _statuses(obs) == ["proved", "proved"]
    by_site: dict[str, list[str]] = {}
    for r in caplog.records:
        msg = r.getMessage()
        if ".uninit-sample: " in msg:
            site = msg.split(".uninit-sample")[0].rsplit(".", 1)[-1]
            by_site.setdefault(site, []).append(msg.split(": ")[1].split()[0])
    assert sorted(by_site) == ["uninit@17:12"], by_site
    for answers in by_site.values():
        assert answers[-1] == "sat" and "sat" not in answers[:-1], by_site


def test_an_earlier_sample_that_is_not_one_of_this_read_is_not_taken():
    """`_first_sample` takes an earlier read's sample only when it reaches
    this read in bounds: one where the read is out of bounds starts a search."""
    import z3

    from verikern.proofs.deciding.prover_context import ProofContext
    from verikern.proofs.deciding.uninit import _first_sample

    kernel = compile_kernel(FIXED_HALO)
    ctx = ProofContext(kernel, None, None)
    (spec,) = [s for s in enumerate_obligations(kernel)
               if s.kind is ObligationKind.UNINIT and s.loc.col == 20]
    ins = kernel.block(spec.site[0]).instrs[spec.site[1]]
    inside = ctx.within(ins.array, ctx.A.index_terms(ins))
    s = z3.Solver()
    s.add(z3.Not(inside))                 # sh[t + 2] past the end: not a read there
    assert s.check() == z3.sat
    elsewhere = s.model()
    ctx.uninit_samples.append(elsewhere)
    sample = _first_sample(ctx, spec)
    assert sample is not None and sample is not elsewhere
    assert z3.is_true(sample.eval(inside, model_completion=True))
    assert _first_sample(ctx, spec) is sample        # now it is one: taken


@pytest.mark.parametrize("src, why", [
    ("""
    @vk.kernel(block_dim=32)
    def k(out: vk.array(dtype=vk.float32)):
        sh = vk.shared.array(shape=(32,), dtype=vk.float32)
        t = vk.thread_idx()
        if t < 16:
            sh[t] = 1.0
        vk.sync_threads()
        out[vk.tid()] = sh[31 - t]
    """, "write under a thread-dependent condition"),
    ("""
    @vk.kernel(block_dim=32)
    def k(out: vk.array(dtype=vk.float32)):
        sh = vk.shared.array(shape=(32,), dtype=vk.float32)
        t = vk.thread_idx()
        vk.sync_threads()
        out[vk.tid()] = sh[31 - t]
        vk.sync_threads()
        sh[t] = 1.0
    """, "the only write comes after the read"),
    ("""
    @vk.kernel(block_dim=32)
    def k(out: vk.array(dtype=vk.float32)):
        sh = vk.shared.array(shape=(33,), dtype=vk.float32)
        t = vk.thread_idx()
        sh[t] = 1.0
        vk.sync_threads()
        out[vk.tid()] = sh[t + 1]
    """, "element 32 has no writer thread in the block"),
    ("""
    @vk.kernel(block_dim=32)
    def k(out: vk.array(dtype=vk.float32)):
        sh = vk.shared.array(shape=(4, 32), dtype=vk.float32)
        t = vk.thread_idx()
        for r in range(3):
            sh[r, t] = 1.0
        vk.sync_threads()
        out[vk.tid()] = sh[t % 4, t]
    """, "the write loop covers rows 0..2 only"),
    ("""
    @vk.kernel(block_dim=32)
    def k(out: vk.array(dtype=vk.float32)):
        sh = vk.shared.array(shape=(128,), dtype=vk.float32)
        t = vk.thread_idx()
        for j in range(t, 128, 2 * vk.block_dim()):
            sh[j] = 1.0
        vk.sync_threads()
        out[vk.tid()] = sh[(t * 5) % 128]
    """, "a staging loop whose stride skips every other block of elements"),
    ("""
    @vk.kernel(block_dim=32)
    def k(out: vk.array(dtype=vk.float32)):
        sh = vk.shared.array(shape=(128,), dtype=vk.float32)
        t = vk.thread_idx()
        for j in range(t, 96, vk.block_dim()):
            sh[j] = 1.0
        vk.sync_threads()
        out[vk.tid()] = sh[127 - t]
    """, "a staging loop that stops before the elements read"),
    ("""
    @vk.kernel(block_dim=32)
    def k(out: vk.array(dtype=vk.float32)):
        sh = vk.shared.array(shape=(128,), dtype=vk.float32)
        t = vk.thread_idx()
        for j in range(t, 128, vk.block_dim()):
            if j != 75:
                sh[j] = 1.0
        vk.sync_threads()
        out[vk.tid()] = sh[(t * 5) % 128]
    """, "a staging loop whose write skips one counter value"),
    ("""
    @vk.kernel(block_dim=256)
    def k(out: vk.array(dtype=vk.float32)):
        sh = vk.shared.array(shape=(16, 16), dtype=vk.float32)
        t = vk.thread_idx()
        r = t // 16
        c = t % 16
        sh[r, (c ^ r) & 7] = 1.0
        vk.sync_threads()
        out[vk.tid()] = sh[c, r ^ c]
    """, "a swizzled store that is no permutation (columns 8..15 unwritten)"),
])
def test_not_proved_where_a_write_may_be_missing(src, why):
    """Only the uninit obligations decided (the others are not checked here)."""
    obs = prove_src_only(src, ObligationKind.UNINIT)
    un = _uninit(obs)
    assert un and all(o.status is Status.FAILED for o in un), (why, [o.message for o in obs])
    ok, how = replay(compile_kernel(src), un[0])
    assert ok, (why, how)


def test_xor_swizzled_stores_are_proved():
    """The writer of a swizzled slot is the XOR inverse of the element read:
    a mask (s[t ^ 9]) and a 2-D swizzle (s[r, c ^ r], a transpose's)."""
    obs = prove_src("""
    @vk.kernel(block_dim=256)
    def k(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
        vk.requires(out.shape[0] == x.shape[0])
        sh = vk.shared.array(shape=(16, 16), dtype=vk.float32)
        flat = vk.shared.array(shape=(256,), dtype=vk.float32)
        t = vk.thread_idx()
        r = t // 16
        c = t % 16
        i = vk.tid()
        v = 0.0
        if i < x.shape[0]:
            v = x[i]
        sh[r, c ^ r] = v
        flat[t ^ 9] = v
        vk.sync_threads()
        if i < out.shape[0]:
            out[i] = sh[c, r ^ c] + flat[255 - t]
    """)
    assert _statuses(obs) == ["proved", "proved"], [o.message for o in _uninit(obs)]


def test_staging_loops_with_a_block_stride_are_proved():
    """Only the uninit obligations decided (the others are not checked here)."""
    obs = prove_src_only("""
    @vk.kernel(block_dim=64)
    def k(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32), off: int):
        vk.requires(x.shape[0] == 300)
        vk.requires(out.shape[0] == vk.launch_dim())
        vk.requires(off >= 0 and off <= 44)
        sh = vk.shared.array(shape=(300,), dtype=vk.float32)
        t = vk.thread_idx()
        for j in range(t + off, 300, vk.block_dim()):
            sh[j] = x[j]
        vk.sync_threads()
        i = vk.tid()
        if i < out.shape[0]:
            out[i] = sh[299 - i % 256]
    """, ObligationKind.UNINIT)
    assert _statuses(obs) == ["proved"], [o.message for o in _uninit(obs)]


@pytest.mark.parametrize("offset, step, stop, bd", [
    (0, 4, 20, 4), (3, 4, 20, 4), (0, 8, 30, 4), (-5, 3, 17, 4), (2, 2, 11, 4),
    (0, 0, 10, 4), (0, -2, -9, 4), (1, 5, 1, 4), (0, 4, 2**31 - 1, 4),
])
def test_real_iteration_is_exactly_pythons_range(offset, step, stop, bd):
    """`real_iteration` against Python's range: a counter value it accepts is
    run by the thread it names, and every value some thread runs is accepted
    (for a stride below the block size, by the thread it names, one of those
    that run it)."""
    def bv(x):
        return z3.BitVecVal(x, 32)
    stride = StridedLoop("h", z3.BitVec("j", 32), True, bv(offset), bv(step), bv(stop))
    v = z3.BitVec("v", 64)
    thread, ok = real_iteration(stride, v, bv(bd))
    near = max(min(stop, 200), -200)      # Python's range, cut to the values looked at
    runs = {(t, j) for t in range(bd) for j in range(t + offset, near, step)} if step else set()
    values = {j for _, j in runs}
    lo = min(values | {0}) - 40
    for x in list(range(lo, lo + 250)) + [2**31 - 2, 2**31 - 1, 2**31, -2**31 - 1]:
        sub = [(v, z3.BitVecVal(x, 64))]
        accepted = z3.is_true(z3.simplify(z3.substitute(ok, *sub)))
        if abs(x) >= 200:
            real = step > 0 and x < stop and x < 2**31 and (x - offset) % step < bd \
                and x >= offset
            assert accepted == real, x
            continue
        assert accepted == (step > 0 and x in values), (x, accepted)
        if accepted:
            t = z3.simplify(z3.substitute(thread, *sub)).as_long()
            assert (t, x) in runs, (t, x)


def test_own_earlier_write_and_write_in_previous_iteration_are_proved():
    """Only the uninit obligations decided (the others are not checked here)."""
    obs = prove_src_only("""
    @vk.kernel(block_dim=32)
    def k(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
        vk.requires(out.shape[0] == x.shape[0])
        buf = vk.shared.array(shape=(2, 32), dtype=vk.float32)
        t = vk.thread_idx()
        i = vk.tid()
        v = 0.0
        if i < x.shape[0]:
            v = x[i]
        buf[0, t] = v
        w = buf[0, t]
        vk.sync_threads()
        src = 0
        step = 1
        while step < 32:
            acc = buf[src, 31 - t]
            buf[1 - src, t] = acc + w
            vk.sync_threads()
            src = 1 - src
            step *= 2
        if i < out.shape[0]:
            out[i] = buf[src, t]
    """, ObligationKind.UNINIT)
    assert _statuses(obs) == ["proved"] * 3, [o.message for o in _uninit(obs)]


def test_atomic_on_a_shared_counter_needs_its_initialisation():
    src = """
    @vk.kernel(block_dim=32)
    def k(out: vk.array(dtype=vk.int32)):
        c = vk.shared.array(shape=(1,), dtype=vk.int32)
        t = vk.thread_idx()
        {init}
        vk.sync_threads()
        vk.atomic_add(c, 0, 1)
        vk.sync_threads()
        if t == 0:
            out[vk.block_idx()] = c[0]
    """
    good = prove_src(src.format(init="if t == 0:\n            c[0] = 0"))
    assert _statuses(good) == ["proved", "proved"], [o.message for o in _uninit(good)]
    bad_src = src.format(init="t = t + 0")
    bad = prove_src(bad_src)
    assert _statuses(bad)[0] == "failed", [o.message for o in _uninit(bad)]
    ok, why = replay(compile_kernel(bad_src), _uninit(bad)[0])
    assert ok, why


def test_simulator_agrees_with_the_halo_verdicts():
    """Independent of the prover: the buggy halo raises at the right halo of
    the last block; the fixed one computes the numpy stencil."""
    x = np.arange(64, dtype=np.float32)
    with pytest.raises(UninitializedReadError) as info:
        launch(compile_kernel(BUGGY_HALO), 64, [x, np.zeros(64, np.float32)], block_dim=32)
    assert (info.value.block, info.value.thread, info.value.detail["index"]) == (1, 31, (33,))
    y = np.zeros(64, np.float32)
    launch(compile_kernel(FIXED_HALO), 64, [x, y], block_dim=32)
    for b in range(2):                      # each block pads its own ends with 0
        padded_b = np.concatenate(([0.0], x[32 * b:32 * b + 32], [0.0]))
        np.testing.assert_array_equal(y[32 * b:32 * b + 32], padded_b[:-2] + padded_b[2:])


ROWS = """
@vk.kernel(block_dim=32)
def rows(out: vk.array(dtype=vk.float32, ndim=2)):
    vk.requires(out.shape[0] == vk.launch_dim(0) and out.shape[1] == vk.launch_dim(1))
    REQUIRE
    sh = vk.shared.array(shape=(32,), dtype=vk.float32)
    i, j = vk.tid()
    if i % 2 == 0:
        sh[j % 32] = 1.0
    vk.sync_threads()
    if i % 2 == 0:
        out[i, j] = sh[31 - j % 32]
"""


def test_a_block_is_one_row_only_when_the_last_launch_dim_is_a_block_multiple():
    """The same-block geometry fact (encoders/smt/geometry.py) proves the
    witness thread 31 - t shares the reader's even row when the contract
    aligns rows to blocks; without it a block straddles two rows (dims
    (2, 48): block 1 is j = 32..47 of row 0 and j = 0..15 of row 1, which
    writes nothing), the simulator shows the read, and it is never proved
    (only its uninit obligations decided: the kernel's race obligation, which
    this test does not check, would cost four times as much)."""
    aligned = ROWS.replace("REQUIRE", "vk.requires(vk.launch_dim(1) % 32 == 0)")
    straddling = ROWS.replace("REQUIRE", "pass")
    assert _statuses(prove_src(aligned)) == ["proved"]
    assert "proved" not in _statuses(prove_src_only(straddling, ObligationKind.UNINIT))
    with pytest.raises(UninitializedReadError) as info:
        launch(compile_kernel(straddling), (2, 48), [np.zeros((2, 48), np.float32)], block_dim=32)
    assert info.value.block == 1 and info.value.detail["index"][0] >= 16
    out = np.zeros((2, 64), np.float32)
    launch(compile_kernel(aligned), (2, 64), [out], block_dim=32)
    np.testing.assert_array_equal(out, [[1.0] * 64, [0.0] * 64])


def test_unique_fit_solves_exactly_or_defers_to_the_tiers():
    """`uninit.unique_fit` (the affine inverse of a write index, without a
    solver): the tiled transpose's witness t = 32*e0 + e1 - 256 from points
    of its second write iteration; None where the points leave a multiplier
    free, need a fraction, or a coefficient beyond COEFF_BOUND."""
    from verikern.proofs.deciding.uninit import COEFF_BOUND, unique_fit
    pts = [((e0, e1), 32 * e0 + e1 - 256) for e0, e1 in [(8, 0), (9, 3), (15, 31), (12, 7)]]
    assert unique_fit(pts, [False, False]) == [-256, 32, 1]
    # a constant row index: its multiplier is fixed at 0, the rest still unique
    assert unique_fit([((5, e1), e1 + 3) for e1 in (0, 4, 9)], [True, False]) == [3, 0, 1]
    assert unique_fit([((2, 2), 7)], [False, False]) is None                  # one point
    assert unique_fit([((0,), 0), ((2,), 1)], [False]) is None                # t = e / 2
    big = COEFF_BOUND + 1
    assert unique_fit([((0,), 0), ((1,), big)], [False]) is None
    assert unique_fit([((0,), 0), ((1,), 1), ((2,), 5)], [False]) is None     # inconsistent


def test_synthesis_tries_the_sparse_guesses_first():
    """`uninit.unit_guesses`: the affine inverse first, then w = thread_idx
    and w = e_k (basis [1, thread_idx, block_dim, e_0, e_1]); never a
    duplicate. With them the double-buffered scan's read buf[src, t - offset]
    gets w = e_1 for both writes (corpus ok_scan_hillis_steele_double_buffer,
    `unknown` when the rounds fitted dense vectors with large constants)."""
    from verikern.proofs.deciding.uninit import unit_guesses
    assert unit_guesses(5, [-32, 0, 0, 1, 0]) == [
        [-32, 0, 0, 1, 0], [0, 1, 0, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 0, 1]]
    assert unit_guesses(5, [0, 0, 0, 0, 1]) == [
        [0, 0, 0, 0, 1], [0, 1, 0, 0, 0], [0, 0, 0, 1, 0]]
    assert unit_guesses(4, None) == [[0, 1, 0, 0], [0, 0, 0, 1]]
