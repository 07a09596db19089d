"""Control flow in the SIMT scheduler: divergence, loops, early return,
break/continue, nested loops (hand-built MIR; expected values computed in Python)."""
import numpy as np
import pytest

from simkit import KB
from verikern.runtime import launch


def _guarded(name, arrays):
    """KB with arrays declared, i = tid, branch `i < shape(out)` to body; returns
    (kb, arrays, i, done_label), positioned in body."""
    kb = KB(name)
    refs = [kb.arr(n, t) for n, t in arrays]
    i = kb.tid()
    ok = kb.cmp("lt", i, kb.shape(refs[-1]))
    body, done = kb.block("body"), kb.block("done")
    kb.branch(ok, body, done)
    kb.goto(done)
    kb.ret()
    kb.goto(body)
    return kb, refs, i, done


@pytest.mark.parametrize("block_dim", [1, 7, 32, 256])
def test_divergent_if_else_with_phi(block_dim):
    kb, (out,), i, done = _guarded("ifelse", [("out", "int32")])
    three, zero = kb.c(3), kb.c(0)
    c = kb.cmp("eq", kb.op("mod", i, three), zero)
    t, f, join = kb.block("then"), kb.block("else"), kb.block("join")
    kb.branch(c, t, f)
    kb.goto(t)
    vt = kb.op("mul", i, kb.c(2))
    kb.jump(join)
    kb.goto(f)
    vf = kb.op("add", i, kb.c(100))
    kb.jump(join)
    v = kb.phi(join, "int32", [(t, vt), (f, vf)])
    kb.goto(join)
    kb.store(out, i, v)
    kb.jump(done)
    k = kb.finish()
    n = 100
    o = np.zeros(n, np.int32)
    launch(k, n, [o], block_dim=block_dim)
    idx = np.arange(n)
    np.testing.assert_array_equal(o, np.where(idx % 3 == 0, idx * 2, idx + 100))


def _counted_loop(kb, count, body_fn, acc_init):
    """for k in range(count): acc = body_fn(kb, k, acc); returns (acc at exit, exit label)."""
    pre = kb.b.current.label
    header, body, latch, exit_ = kb.block("header"), kb.block("loop"), kb.block("latch"), kb.block("exit")
    kb.jump(header)
    k = kb.phi(header, "int32", [])
    acc = kb.phi(header, acc_init.type, [])
    kb.goto(header)
    kb.branch(kb.cmp("lt", k, count), body, exit_)
    kb.goto(body)
    new_acc = body_fn(kb, k, acc)
    kb.jump(latch)
    kb.goto(latch)
    k1 = kb.op("add", k, kb.c(1))
    kb.jump(header)
    return k, acc, (pre, latch, k1, new_acc), header, exit_


def _patch_phis(kb, header, k, acc, pre, latch, k1, new_acc, acc_init):
    from verikern.mir.nodes import Phi
    blk = kb.b._by_label[header]
    blk.phis = [Phi(k, ((pre, kb.c(0)), (latch, k1)), kb.loc()),
                Phi(acc, ((pre, acc_init), (latch, new_acc)), kb.loc())]


