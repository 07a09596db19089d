"""Memory in the simulator: bounds, atomics, shared memory and barriers,
partial blocks, 2-D launches (hand-built MIR, references from numpy)."""
import numpy as np
import pytest

from simkit import KB, launch_config
from verikern.backends.simulator import simulate
from verikern.errors import BarrierDivergenceError, OutOfBoundsError
from verikern.runtime import launch


def _copy_kernel(offset):
    """out[i] = a[i + offset] for every thread (no guard)."""
    kb = KB("shifted")
    a, out = kb.arr("a", "float32"), kb.arr("out", "float32")
    i = kb.tid()
    kb.store(out, i, kb.load(a, kb.op("add", i, kb.c(offset))))
    kb.ret()
    return kb.finish()


def test_out_of_bounds_past_the_end_names_thread_and_index():
    k = _copy_kernel(3)
    a, out = np.zeros(10, np.float32), np.zeros(10, np.float32)
    with pytest.raises(OutOfBoundsError) as e:
        launch(k, 10, [a, out], block_dim=4)
    err = e.value
    assert (err.thread, err.block) == (3, 1)                 # global thread 7 reads a[10]
    assert err.detail["index"] == (10,)
    text = str(err)
    assert "a[10]" in text and "thread 3 of block 1" in text and "shifted.py:" in text
    assert err.loc.line > 0


def test_negative_index_is_out_of_bounds_not_wrapped():
    k = _copy_kernel(-1)
    with pytest.raises(OutOfBoundsError) as e:
        launch(k, 10, [np.zeros(10, np.float32), np.zeros(10, np.float32)], block_dim=4)
    assert e.value.detail["index"] == (-1,) and e.value.thread == 0 and e.value.block == 0


def test_partial_last_block_runs_only_existing_threads():
    k = _copy_kernel(0)
    a = np.arange(37, dtype=np.float32)
    out = np.zeros(37, np.float32)
    launch(k, 37, [a, out], block_dim=16)     # 3 blocks, last one has 5 threads
    np.testing.assert_array_equal(out, a)


def test_two_d_launch():
    kb = KB("grid2d", launch_ndim=2)
    out = kb.arr("out", "int32", ndim=2)
    lin = kb.tid()
    d1 = kb.special("launch_dim", 1)
    i = kb.op("floordiv", lin, d1)
    j = kb.op("mod", lin, d1)
    kb.store(out, (i, j), kb.op("add", kb.op("mul", i, kb.c(100)), j))
    kb.ret()
    k = kb.finish()
    out = np.zeros((7, 9), np.int32)
    launch(k, (7, 9), [out], block_dim=8)
    np.testing.assert_array_equal(out, np.arange(7)[:, None] * 100 + np.arange(9)[None, :])


def test_vec3_array_access():
    kb = KB("vecnorm")
    v = kb.arr("v", "float32", inner=(3,))
    out = kb.arr("out", "float32")
    i = kb.tid()
    comps = [kb.load(v, i, kb.c(c)) for c in range(3)]
    sq = kb.op("add", kb.op("add", kb.op("mul", comps[0], comps[0]),
                            kb.op("mul", comps[1], comps[1])), kb.op("mul", comps[2], comps[2]))
    kb.store(out, i, sq)
    kb.ret()
    k = kb.finish()
    rng = np.random.default_rng(0)
    vs = rng.random((50, 3), dtype=np.float32)
    out = np.zeros(50, np.float32)
    launch(k, 50, [vs, out], block_dim=16)
    ref = (vs[:, 0] * vs[:, 0] + vs[:, 1] * vs[:, 1]) + vs[:, 2] * vs[:, 2]
    np.testing.assert_array_equal(out, ref)


