"""Hand-built MIR kernels for the native backend tests (independent of the frontend)."""
from __future__ import annotations

from verikern.mir.builder import MirBuilder
from verikern.mir.nodes import (
    ArrayRef, Atomic, Barrier, BinOp, Branch, Compare, Jump, Load, Phi, Return,
    ShapeOf, SourceLoc, Special, Store,
)
from verikern.mir.types import BOOL, F32, I32

FILE = "hand_kernels.py"


def loc(line: int, col: int = 5) -> SourceLoc:
    return SourceLoc(FILE, line, col)


def tid(bld: MirBuilder):
    t = bld.new_value(I32, "t")
    bi = bld.new_value(I32, "b")
    bd = bld.new_value(I32, "bd")
    bld.emit(Special(t, "thread_idx", loc(1)))
    bld.emit(Special(bi, "block_idx", loc(1)))
    bld.emit(Special(bd, "block_dim", loc(1)))
    m = bld.new_value(I32)
    bld.emit(BinOp(m, "mul", bi, bd, loc(1)))
    i = bld.new_value(I32, "i")
    bld.emit(BinOp(i, "add", m, t, loc(1)))
    return i, t


def saxpy(guarded: bool = True):
    """y[i] = a * x[i] + y[i] for i < x.shape[0] (unguarded: no test)."""
    bld = MirBuilder("saxpy", loc(1))
    x = bld.array_param(ArrayRef("x", F32, 1))
    y = bld.array_param(ArrayRef("y", F32, 1))
    a = bld.scalar_param("a", F32)
    entry = bld.new_block("entry")
    body = bld.new_block("body")
    done = bld.new_block("done")
    bld.set_block(entry)
    i, _ = tid(bld)
    n = bld.new_value(I32, "n")
    bld.emit(ShapeOf(n, x, 0, loc(2)))
    c = bld.new_value(BOOL)
    bld.emit(Compare(c, "lt", i, n, loc(3)))
    if guarded:
        bld.terminate(Branch(c, body, done, loc(3)))
    else:
        bld.terminate(Jump(body, loc(3)))
    bld.set_block(body)
    xv = bld.new_value(F32)
    bld.emit(Load(xv, x, (i,), loc(4, 20)))
    yv = bld.new_value(F32)
    bld.emit(Load(yv, y, (i,), loc(4, 30)))
    p = bld.new_value(F32)
    bld.emit(BinOp(p, "mul", a, xv, loc(4)))
    s = bld.new_value(F32)
    bld.emit(BinOp(s, "add", p, yv, loc(4)))
    bld.emit(Store(y, (i,), s, loc(4)))
    bld.terminate(Jump(done, loc(4)))
    bld.set_block(done)
    bld.terminate(Return(loc(5)))
    return bld.finish()


def block_reverse(rounds_loop: bool = False):
    """out[b*B + t] = in[b*B + (B-1-t)] through shared memory with a barrier;
    with rounds_loop, the barrier sits in a loop of `rounds` iterations,
    each round reversing the shared buffer again (result: reversed iff odd)."""
    bld = MirBuilder("block_reverse", loc(10))
    src = bld.array_param(ArrayRef("src", I32, 1))
    dst = bld.array_param(ArrayRef("dst", I32, 1))
    rounds = bld.scalar_param("rounds", I32)
    sh = bld.shared_array(ArrayRef("buf", I32, 1, space="shared", shape=(64,)))
    entry = bld.new_block("entry")
    head = bld.new_block("head")
    body = bld.new_block("body")
    done = bld.new_block("done")
    bld.set_block(entry)
    i, t = tid(bld)
    v0 = bld.new_value(I32, "v0")
    bld.emit(Load(v0, src, (i,), loc(11)))
    bld.terminate(Jump(head, loc(12)))
    # head: k, v phis
    bld.set_block(head)
    k = bld.new_value(I32, "k")
    v = bld.new_value(I32, "v")
    k1 = bld.new_value(I32, "k1")
    v1 = bld.new_value(I32, "v1")
    bld.add_phi(head, Phi(k, ((entry, bld.const(0, I32)), (body, k1)), loc(12)))
    bld.add_phi(head, Phi(v, ((entry, v0), (body, v1)), loc(12)))
    c = bld.new_value(BOOL)
    bld.emit(Compare(c, "lt", k, rounds, loc(12)))
    bld.terminate(Branch(c, body, done, loc(12)))
    bld.set_block(body)
    bld.emit(Store(sh, (t,), v, loc(13)))
    bld.emit(Barrier(loc(14)))
    bd = bld.new_value(I32)
    bld.emit(Special(bd, "block_dim", loc(15)))
    r = bld.new_value(I32)
    bld.emit(BinOp(r, "sub", bd, bld.const(1, I32), loc(15)))
    r2 = bld.new_value(I32)
    bld.emit(BinOp(r2, "sub", r, t, loc(15)))
    bld.emit(Load(v1, sh, (r2,), loc(15)))
    bld.emit(Barrier(loc(16)))
    bld.emit(BinOp(k1, "add", k, bld.const(1, I32), loc(12)))
    bld.terminate(Jump(head, loc(12)))
    bld.set_block(done)
    bld.emit(Store(dst, (i,), v, loc(17)))
    bld.terminate(Return(loc(18)))
    return bld.finish(uses_block_features=True)