def test_loop_with_per_thread_trip_count():
    kb, (cnt, out), i, done = _guarded("trip", [("cnt", "int32"), ("out", "int64")])
    c = kb.load(cnt, i)
    init = kb.c(0, "int64")
    k, acc, (pre, latch, k1, new_acc), header, exit_ = _counted_loop(
        kb, c, lambda kb, k, acc: kb.op("add", acc, kb.cast(k, "int64")), init)
    _patch_phis(kb, header, k, acc, pre, latch, k1, new_acc, init)
    kb.goto(exit_)
    kb.store(out, i, acc)
    kb.jump(done)
    k_ = kb.finish()
    rng = np.random.default_rng(1)
    counts = rng.integers(0, 40, 300).astype(np.int32)
    counts[::17] = 0
    o = np.full(300, -1, np.int64)
    launch(k_, 300, [counts, o], block_dim=64)
    np.testing.assert_array_equal(o, counts.astype(np.int64) * (counts - 1) // 2)


def test_early_return():
    kb, (a, out), i, done = _guarded("early", [("a", "float32"), ("out", "int32")])
    neg = kb.cmp("lt", kb.load(a, i), kb.c(0.0, "float32"))
    leave, cont = kb.block("leave"), kb.block("cont")
    kb.branch(neg, leave, cont)
    kb.goto(leave)
    kb.ret()
    kb.goto(cont)
    kb.store(out, i, kb.c(1))
    kb.jump(done)
    k = kb.finish()
    a = np.array([1.0, -1.0, 2.0, -0.5, 0.0] * 10, np.float32)
    o = np.zeros(50, np.int32)
    launch(k, 50, [a, o], block_dim=8)
    np.testing.assert_array_equal(o, (a >= 0).astype(np.int32))


def test_break_and_continue():
    # for k in range(50): if k == stop[i]: break; if k % 2 == 1: continue; acc += k
    kb, (stop, out), i, done = _guarded("brk", [("stop", "int32"), ("out", "int32")])
    s = kb.load(stop, i)
    pre = kb.b.current.label
    header, body, odd_chk, add_blk, latch, exit_ = (kb.block(h) for h in
                                                   ("header", "loop", "odd", "add", "latch", "exit"))
    kb.jump(header)
    k = kb.phi(header, "int32", [])
    acc = kb.phi(header, "int32", [])
    kb.goto(header)
    kb.branch(kb.cmp("lt", k, kb.c(50)), body, exit_)
    kb.goto(body)
    kb.branch(kb.cmp("eq", k, s), exit_, odd_chk)                     # break
    kb.goto(odd_chk)
    kb.branch(kb.cmp("eq", kb.op("mod", k, kb.c(2)), kb.c(1)), latch, add_blk)  # continue
    kb.goto(add_blk)
    acc2 = kb.op("add", acc, k)
    kb.jump(latch)
    acc_l = kb.phi(latch, "int32", [(odd_chk, acc), (add_blk, acc2)])
    kb.goto(latch)
    k1 = kb.op("add", k, kb.c(1))
    kb.jump(header)
    from verikern.mir.nodes import Phi
    kb.b._by_label[header].phis = [Phi(k, ((pre, kb.c(0)), (latch, k1)), kb.loc()),
                                   Phi(acc, ((pre, kb.c(0)), (latch, acc_l)), kb.loc())]
    res = kb.phi(exit_, "int32", [(header, acc), (body, acc)])
    kb.goto(exit_)
    kb.store(out, i, res)
    kb.jump(done)
    k_ = kb.finish()
    stops = np.array([0, 1, 5, 10, 49, 60, 7, 3, 100, 20], np.int32)
    o = np.zeros(10, np.int32)
    launch(k_, 10, [stops, o], block_dim=4)
    expect = [sum(v for v in range(min(int(s_), 50)) if v % 2 == 0) for s_ in stops]
    assert o.tolist() == expect


def test_nested_loops():
    # out[i] = sum_{j < a[i]} sum_{k < j} (j * k)
    kb, (a, out), i, done = _guarded("nest", [("a", "int32"), ("out", "int32")])
    n = kb.load(a, i)
    init = kb.c(0)

    def outer_body(kb, j, acc):
        kk, acc2, (pre2, latch2, k12, new2), header2, exit2 = _counted_loop(
            kb, j, lambda kb, k, acc_in: kb.op("add", acc_in, kb.op("mul", j, k)), acc)
        _patch_phis(kb, header2, kk, acc2, pre2, latch2, k12, new2, acc)
        kb.goto(exit2)
        return acc2

    j, acc, (pre, latch, j1, new_acc), header, exit_ = _counted_loop(kb, n, outer_body, init)
    _patch_phis(kb, header, j, acc, pre, latch, j1, new_acc, init)
    kb.goto(exit_)
    kb.store(out, i, acc)
    kb.jump(done)
    k_ = kb.finish()
    a = (np.arange(40) % 9).astype(np.int32)
    o = np.zeros(40, np.int32)
    launch(k_, 40, [a, o], block_dim=16)
    expect = [sum(jj * kk for jj in range(v) for kk in range(jj)) for v in a]
    assert o.tolist() == expect


def test_endless_loop_is_reported_not_a_hang():
    from simkit import launch_config
    from verikern.backends.simulator import simulate
    from verikern.errors import KernelRuntimeError
    kb = KB("spin")
    out = kb.arr("out", "int32")
    loop, never = kb.block("loop"), kb.block("never")
    kb.jump(loop)
    kb.goto(loop)
    kb.branch(kb.cmp("lt", kb.shape(out), kb.c(100)), loop, never)   # always true
    kb.goto(never)
    kb.ret()
    k = kb.finish()
    with pytest.raises(KernelRuntimeError, match=r"did not finish after 1000 scheduling steps"):
        simulate(k, launch_config(4, 4), {"out": np.zeros(4, np.int32)}, {}, max_steps=1000)
