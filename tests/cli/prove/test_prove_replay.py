"""Counterexample replay on the simulator, with MIR built by hand (so these
tests need only the simulator and the runtime's launch checks)."""
from __future__ import annotations

import pytest

from verikern.mir import types as T
from verikern.mir.builder import MirBuilder
from verikern.mir.nodes import (
    ArrayRef, Assert, Barrier, BinOp, Branch, Compare, Const, Jump, Requires, Return,
    ShapeOf, SourceLoc, Special, Store,
)
from verikern.proofs.obligations import Counterexample, Obligation, ObligationKind, Status

from verikern.proofs.confirming.replay import MAX_REPLAY_THREADS, concrete_launch, replay

F = "k.py"


def L(line, col=5):
    return SourceLoc(F, line, col)


def _tid(b: MirBuilder):
    t = b.new_value(T.I32, "t")
    bi = b.new_value(T.I32, "b")
    bd = b.new_value(T.I32, "bd")
    b.emit(Special(t, "thread_idx", L(2)))
    b.emit(Special(bi, "block_idx", L(2)))
    b.emit(Special(bd, "block_dim", L(2)))
    m = b.new_value(T.I32)
    b.emit(BinOp(m, "mul", bi, bd, L(2)))
    i = b.new_value(T.I32, "i")
    b.emit(BinOp(i, "add", m, t, L(2)))
    return i, t


def store_at_tid(offset=0):
    """k(x: array f32): x[tid + offset] = 1.0   (line 3)"""
    b = MirBuilder("k", L(1, 1))
    x = b.array_param(ArrayRef("x", T.F32, 1))
    b.set_block(b.new_block("entry"))
    i, _ = _tid(b)
    j = b.new_value(T.I32)
    b.emit(BinOp(j, "add", i, Const(offset, T.I32), L(3)))
    b.emit(Store(x, (j,), Const(1.0, T.F32), L(3)))
    b.terminate(Return(L(4)))
    return b.finish()


def divide(requires_positive=False):
    """k(x: array i32, n: int32): x[0] = 10 // n   (line 3; tid 0 only)"""
    b = MirBuilder("k", L(1, 1))
    x = b.array_param(ArrayRef("x", T.I32, 1))
    n = b.scalar_param("n", T.I32)
    entry = b.new_block("entry")
    then = b.new_block("then")
    done = b.new_block("done")
    b.set_block(entry)
    if requires_positive:
        c = b.new_value(T.BOOL)
        b.emit(Compare(c, "gt", n, Const(0, T.I32), L(2)))
        b.emit(Requires(c, L(2)))
    i, _ = _tid(b)
    first = b.new_value(T.BOOL)
    b.emit(Compare(first, "eq", i, Const(0, T.I32), L(2)))
    b.terminate(Branch(first, then, done, L(2)))
    b.set_block(then)
    q = b.new_value(T.I32)
    b.emit(BinOp(q, "floordiv", Const(10, T.I32), n, L(3)))
    b.emit(Store(x, (Const(0, T.I32),), q, L(3)))
    b.terminate(Jump(done, L(3)))
    b.set_block(done)
    b.terminate(Return(L(4)))
    return b.finish()


def assert_tid_below(limit):
    """k(x: array f32): assert tid < limit  (line 3)"""
    b = MirBuilder("k", L(1, 1))
    b.array_param(ArrayRef("x", T.F32, 1))
    b.set_block(b.new_block("entry"))
    i, _ = _tid(b)
    c = b.new_value(T.BOOL)
    b.emit(Compare(c, "lt", i, Const(limit, T.I32), L(3)))
    b.emit(Assert(c, "tid too large", L(3)))
    b.terminate(Return(L(4)))
    return b.finish()


def barrier_under(cond_limit):
    """k(x: array f32): if thread_idx < limit: sync_threads() (line 3)
    else: sync_threads() (line 5) -- two different barriers."""
    b = MirBuilder("k", L(1, 1))
    b.array_param(ArrayRef("x", T.F32, 1))
    entry, then, other, done = b.new_block("entry"), b.new_block("then"), b.new_block("else"), b.new_block("done")
    b.set_block(entry)
    _, t = _tid(b)
    c = b.new_value(T.BOOL)
    b.emit(Compare(c, "lt", t, Const(cond_limit, T.I32), L(3)))
    b.terminate(Branch(c, then, other, L(3)))
    b.set_block(then)
    b.emit(Barrier(L(3)))
    b.terminate(Jump(done, L(3)))
    b.set_block(other)
    b.emit(Barrier(L(5)))
    b.terminate(Jump(done, L(5)))
    b.set_block(done)
    b.terminate(Return(L(6)))
    return b.finish(uses_block_features=True)