def atomic_count():
    """count[0] += 1 per thread via atomic add; returns old into olds[i]."""
    bld = MirBuilder("atomic_count", loc(20))
    cnt = bld.array_param(ArrayRef("count", I32, 1))
    olds = bld.array_param(ArrayRef("olds", I32, 1))
    entry = bld.new_block("entry")
    bld.set_block(entry)
    i, _ = tid(bld)
    old = bld.new_value(I32)
    bld.emit(Atomic(old, "add", cnt, (bld.const(0, I32),), bld.const(1, I32), loc(21)))
    bld.emit(Store(olds, (i,), old, loc(22)))
    bld.terminate(Return(loc(23)))
    return bld.finish()


def elementwise(kind: str, op: str, in_type, out_type=None):
    """out[i] = op(a[i], b[i]) (kind "binop"/"cmp"), op(a[i]) ("unop"), or
    a[i] converted to out_type ("cast"), guarded by i < out.shape[0]."""
    from verikern.mir.nodes import Cast, UnaryOp
    out_type = out_type or (BOOL if kind == "cmp" else in_type)
    bld = MirBuilder(f"ew_{kind}_{op}_{in_type}_{out_type}", loc(30))
    a = bld.array_param(ArrayRef("a", in_type, 1))
    b = bld.array_param(ArrayRef("b", in_type, 1))
    out = bld.array_param(ArrayRef("out", out_type, 1))
    entry, body, done = bld.new_block("entry"), bld.new_block("body"), bld.new_block("done")
    bld.set_block(entry)
    i, _ = tid(bld)
    n = bld.new_value(I32)
    bld.emit(ShapeOf(n, out, 0, loc(31)))
    c = bld.new_value(BOOL)
    bld.emit(Compare(c, "lt", i, n, loc(31)))
    bld.terminate(Branch(c, body, done, loc(31)))
    bld.set_block(body)
    av = bld.new_value(in_type)
    bld.emit(Load(av, a, (i,), loc(32)))
    bv = bld.new_value(in_type)
    bld.emit(Load(bv, b, (i,), loc(32)))
    r = bld.new_value(out_type)
    if kind == "binop":
        bld.emit(BinOp(r, op, av, bv, loc(33, 9)))
    elif kind == "cmp":
        bld.emit(Compare(r, op, av, bv, loc(33, 9)))
    elif kind == "unop":
        bld.emit(UnaryOp(r, op, av, loc(33, 9)))
    else:
        bld.emit(Cast(r, av, loc(33, 9)))
    bld.emit(Store(out, (i,), r, loc(34)))
    bld.terminate(Jump(done, loc(34)))
    bld.set_block(done)
    bld.terminate(Return(loc(35)))
    return bld.finish()


