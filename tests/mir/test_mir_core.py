"""MIR core: builder, verifier, printer and CFG utilities on hand-built kernels."""
import dataclasses

import pytest

from verikern.mir import (
    BOOL, F32, I32, ArrayRef, Barrier, BinOp, Branch, Compare, Const, Jump,
    Load, MirVerifyError, Phi, Return, ShapeOf, SourceLoc, Special, Store,
    format_kernel, verify,
)
from verikern.mir.builder import MirBuilder
from verikern.mir.cfg import (
    CfgShape, UnstructuredCycle, dominators, immediate_postdominator, loop_depths, reachable_labels,
    reverse_postorder,
)
from verikern.mir.nodes import LoopInfo

L = SourceLoc("k.py", 3, 5)


def saxpy():
    b = MirBuilder("saxpy", L)
    x = b.array_param(ArrayRef("x", F32, 1))
    y = b.array_param(ArrayRef("y", F32, 1))
    a = b.scalar_param("a", F32)
    entry, then, done = b.new_block("entry"), b.new_block("then"), b.new_block("exit")
    b.set_block(entry)
    t, bi, bd = b.new_value(I32), b.new_value(I32), b.new_value(I32)
    b.emit(Special(t, "thread_idx", L))
    b.emit(Special(bi, "block_idx", L))
    b.emit(Special(bd, "block_dim", L))
    m = b.new_value(I32)
    b.emit(BinOp(m, "mul", bi, bd, L))
    i = b.new_value(I32, "i")
    b.emit(BinOp(i, "add", m, t, L))
    n = b.new_value(I32)
    b.emit(ShapeOf(n, x, 0, L))
    c = b.new_value(BOOL)
    b.emit(Compare(c, "lt", i, n, L))
    b.terminate(Branch(c, then, done, L))
    b.set_block(then)
    xv, r = b.new_value(F32), b.new_value(F32)
    b.emit(Load(xv, x, (i,), L))
    b.emit(BinOp(r, "mul", a, xv, L))
    b.emit(Store(y, (i,), r, L))
    b.terminate(Jump(done, L))
    b.set_block(done)
    b.terminate(Return(L))
    return b.finish()


def counting_loop():
    """for k in range(0, 4): (a barrier inside)"""
    b = MirBuilder("loop", L)
    entry, head, body, done = (b.new_block(h) for h in ("entry", "head", "body", "exit"))
    b.set_block(entry)
    b.terminate(Jump(head, L))
    k, k2, c = b.new_value(I32, "k"), b.new_value(I32, "k"), b.new_value(BOOL)
    b.add_phi(head, Phi(k, ((entry, Const(0, I32)), (body, k2)), L))
    b.set_block(head)
    b.emit(Compare(c, "lt", k, Const(4, I32), L))
    b.terminate(Branch(c, body, done, L))
    b.set_block(body)
    b.emit(Barrier(L))
    b.emit(BinOp(k2, "add", k, Const(1, I32), L))
    b.terminate(Jump(head, L))
    b.set_block(done)
    b.terminate(Return(L))
    return b.finish(uses_block_features=True)


def test_saxpy_verifies_and_prints_stably():
    k = saxpy()
    verify(k)
    text = format_kernel(k)
    assert text == format_kernel(saxpy())
    assert "kernel saxpy(x: array<float32, 1>, y: array<float32, 1>, %a.0: float32)" in text
    assert "  %8: float32 = load x[%i.5]  ; 3:5" in text
    assert "  store y[%i.5], %9  ; 3:5" in text
    assert text.rstrip().endswith("}")


def test_loop_orders_and_dominators():
    k = counting_loop()
    verify(k)
    rpo = reverse_postorder(k)
    assert rpo.index("head1") < rpo.index("body2")
    assert rpo.index("head1") < rpo.index("exit3")
    dom = dominators(k)
    assert dom["body2"] == {"entry0", "head1", "body2"}
    assert immediate_postdominator(k, "entry0") == "head1"
    assert immediate_postdominator(k, "body2") == "head1"
    assert "phi [entry0: 0:int32], [body2: %k.1]" in format_kernel(k)


def test_loop_first_order_puts_the_loop_before_its_exit():
    """The simulator's order (successors by loop depth) against the plain one,
    computed by hand for entry -> head -> {body -> head, exit}."""
    k = counting_loop()
    assert loop_depths(k) == {"entry0": 0, "head1": 1, "body2": 1, "exit3": 0}
    assert reverse_postorder(k) == ["entry0", "head1", "exit3", "body2"]
    assert reverse_postorder(k, successor_key=loop_depths(k).__getitem__) == [
        "entry0", "head1", "body2", "exit3"]
    assert reachable_labels(k.blocks) == {"entry0", "head1", "body2", "exit3"}


def test_cfg_shape_is_the_forward_order_without_back_edges():
    k = counting_loop()
    with pytest.raises(UnstructuredCycle, match="not a source loop"):
        CfgShape(k)          # the builder records no source loop: the cycle has no forward order
    k = dataclasses.replace(k, loops=(LoopInfo("head1", ("head1", "body2"), ("body2",), "exit3", L),))
    shape = CfgShape(k)
    assert shape.order == ["entry0", "head1", "body2", "exit3"]
    assert shape.back_edges == {("body2", "head1")}
    assert shape.forward_reachable("body2") == {"body2"}
    assert shape.forward_reachable("head1") == {"head1", "body2", "exit3"}
    assert shape.clean_exit_of == {"exit3": "head1"}
    assert shape.innermost_loop("body2") == "head1" and shape.innermost_loop("exit3") is None


def test_verifier_rejects_use_before_definition():
    b = MirBuilder("bad", L)
    e = b.new_block()
    b.set_block(e)
    v, w = b.new_value(I32), b.new_value(I32)
    b.emit(BinOp(w, "add", v, Const(1, I32), L))   # v never defined
    b.terminate(Return(L))
    with pytest.raises(MirVerifyError, match="never defined"):
        verify(b.finish())


def test_verifier_rejects_type_mismatch_and_bad_phi():
    b = MirBuilder("bad", L)
    e = b.new_block()
    b.set_block(e)
    w = b.new_value(I32)
    b.emit(BinOp(w, "add", Const(1.0, F32), Const(1, I32), L))
    b.terminate(Return(L))
    with pytest.raises(MirVerifyError, match="types differ"):
        verify(b.finish())

    b = MirBuilder("badphi", L)
    e, j = b.new_block(), b.new_block()
    b.set_block(e)
    b.terminate(Jump(j, L))
    p = b.new_value(I32)
    b.add_phi(j, Phi(p, (("nowhere", Const(0, I32)),), L))
    b.set_block(j)
    b.terminate(Return(L))
    with pytest.raises(MirVerifyError, match="predecessors"):
        verify(b.finish())


def test_verifier_rejects_wrong_index_count():
    b = MirBuilder("bad", L)
    arr = b.array_param(ArrayRef("a", F32, 2))
    e = b.new_block()
    b.set_block(e)
    v = b.new_value(F32)
    b.emit(Load(v, arr, (Const(0, I32),), L))
    b.terminate(Return(L))
    with pytest.raises(MirVerifyError, match="1 indices for a 2-d array"):
        verify(b.finish())


def test_const_wraps_into_type():
    assert MirBuilder.const(2**31, I32).value == -(2**31)
    assert MirBuilder.const(-1, __import__("verikern.mir", fromlist=["U8"]).U8).value == 255