# --------------------------------------------------------------- atomics
def _atomic_kernel(op, dtype, with_compare=False):
    """old[i] = atomic_<op>(target, idx[i], val[i] [, cmp[i]])."""
    kb = KB(f"atomic_{op}")
    target, idx, val = kb.arr("target", dtype), kb.arr("idx", "int32"), kb.arr("val", dtype)
    cmp = kb.arr("cmp", dtype) if with_compare else None
    old = kb.arr("old", dtype)
    i = kb.tid()
    ok = kb.cmp("lt", i, kb.shape(idx))
    body, done = kb.block("body"), kb.block("done")
    kb.branch(ok, body, done)
    kb.goto(body)
    c = kb.load(cmp, i) if with_compare else None
    r = kb.atomic(op, target, kb.load(idx, i), kb.load(val, i), c)
    kb.store(old, i, r)
    kb.jump(done)
    kb.goto(done)
    kb.ret()
    return kb.finish()


def test_histogram_with_heavy_collisions_matches_bincount():
    rng = np.random.default_rng(3)
    n = 20000
    idx = (rng.integers(0, 1000, n) ** 2 // 100000).astype(np.int32)   # very skewed bins
    bins = np.zeros(10, np.int32)
    old = np.zeros(n, np.int32)
    launch(_atomic_kernel("add", "int32"), n, [bins, idx, np.ones(n, np.int32), old],
           block_dim=128)
    np.testing.assert_array_equal(bins, np.bincount(idx, minlength=10))
    # old values of each bin are exactly 0..count-1 (applied one at a time)
    for b in range(10):
        got = np.sort(old[idx == b])
        np.testing.assert_array_equal(got, np.arange(got.size))


def test_atomic_add_old_values_on_single_counter_are_a_permutation():
    n = 5000
    target = np.array([7], np.int32)
    old = np.zeros(n, np.int32)
    launch(_atomic_kernel("add", "int32"), n,
           [target, np.zeros(n, np.int32), np.full(n, 2, np.int32), old], block_dim=64)
    assert target[0] == 7 + 2 * n
    np.testing.assert_array_equal(np.sort(old), 7 + 2 * np.arange(n))


def test_atomic_float_add_is_a_sequential_chain():
    rng = np.random.default_rng(5)
    n = 3000
    vals = rng.random(n, dtype=np.float32)
    target = np.zeros(1, np.float32)
    old = np.zeros(n, np.float32)
    launch(_atomic_kernel("add", "float32"), n, [target, np.zeros(n, np.int32), vals, old],
           block_dim=128)
    order = np.argsort(old, kind="stable")
    chain = old[order]
    assert chain[0] == 0.0
    np.testing.assert_array_equal(chain[1:], (chain[:-1] + vals[order][:-1]).astype(np.float32))
    assert target[0] == np.float32(chain[-1] + vals[order][-1])


def test_atomic_sub_min_max_and_bitwise():
    n = 64
    rng = np.random.default_rng(2)
    vals = rng.integers(-1000, 1000, n).astype(np.int32)
    for op, init, final in (("sub", 0, -vals.sum()), ("min", 0, min(0, vals.min())),
                            ("max", 0, max(0, vals.max()))):
        target = np.array([init], np.int32)
        old = np.zeros(n, np.int32)
        launch(_atomic_kernel(op, "int32"), n, [target, np.zeros(n, np.int32), vals, old],
               block_dim=16)
        assert target[0] == final, op
        if op == "max":      # every old value is the running max of some prefix
            assert set(old.tolist()) <= set([0] + vals.tolist())
    bits = (1 << (np.arange(32) % 31)).astype(np.int32)
    for op, final in (("or", np.bitwise_or.reduce(bits)), ("xor", np.bitwise_xor.reduce(bits)),
                      ("and", 0)):
        target = np.array([-1 if op == "and" else 0], np.int32)
        launch(_atomic_kernel(op, "int32"), 32,
               [target, np.zeros(32, np.int32), bits, np.zeros(32, np.int32)], block_dim=8)
        assert target[0] == final, op


def test_atomic_cas_exactly_one_winner_per_slot():
    n = 4000
    slots = np.zeros(4, np.int32)
    idx = (np.arange(n) % 4).astype(np.int32)
    vals = np.arange(1, n + 1, dtype=np.int32)
    old = np.full(n, -1, np.int32)
    launch(_atomic_kernel("cas", "int32", with_compare=True), n,
           [slots, idx, vals, np.zeros(n, np.int32), old], block_dim=256)
    for s in range(4):
        winners = np.flatnonzero((old == 0) & (idx == s))
        assert winners.size == 1
        assert slots[s] == vals[winners[0]]
        # every loser saw the winner's value
        losers = (idx == s) & (old != 0)
        assert np.all(old[losers] == slots[s])


def test_atomic_exch_forms_a_chain():
    n = 1000
    slot = np.array([-5], np.int32)
    vals = np.arange(n, dtype=np.int32)
    old = np.zeros(n, np.int32)
    launch(_atomic_kernel("exch", "int32"), n, [slot, np.zeros(n, np.int32), vals, old],
           block_dim=100)
    # the old values plus the final value are the initial value plus every written value
    assert sorted(old.tolist() + [int(slot[0])]) == sorted([-5] + vals.tolist())


# ------------------------------------------------------ shared memory, barriers
def _block_sum_kernel(block):
    """out[block_idx] = sum of x over the block, tree reduction in shared memory."""
    kb = KB("block_sum", uses_block_features=True)
    x, out = kb.arr("x", "float32"), kb.arr("out", "float32")
    s = kb.shared("s", "float32", (block,))
    t = kb.special("thread_idx")
    i = kb.tid()
    kb.store(s, t, kb.load(x, i))
    kb.barrier()
    pre = kb.b.current.label
    header, body, add, join, exit_ = (kb.block(h) for h in ("header", "loop", "add", "join", "exit"))
    kb.jump(header)
    stride = kb.phi(header, "int32", [])
    kb.goto(header)
    kb.branch(kb.cmp("gt", stride, kb.c(0)), body, exit_)
    kb.goto(body)
    kb.branch(kb.cmp("lt", t, stride), add, join)
    kb.goto(add)
    kb.store(s, t, kb.op("add", kb.load(s, t), kb.load(s, kb.op("add", t, stride))))
    kb.jump(join)
    kb.goto(join)
    kb.barrier()
    half = kb.op("shr", stride, kb.c(1))
    kb.jump(header)
    from verikern.mir.nodes import Phi
    kb.b._by_label[header].phis = [Phi(stride, ((pre, kb.c(block // 2)), (join, half)), kb.loc())]
    kb.goto(exit_)
    first, done = kb.block("first"), kb.block("done")
    kb.branch(kb.cmp("eq", t, kb.c(0)), first, done)
    kb.goto(first)
    kb.store(out, kb.special("block_idx"), kb.load(s, kb.c(0)))
    kb.jump(done)
    kb.goto(done)
    kb.ret()
    return kb.finish()


@pytest.mark.parametrize("block", [2, 32, 128])
def test_shared_memory_tree_reduction(block):
    nblocks = 6
    x = (np.arange(block * nblocks) % 17).astype(np.float32)
    out = np.zeros(nblocks, np.float32)
    launch(_block_sum_kernel(block), block * nblocks, [x, out], block_dim=block)
    np.testing.assert_array_equal(out, x.reshape(nblocks, block).sum(axis=1))


def test_reduction_across_small_chunks_keeps_blocks_whole():
    block, nblocks = 32, 10
    x = np.arange(block * nblocks, dtype=np.float32)
    out = np.zeros(nblocks, np.float32)
    simulate(_block_sum_kernel(block), launch_config(block * nblocks, block),
             {"x": x, "out": out}, {}, chunk_threads=70)
    np.testing.assert_array_equal(out, x.reshape(nblocks, block).sum(axis=1))


def test_shared_memory_starts_uninitialised():
    """Shared memory starts uninitialised: reading an element no thread of
    the block wrote is an UninitializedReadError (docs/LANGUAGE.md section 5 (6))."""
    from verikern.errors import UninitializedReadError
    kb = KB("poison", uses_block_features=True)
    out = kb.arr("out", "float32")
    s = kb.shared("s", "float32", (4,))
    i = kb.tid()
    t = kb.special("thread_idx")
    kb.store(out, i, kb.load(s, t))
    kb.ret()
    k = kb.finish()
    with pytest.raises(UninitializedReadError) as info:
        launch(k, 8, [np.zeros(8, np.float32)], block_dim=4)
    err = info.value
    assert (err.block, err.thread, err.detail["array"], err.detail["index"]) == (0, 0, "s", (0,))


def test_barrier_divergence_names_the_line():
    kb = KB("diverge", uses_block_features=True)
    out = kb.arr("out", "int32")
    t = kb.special("thread_idx")
    inside, after = kb.block("inside"), kb.block("after")
    kb.branch(kb.cmp("lt", t, kb.c(5)), inside, after)
    kb.goto(inside)
    kb.barrier()
    barrier_line = kb.line
    kb.jump(after)
    kb.goto(after)
    kb.store(out, kb.tid(), t)
    kb.ret()
    k = kb.finish()
    with pytest.raises(BarrierDivergenceError) as e:
        launch(k, 16, [np.zeros(16, np.int32)], block_dim=8)
    err = e.value
    assert err.loc.line == barrier_line
    assert f"line {barrier_line}" in str(err)
    assert err.block == 0 and err.thread >= 5


def _early_return_kernel(cut):
    """threads with thread_idx >= cut return, the others meet at a barrier."""
    kb = KB("retbar", uses_block_features=True)
    out = kb.arr("out", "int32")
    s = kb.shared("s", "int32", (8,))
    t = kb.special("thread_idx")
    leave, stay = kb.block("leave"), kb.block("stay")
    kb.branch(kb.cmp("ge", t, kb.c(cut)), leave, stay)
    kb.goto(leave)
    kb.ret()
    kb.goto(stay)
    kb.store(s, t, t)
    kb.barrier()
    kb.store(out, kb.tid(), kb.load(s, kb.op("sub", kb.c(7), t)))
    kb.ret()
    return kb.finish()


def test_early_return_before_a_barrier_is_divergence():
    # docs/LANGUAGE.md section 4 (and the corpus): every thread of the block must
    # reach the barrier; a thread that returned first did not
    with pytest.raises(BarrierDivergenceError) as e:
        launch(_early_return_kernel(6), 16, [np.full(16, -1, np.int32)], block_dim=8)
    assert e.value.thread == 6 and "has returned without reaching it" in str(e.value)


def test_barrier_reached_by_every_thread_after_a_uniform_branch():
    out = np.full(16, -1, np.int32)
    launch(_early_return_kernel(8), 16, [out], block_dim=8)    # nobody leaves
    row = [7, 6, 5, 4, 3, 2, 1, 0]
    assert out.tolist() == row + row


@pytest.mark.parametrize("dtype,value,length", [("int8", -1, 300), ("int8", -128, 100),
                                                ("int16", -1, 40000), ("uint8", 255, 200),
                                                ("int64", -2**40, 10), ("uint64", 2**63, 10)])
def test_narrow_and_wide_index_types_are_checked_by_their_signedness(dtype, value, length):
    kb = KB("narrow")
    a, idx = kb.arr("a", "float32"), kb.arr("idx", dtype)
    i = kb.tid()
    kb.store(a, kb.load(idx, i), kb.c(1.0, "float32"))
    kb.ret()
    k = kb.finish()
    with pytest.raises(OutOfBoundsError) as e:
        launch(k, 2, [np.zeros(length, np.float32), np.array([0, value], dtype=dtype)], block_dim=2)
    assert e.value.detail["index"] == (value,) and e.value.thread == 1