def divergent_barrier(split_returns: bool = False):
    """Threads t < cut wait at the barrier on line 41, the others at the one on
    line 43 (or, with split_returns, the others return at once, which is legal)."""
    from verikern.mir.nodes import Barrier as B
    bld = MirBuilder("divergent", loc(40))
    out = bld.array_param(ArrayRef("out", I32, 1))
    cut = bld.scalar_param("cut", I32)
    entry, left, right, join = (bld.new_block("entry"), bld.new_block("left"),
                                bld.new_block("right"), bld.new_block("join"))
    bld.set_block(entry)
    i, t = tid(bld)
    c = bld.new_value(BOOL)
    bld.emit(Compare(c, "lt", t, cut, loc(40)))
    bld.terminate(Branch(c, left, right, loc(40)))
    bld.set_block(left)
    bld.emit(B(loc(41)))
    bld.terminate(Jump(join, loc(41)))
    bld.set_block(right)
    if split_returns:
        bld.terminate(Return(loc(43)))
    else:
        bld.emit(B(loc(43)))
        bld.terminate(Jump(join, loc(43)))
    bld.set_block(join)
    bld.emit(Store(out, (i,), t, loc(44)))
    bld.terminate(Return(loc(45)))
    return bld.finish(uses_block_features=True)


def grid_2d():
    """out[i, j] = i * 1000 + j for a 2-D launch (i, j from the linear id)."""
    bld = MirBuilder("grid_2d", loc(50))
    out = bld.array_param(ArrayRef("out", I32, 2))
    entry = bld.new_block("entry")
    bld.set_block(entry)
    lin, _ = tid(bld)
    d1 = bld.new_value(I32)
    bld.emit(Special(d1, "launch_dim", loc(50), dim=1))
    i = bld.new_value(I32, "i")
    bld.emit(BinOp(i, "floordiv", lin, d1, loc(50)))
    j = bld.new_value(I32, "j")
    bld.emit(BinOp(j, "mod", lin, d1, loc(50)))
    v = bld.new_value(I32)
    bld.emit(BinOp(v, "mul", i, bld.const(1000, I32), loc(51)))
    w = bld.new_value(I32)
    bld.emit(BinOp(w, "add", v, j, loc(51)))
    bld.emit(Store(out, (i, j), w, loc(51)))
    bld.terminate(Return(loc(52)))
    return bld.finish(launch_ndim=2)


def asserting():
    """assert x[i] >= 0, "x must be non-negative" for every thread."""
    from verikern.mir.nodes import Assert
    bld = MirBuilder("asserting", loc(60))
    x = bld.array_param(ArrayRef("x", I32, 1))
    entry = bld.new_block("entry")
    bld.set_block(entry)
    i, _ = tid(bld)
    v = bld.new_value(I32)
    bld.emit(Load(v, x, (i,), loc(61)))
    c = bld.new_value(BOOL)
    bld.emit(Compare(c, "ge", v, bld.const(0, I32), loc(61)))
    bld.emit(Assert(c, "x must be non-negative", loc(62)))
    bld.terminate(Return(loc(63)))
    return bld.finish()


def atomic_mix(dtype, op: str, with_compare: bool = False):
    """olds[i] = atomic_<op>(acc, i % slots, vals[i][, cmps[i]]) on array acc of
    `dtype`; a constant added to vals first (exercises constants of dtype)."""
    bld = MirBuilder(f"atomic_{op}_{dtype}", loc(70))
    acc = bld.array_param(ArrayRef("acc", dtype, 1))
    vals = bld.array_param(ArrayRef("vals", dtype, 1))
    cmps = bld.array_param(ArrayRef("cmps", dtype, 1))
    olds = bld.array_param(ArrayRef("olds", dtype, 1))
    entry = bld.new_block("entry")
    bld.set_block(entry)
    i, _ = tid(bld)
    slots = bld.new_value(I32)
    bld.emit(ShapeOf(slots, acc, 0, loc(71)))
    slot = bld.new_value(I32)
    bld.emit(BinOp(slot, "mod", i, slots, loc(71)))
    v = bld.new_value(dtype)
    bld.emit(Load(v, vals, (i,), loc(72)))
    w = bld.new_value(dtype)
    bld.emit(BinOp(w, "add", v, bld.const(0.25 if dtype.is_float else 3, dtype), loc(72)))
    cmp = None
    if with_compare:
        cmp = bld.new_value(dtype)
        bld.emit(Load(cmp, cmps, (i,), loc(73)))
    old = bld.new_value(dtype)
    bld.emit(Atomic(old, op, acc, (slot,), w, loc(74), compare=cmp))
    bld.emit(Store(olds, (i,), old, loc(75)))
    bld.terminate(Return(loc(76)))
    return bld.finish()