def store_guarded(index_of_tid):
    """k(x: array f32): if tid < x.shape[0]: x[f(tid)] = 1.0  (line 3)"""
    b = MirBuilder("k", L(1, 1))
    x = b.array_param(ArrayRef("x", T.F32, 1))
    entry, then, done = b.new_block("entry"), b.new_block("then"), b.new_block("done")
    b.set_block(entry)
    i, _ = _tid(b)
    n = b.new_value(T.I32)
    b.emit(ShapeOf(n, x, 0, L(2)))
    c = b.new_value(T.BOOL)
    b.emit(Compare(c, "lt", i, n, L(2)))
    b.terminate(Branch(c, then, done, L(2)))
    b.set_block(then)
    j = index_of_tid(b, i)
    b.emit(Store(x, (j,), Const(1.0, T.F32), L(3)))
    b.terminate(Jump(done, L(3)))
    b.set_block(done)
    b.terminate(Return(L(4)))
    return b.finish()


def ob(kind, cex, line=3, other=None):
    return Obligation(kind, L(line), Status.FAILED, "m", counterexample=cex,
                      other_loc=L(other) if other else None)


def test_bounds_violation_is_confirmed_at_its_line():
    cex = Counterexample((8,), 4, ((1, 3),), shapes={"x": (7,)})
    ok, why = replay(store_at_tid(), ob(ObligationKind.BOUNDS, cex))
    assert ok, why
    assert "OutOfBoundsError at line 3" in why


def test_in_bounds_launch_is_not_confirmed():
    cex = Counterexample((8,), 4, ((1, 3),), shapes={"x": (8,)})
    ok, why = replay(store_at_tid(), ob(ObligationKind.BOUNDS, cex))
    assert not ok and "ran without a bounds violation" in why


def test_error_at_another_line_does_not_confirm():
    cex = Counterexample((8,), 4, ((1, 3),), shapes={"x": (7,)})
    ok, why = replay(store_at_tid(), ob(ObligationKind.BOUNDS, cex, line=9))
    assert not ok and "not at line 9" in why


def test_division_by_zero_is_confirmed_and_needs_the_recorded_scalar():
    k = divide()
    ok, why = replay(k, ob(ObligationKind.DIV_ZERO, Counterexample((4,), 4, ((0, 0),), scalars={"n": 0},
                                                                   shapes={"x": (1,)})))
    assert ok and "DivisionByZeroError" in why
    ok, why = replay(k, ob(ObligationKind.DIV_ZERO, Counterexample((4,), 4, ((0, 0),), scalars={"n": 3},
                                                                   shapes={"x": (1,)})))
    assert not ok


def test_a_counterexample_that_breaks_a_requires_is_refused():
    cex = Counterexample((4,), 4, ((0, 0),), scalars={"n": 0}, shapes={"x": (1,)})
    ok, why = replay(divide(requires_positive=True), ob(ObligationKind.DIV_ZERO, cex))
    assert not ok and why.startswith("the launch was refused")


def test_assert_failure_is_confirmed():
    cex = Counterexample((16,), 8, ((1, 7),), shapes={"x": (1,)})
    ok, why = replay(assert_tid_below(10), ob(ObligationKind.ASSERT, cex))
    assert ok and "KernelAssertionError" in why
    ok, _ = replay(assert_tid_below(100), ob(ObligationKind.ASSERT, cex))
    assert not ok


def test_barrier_divergence_is_confirmed():
    cex = Counterexample((8,), 8, ((0, 5),), shapes={"x": (1,)})
    ok, why = replay(barrier_under(2), ob(ObligationKind.DIVERGENCE, cex))
    assert ok and "BarrierDivergenceError" in why
    ok, _ = replay(barrier_under(100), ob(ObligationKind.DIVERGENCE, cex))
    assert not ok


def test_race_is_confirmed_from_the_trace():
    def halve(b, i):
        j = b.new_value(T.I32)
        b.emit(BinOp(j, "floordiv", i, Const(2, T.I32), L(3)))
        return j
    cex = Counterexample((4,), 4, ((0, 0), (0, 1)), shapes={"x": (4,)})
    ok, why = replay(store_guarded(halve), ob(ObligationKind.RACE, cex, line=3, other=3))
    assert ok, why
    assert "x[0]" in why or "x[1]" in why
    ok, why = replay(store_guarded(lambda b, i: i), ob(ObligationKind.RACE, cex, line=3, other=3))
    assert not ok and "no conflicting accesses" in why


