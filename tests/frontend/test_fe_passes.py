"""MIR passes: exact constant folding, obligation-preserving DCE, trivial
phi removal; verify() between passes."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from frontend.fe_util import compile_text
from verikern.mir import nodes as M
from verikern.mir.builder import MirBuilder
from verikern.mir.passes import (
    PASSES, ConstantFolding, DeadCodeElimination, TrivialPhiRemoval, run_default_pipeline,
)
from verikern.mir.passes.const_fold import fold_int_binop
from verikern.mir.types import BOOL, F32, I8, I32, U32
from verikern.mir.verifier import verify

L = M.SourceLoc("t.py", 1, 1)


def _kernel(build, dtype=I32):
    """A one-block kernel: build(b, arr) emits instructions, then ret."""
    b = MirBuilder("k", L)
    arr = b.array_param(M.ArrayRef("a", dtype, 1))
    b.set_block(b.new_block("entry"))
    build(b, arr)
    b.terminate(M.Return(L))
    k = b.finish()
    verify(k)
    return k


def _binop(b, op, x, y, t=I32):
    v = b.new_value(t)
    b.emit(M.BinOp(v, op, x, y, L))
    return v


def _store(b, arr, v):
    b.emit(M.Store(arr, (M.Const(0, I32),), v, L))


def _folded_value(op, x, y, t=I32):
    def build(b, arr):
        _store(b, arr, _binop(b, op, M.Const(x, t), M.Const(y, t), t))
    k = run_default_pipeline(_kernel(build, t), check=True)
    (st_,) = [i for _, i in k.instructions() if isinstance(i, M.Store)]
    return st_.value


I32S = st.integers(-2**31, 2**31 - 1)


@settings(max_examples=60, deadline=None)
@given(I32S, I32S)
def test_int32_folding_matches_numpy(x, y):
    a, b = np.int32(x), np.int32(y)
    with np.errstate(all="ignore"):
        assert fold_int_binop("add", x, y, I32) == int(a + b)
        assert fold_int_binop("sub", x, y, I32) == int(a - b)
        assert fold_int_binop("mul", x, y, I32) == int(a * b)
        assert fold_int_binop("xor", x, y, I32) == int(a ^ b)
        assert fold_int_binop("shl", x, y, I32) == int(a << (b & 31))
        assert fold_int_binop("shr", x, y, I32) == int(a >> (b & 31))
    if y != 0 and not (x == -2**31 and y == -1):
        assert fold_int_binop("floordiv", x, y, I32) == int(np.floor_divide(a, b))
        assert fold_int_binop("mod", x, y, I32) == int(np.fmod(a, b))
        assert fold_int_binop("div", x, y, I32) == int(np.fix(x / y)) if abs(x) < 2**52 else True


def test_special_cases_of_integer_folding():
    # INT_MIN / -1 faults on int32 (x86 traps): never folded, it stays for the prover
    assert fold_int_binop("floordiv", -2**31, -1, I32) is None
    assert fold_int_binop("div", -2**31, -1, I32) is None
    assert fold_int_binop("mod", -2**31, -1, I32) is None
    assert fold_int_binop("floordiv", -128, -1, I8) == -128    # int8 wraps (Warp: C++ int)
    assert fold_int_binop("mod", -128, -1, I8) == 0
    assert fold_int_binop("mod", -7, 2, I32) == -1 and fold_int_binop("floordiv", -7, 2, I32) == -4
    assert fold_int_binop("div", -7, 2, I32) == -3
    assert fold_int_binop("shr", 0xFFFFFFFF, 4, U32) == 0x0FFFFFFF
    assert fold_int_binop("shl", 1, 33, I32) == 2  # amount modulo the width
    assert fold_int_binop("add", 127, 1, I8) == -128
    assert fold_int_binop("div", 5, 0, I32) is None


def test_division_by_zero_is_never_folded_or_removed():
    for op in ("div", "floordiv", "mod"):
        def build(b, arr, op=op):
            _binop(b, op, M.Const(5, I32), M.Const(0, I32))  # result unused
        k = run_default_pipeline(_kernel(build), check=True)
        ops = [i.op for _, i in k.instructions() if isinstance(i, M.BinOp)]
        assert ops == [op]


def test_folding_through_the_pipeline():
    assert _folded_value("add", 2**31 - 1, 1) == M.Const(-2**31, I32)
    assert _folded_value("mod", -7, 3) == M.Const(-1, I32)
    v = _folded_value("add", 0.1, 0.2, F32)
    assert v == M.Const(float(np.float32(0.1) + np.float32(0.2)), F32)


def test_dce_keeps_every_memory_and_contract_instruction():
    def build(b, arr):
        v = b.new_value(I32)
        b.emit(M.Load(v, arr, (M.Const(1, I32),), L))
        o = b.new_value(I32)
        b.emit(M.Atomic(o, "add", arr, (M.Const(0, I32),), M.Const(1, I32), L))
        c = b.new_value(BOOL)
        b.emit(M.Compare(c, "lt", v, o, L))
        b.emit(M.Assert(M.Const(True, BOOL), "ok", L))
        b.emit(M.Barrier(L))
        dead = _binop(b, "mul", v, v)
        _binop(b, "div", v, o)       # may divide by zero: an obligation
        _binop(b, "div", v, M.Const(4, I32))  # cannot fault: removable
        del dead
    k = DeadCodeElimination().run(_kernel(build))
    verify(k)
    kinds = [type(i).__name__ + getattr(i, "op", "") for _, i in k.instructions()]
    assert kinds == ["Load", "Atomicadd", "Assert", "Barrier", "BinOpdiv"]


def test_trivial_phi_removal_and_verify_between_passes():
    b = MirBuilder("k", L)
    arr = b.array_param(M.ArrayRef("a", I32, 1))
    n = b.scalar_param("n", I32)
    entry, left, right, join = (b.new_block(h) for h in ("entry", "l", "r", "j"))
    b.set_block(entry)
    c = b.new_value(BOOL)
    b.emit(M.Compare(c, "lt", n, M.Const(0, I32), L))
    b.terminate(M.Branch(c, left, right, L))
    for lbl in (left, right):
        b.set_block(lbl)
        b.terminate(M.Jump(join, L))
    b.set_block(join)
    p = b.new_value(I32, "x")
    b.add_phi(join, M.Phi(p, ((left, n), (right, n)), L))
    b.emit(M.Store(arr, (M.Const(0, I32),), p, L))
    b.terminate(M.Return(L))
    k = b.finish()
    verify(k)
    for ps in PASSES:
        k = ps.run(k)
        verify(k)
    assert not k.block(join).phis
    (st_,) = [i for _, i in k.instructions() if isinstance(i, M.Store)]
    assert st_.value == n


def test_range_counter_phi_is_kept_and_loop_info_updated():
    r = compile_text("""
    import verikern as vk
    @vk.kernel
    def k(a: vk.array(dtype=vk.int32)):
        n = 2 + 3
        for i in range(n):
            return
    """)
    k = r.kernels[0].mir
    verify(k)
    (lp,) = k.loops
    assert lp.range.stop == M.Const(5, I32)
    assert lp.range.counter in [p.result for p in k.block(lp.header).phis]


def test_passes_have_names_and_run():
    assert {p.name for p in PASSES} == {"trivial-phi", "const-fold", "dce"}
    for p in (ConstantFolding(), DeadCodeElimination(), TrivialPhiRemoval()):
        assert callable(p.run)


def test_float_min_max_folding_follows_fminf():
    from verikern.mir.passes.const_fold import fold_float_binop
    nan = float("nan")
    assert fold_float_binop("min", nan, 2.0, F32) == 2.0
    assert fold_float_binop("max", 1.0, nan, F32) == 1.0
    assert fold_float_binop("min", -0.5, 2.0, F32) == -0.5
    assert fold_float_binop("pow", 2.0, 2.0, F32) is None  # transcendental: not folded


def test_pass_tables_cover_every_instruction_class_and_unknown_raises():
    import pytest
    from verikern.mir.passes.const_fold import FOLDERS, fold
    from verikern.mir.ops import INSTRUCTION_FACTS
    from verikern.mir.passes.dce import is_removable
    opcodes = {c.OPCODE for c in M.INSTRUCTION_CLASSES}
    assert set(FOLDERS) == opcodes and set(INSTRUCTION_FACTS) == opcodes

    class Strange(M.Instr):
        OPCODE = "strange"
    with pytest.raises(TypeError, match="no rule"):
        fold(Strange())
    with pytest.raises(TypeError, match="no op-table entry"):
        is_removable(Strange())