def test_too_large_launch_is_not_replayed_unless_it_can_shrink():
    huge = MAX_REPLAY_THREADS * 4
    cex = Counterexample((huge,), 256, ((0, 5),), shapes={"x": (3,)})
    ok, why = replay(store_at_tid(), ob(ObligationKind.BOUNDS, cex))
    assert ok and f"shrunk from {huge} to 256 threads" in why
    far = Counterexample((huge,), 256, ((huge // 256 - 1, 255),), shapes={"x": (3,)})
    ok, why = replay(store_at_tid(), ob(ObligationKind.BOUNDS, far))
    assert ok and f"only block {huge // 256 - 1} of the {huge // 256} blocks" in why
    nobody = Counterexample((huge,), 256, (), shapes={"x": (3,)})
    ok, why = replay(store_at_tid(), ob(ObligationKind.BOUNDS, nobody))
    assert not ok and why == f"launch too large to replay: {huge} threads"


def test_concrete_launch_fills_recorded_contents_and_zeros():
    b = MirBuilder("k", L(1, 1))
    b.array_param(ArrayRef("a", T.I32, 2))
    b.scalar_param("s", T.I16)
    b.set_block(b.new_block("entry"))
    b.terminate(Return(L(2)))
    k = b.finish()
    launch = concrete_launch(k, Counterexample((2, 3), 4, ((0, 0),), scalars={"s": 70000},
                                               shapes={"a": (2, 3)}, arrays={"a": {4: 9}}))
    a, s = launch.inputs
    assert a.shape == (2, 3) and a.dtype.name == "int32"
    assert a.tolist() == [[0, 0, 0], [0, 9, 0]]
    assert int(s) == T.I16.wrap(70000)
    with pytest.raises(ValueError, match="no shape for array 'a'"):
        concrete_launch(k, Counterexample((2,), 4, ((0, 0),)))


def test_no_counterexample_is_not_confirmed():
    ok, why = replay(store_at_tid(), Obligation(ObligationKind.BOUNDS, L(3), Status.FAILED, "m"))
    assert not ok and why == "no counterexample to replay"


def test_every_obligation_kind_has_a_confirmation_rule():
    from verikern.proofs.confirming import replay as replay_module
    assert set(replay_module._EXPECTED_ERROR) == set(ObligationKind)


def load_float_index():
    """k(x: array f32, y: array f32): y[int(x[tid])] = 1.0 for tid < x.shape[0]  (line 3)"""
    from verikern.mir.nodes import Cast, Load
    b = MirBuilder("k", L(1, 1))
    x = b.array_param(ArrayRef("x", T.F32, 1))
    y = b.array_param(ArrayRef("y", T.F32, 1))
    entry, then, done = b.new_block("entry"), b.new_block("then"), b.new_block("done")
    b.set_block(entry)
    i, _ = _tid(b)
    n = b.new_value(T.I32)
    b.emit(ShapeOf(n, x, 0, L(2)))
    c = b.new_value(T.BOOL)
    b.emit(Compare(c, "lt", i, n, L(2)))
    b.terminate(Branch(c, then, done, L(2)))
    b.set_block(then)
    v = b.new_value(T.F32)
    b.emit(Load(v, x, (i,), L(3)))
    j = b.new_value(T.I32)
    b.emit(Cast(j, v, L(3)))
    b.emit(Store(y, (j,), Const(1.0, T.F32), L(3)))
    b.terminate(Jump(done, L(3)))
    b.set_block(done)
    b.terminate(Return(L(4)))
    return b.finish()


def test_abstracted_float_counterexample_is_confirmed_with_tried_contents():
    from verikern.proofs.confirming.replay import replay_with_witness
    k = load_float_index()
    # the prover's float value (0.0) is abstract: with it, y[0] is in bounds
    cex = Counterexample((2,), 2, ((0, 0),), shapes={"x": (2,), "y": (4,)}, arrays={"x": {0: 0.0}},
                         abstracted=True)
    ok, why, witness = replay_with_witness(k, ob(ObligationKind.BOUNDS, cex))
    assert ok, why
    assert "with array contents {'x': -1.0, 'y': -1.0} everywhere" in why
    assert witness.facts["fill"] == {"x": -1.0, "y": -1.0} and "x" not in witness.arrays
    # the same model without the abstraction mark is judged as given: not confirmed
    concrete = Counterexample((2,), 2, ((0, 0),), shapes={"x": (2,), "y": (4,)}, arrays={"x": {0: 0.0}})
    ok, why, witness = replay_with_witness(k, ob(ObligationKind.BOUNDS, concrete))
    assert not ok and witness is None and "ran without a bounds violation" in why


def test_race_is_confirmed_from_the_accesses_before_a_later_error():
    """x[tid // 2] = 1.0 (line 3, racing), then assert tid < 0 (line 5): the
    run stops at the assert, but the race already happened."""
    b = MirBuilder("k", L(1, 1))
    x = b.array_param(ArrayRef("x", T.F32, 1))
    b.set_block(b.new_block("entry"))
    i, _ = _tid(b)
    j = b.new_value(T.I32)
    b.emit(BinOp(j, "floordiv", i, Const(2, T.I32), L(3)))
    b.emit(Store(x, (j,), Const(1.0, T.F32), L(3)))
    c = b.new_value(T.BOOL)
    b.emit(Compare(c, "lt", i, Const(0, T.I32), L(5)))
    b.emit(Assert(c, "never", L(5)))
    b.terminate(Return(L(6)))
    k = b.finish()
    cex = Counterexample((4,), 4, ((0, 0), (0, 1)), shapes={"x": (4,)})
    ok, why = replay(k, ob(ObligationKind.RACE, cex, line=3, other=3))
    assert ok, why
    assert "before the run stopped" in why
