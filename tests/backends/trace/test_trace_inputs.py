"""Input generation for hand-built MIR kernels: shapes, dtypes, contracts."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings

from verikern.inputs import (
    InputGenerationError, coerce_scalar, inputs_strategy, make_inputs, ordered_inputs,
)
from verikern.mir import F32, I32, U8, ArrayRef, BOOL
from verikern.mir.builder import MirBuilder
from verikern.mir.nodes import (
    BinOp, Compare, Const, Requires, RequiresArray, Return, ShapeOf, SourceLoc, Special,
)
from verikern.mir.verifier import verify

L = SourceLoc("k.py", 3, 5)
import verikern.runtime as runtime  # noqa: E402


class KB:
    """A tiny kernel builder: entry block with contracts, then return."""

    def __init__(self, name="k", launch_ndim=1):
        self.b = MirBuilder(name, L)
        self.launch_ndim = launch_ndim
        self.entry = self.b.new_block("entry")
        self.b.set_block(self.entry)

    def arr(self, name, dtype=F32, ndim=1, inner=()):
        return self.b.array_param(ArrayRef(name, dtype, ndim, inner))

    def scalar(self, name, t=I32):
        return self.b.scalar_param(name, t)

    def shape(self, a, dim=0):
        v = self.b.new_value(I32, f"{a.name}_shape{dim}")
        self.b.emit(ShapeOf(v, a, dim, L))
        return v

    def special(self, kind, dim=0):
        v = self.b.new_value(I32, kind)
        self.b.emit(Special(v, kind, L, dim))
        return v

    def binop(self, op, x, y, t=I32):
        v = self.b.new_value(t)
        self.b.emit(BinOp(v, op, x, y, L))
        return v

    def require(self, op, x, y, line=4):
        c = self.b.new_value(BOOL)
        self.b.emit(Compare(c, op, x, y, L))
        self.b.emit(Requires(c, SourceLoc("k.py", line, 5)))

    def in_range(self, a, lo, hi):
        self.b.emit(RequiresArray("all_in_range", a, L, lo, hi))

    def distinct(self, a):
        self.b.emit(RequiresArray("all_distinct", a, L))

    def finish(self):
        self.b.terminate(Return(L))
        k = self.b.finish(launch_ndim=self.launch_ndim)
        verify(k)
        return k


def rng():
    return np.random.default_rng(1)


def test_default_shapes_dtypes_and_scalars_follow_the_launch():
    kb = KB()
    x, y = kb.arr("x"), kb.arr("y")
    kb.arr("flags", BOOL)
    kb.arr("pts", F32, 1, (3,))
    kb.scalar("a", F32)
    kb.scalar("n", I32)
    kb.require("eq", kb.shape(x), kb.shape(y))
    k = kb.finish()
    vals = make_inputs(k, 96, 32, rng())
    assert vals["x"].shape == (96,) and vals["x"].dtype == np.float32
    assert vals["flags"].dtype == np.bool_ and vals["pts"].shape == (96, 3)
    assert isinstance(vals["a"], np.float32) and isinstance(vals["n"], np.int32)
    assert np.all(np.abs(vals["x"]) <= 1.0)
    assert list(vals) == ["x", "y", "flags", "pts", "a", "n"]
    assert [type(v) for v in ordered_inputs(k, vals)] == [type(vals[n]) for n in vals]
    runtime.prepare_launch(k, 96, ordered_inputs(k, vals), 32)   # accepted as is


def test_2d_launch_and_size_override():
    kb = KB(launch_ndim=2)
    kb.arr("img", F32, 2)
    kb.arr("v", F32, 1)
    k = kb.finish()
    vals = make_inputs(k, (4, 8), 32, rng())
    assert vals["img"].shape == (4, 8) and vals["v"].shape == (32,)
    vals = make_inputs(k, (4, 8), 32, rng(), sizes={"img": (5, 6), "v": 7})
    assert vals["img"].shape == (5, 6) and vals["v"].shape == (7,)


def test_requires_tying_a_parameter_to_a_shape():
    kb = KB()
    x = kb.arr("x")
    n = kb.scalar("n")
    kb.require("eq", n, kb.shape(x))
    vals = make_inputs(kb.finish(), 64, 32, rng())
    assert int(vals["n"]) == 64 == vals["x"].shape[0]


def test_requires_found_by_search_over_transposed_shapes():
    kb = KB(launch_ndim=2)
    a, b = kb.arr("a", F32, 2), kb.arr("b", F32, 2)
    kb.require("eq", kb.shape(a, 1), kb.shape(b, 0))
    kb.require("eq", kb.shape(a, 0), kb.shape(b, 1))
    vals = make_inputs(kb.finish(), (4, 8), 32, rng())
    assert vals["a"].shape[1] == vals["b"].shape[0] and vals["a"].shape[0] == vals["b"].shape[1]


def test_requires_solved_by_z3_with_fewest_changes():
    kb = KB()
    x, lo, hi, _y = kb.arr("x"), kb.arr("lo", I32), kb.arr("hi", I32), kb.arr("y")
    n = kb.scalar("n")
    kb.require("eq", kb.shape(lo), Const(1, I32))
    kb.require("eq", kb.shape(hi), Const(1, I32))
    kb.require("eq", kb.binop("mul", n, Const(3, I32)), kb.shape(x))
    kb.require("ne", n, Const(1234567, I32))
    k = kb.finish()
    vals = make_inputs(k, 64, 32, rng(), sizes={"x": 30})
    assert vals["lo"].shape == vals["hi"].shape == (1,) and int(vals["n"]) == 10
    assert vals["y"].shape == (64,)          # untouched default
    vals = make_inputs(k, 64, 32, rng(), params={"n": 7})
    assert vals["x"].shape == (21,) and int(vals["n"]) == 7


def test_unsatisfiable_requires_names_the_contract_and_the_options():
    kb = KB()
    kb.arr("x")
    n = kb.scalar("n")
    kb.require("eq", n, Const(5, I32), line=9)
    k = kb.finish()
    with pytest.raises(InputGenerationError) as exc:
        make_inputs(k, 64, 32, rng(), params={"n": 4})
    msg = str(exc.value)
    assert "--param" in msg and "--size" in msg and "k.py:9" in msg
    assert int(make_inputs(k, 64, 32, rng())["n"]) == 5


def test_float_requires_left_to_the_runtime_check():
    kb = KB()
    kb.arr("x")
    a = kb.scalar("a", F32)
    c = kb.b.new_value(BOOL)
    kb.b.emit(Compare(c, "gt", a, Const(100.0, F32), L))
    kb.b.emit(Requires(c, SourceLoc("k.py", 12, 5)))
    k = kb.finish()
    with pytest.raises(InputGenerationError, match="k.py:12"):
        make_inputs(k, 64, 32, rng())
    assert float(make_inputs(k, 64, 32, rng(), params={"a": 150.0})["a"]) == 150.0


def test_all_in_range_with_shape_bound_and_all_distinct():
    kb = KB()
    src, idx, perm = kb.arr("src"), kb.arr("idx", I32), kb.arr("perm", I32)
    small = kb.arr("small", U8)
    kb.in_range(idx, Const(0, I32), kb.shape(src))
    kb.distinct(perm)
    kb.in_range(small, Const(3, U8), Const(7, U8))
    k = kb.finish()
    vals = make_inputs(k, 128, 64, rng(), sizes={"src": 10})
    assert vals["idx"].min() >= 0 and vals["idx"].max() < 10
    assert len(set(vals["idx"].tolist())) <= 10
    assert sorted(vals["perm"].tolist()) == list(range(128))
    assert vals["small"].dtype == np.uint8 and set(vals["small"].tolist()) <= {3, 4, 5, 6}


def test_in_range_and_distinct_together():
    kb = KB()
    p = kb.arr("p", I32)
    hi = kb.binop("add", kb.special("launch_dim"), Const(5, I32))
    kb.in_range(p, Const(-3, I32), hi)
    kb.distinct(p)
    vals = make_inputs(kb.finish(), 32, 32, rng())
    v = vals["p"].tolist()
    assert len(set(v)) == 32 and min(v) >= -3 and max(v) < 37


def test_distinct_impossible_in_range_is_a_clear_error():
    kb = KB()
    p = kb.arr("p", I32)
    kb.in_range(p, Const(0, I32), Const(4, I32))
    kb.distinct(p)
    with pytest.raises(InputGenerationError, match="distinct"):
        make_inputs(kb.finish(), 32, 32, rng())


def test_bad_overrides_are_named():
    kb = KB()
    kb.arr("x")
    kb.scalar("n")
    k = kb.finish()
    with pytest.raises(InputGenerationError, match="no scalar parameter 'm'.*n"):
        make_inputs(k, 8, 8, rng(), params={"m": 1})
    with pytest.raises(InputGenerationError, match="no array parameter 'y'"):
        make_inputs(k, 8, 8, rng(), sizes={"y": 3})
    with pytest.raises(InputGenerationError, match="not a shape for a 1-d array"):
        make_inputs(k, 8, 8, rng(), sizes={"x": (2, 3)})


def test_coerce_scalar():
    assert coerce_scalar(I32, "0x10") == 16 and isinstance(coerce_scalar(I32, 3), np.int32)
    assert coerce_scalar(F32, "2.5") == np.float32(2.5)
    assert bool(coerce_scalar(BOOL, "true")) is True
    with pytest.raises(InputGenerationError, match="does not fit in uint8"):
        coerce_scalar(U8, 300, "u")
    with pytest.raises(InputGenerationError, match="not a valid int32"):
        coerce_scalar(I32, "2.5", "n")


def test_deterministic_for_a_seed():
    kb = KB()
    kb.arr("x")
    kb.arr("i", I32)
    k = kb.finish()
    a = make_inputs(k, 64, 32, np.random.default_rng(7))
    b = make_inputs(k, 64, 32, np.random.default_rng(7))
    assert all(np.array_equal(a[n], b[n]) for n in a)


def _contract_kernel():
    kb = KB()
    src, idx, perm = kb.arr("src"), kb.arr("idx", I32), kb.arr("perm", I32)
    kb.scalar("n")
    kb.in_range(idx, Const(0, I32), kb.shape(src))
    kb.distinct(perm)
    return kb.finish()


K_CONTRACT = _contract_kernel()


@settings(max_examples=15, deadline=None)
@given(inputs_strategy(K_CONTRACT, 16, 16, sizes={"src": 5}))
def test_hypothesis_strategy_respects_contracts(vals):
    assert vals["src"].shape == (5,) and vals["idx"].shape == (16,)
    assert vals["idx"].min() >= 0 and vals["idx"].max() < 5
    assert len(set(vals["perm"].tolist())) == 16
    assert np.all(np.isfinite(vals["src"]))
    runtime.prepare_launch(K_CONTRACT, 16, ordered_inputs(K_CONTRACT, vals), 16)


def test_uniform_table_covers_every_instruction_class():
    from verikern.inputs import UNIFORM_TABLE
    from verikern.mir.nodes import INSTRUCTION_CLASSES, Phi

    assert {c.OPCODE for c in INSTRUCTION_CLASSES} | {Phi.OPCODE} == set(UNIFORM_TABLE)


def test_contract_bounds_with_arithmetic_and_casts():
    from verikern.mir import I64
    from verikern.mir.nodes import Cast

    kb = KB()
    src, idx = kb.arr("src"), kb.arr("idx", I64)
    n = kb.scalar("n")
    # hi = int64((shape * 2) >> 1) - n ; lo = n // -3  (floor: -1 for n=1... n=64: -22)
    hi32 = kb.binop("sub", kb.binop("shr", kb.binop("mul", kb.shape(src), Const(2, I32)),
                                    Const(1, I32)), n)
    hi = kb.b.new_value(I64)
    kb.b.emit(Cast(hi, hi32, L))
    lo32 = kb.binop("floordiv", n, Const(-3, I32))
    lo = kb.b.new_value(I64)
    kb.b.emit(Cast(lo, lo32, L))
    kb.in_range(idx, lo, hi)
    kb.require("eq", n, Const(5, I32))
    vals = make_inputs(kb.finish(), 64, 32, rng(), sizes={"src": 9}, params={"n": 5})
    # lo = 5 // -3 = -2 (floor), hi = 9 - 5 = 4
    assert set(vals["idx"].tolist()) <= set(range(-2, 4)) and vals["idx"].min() < 0


def test_non_uniform_bound_is_a_clear_error():
    kb = KB()
    idx = kb.arr("idx", I32)
    kb.in_range(idx, Const(0, I32), kb.special("thread_idx"))
    with pytest.raises(InputGenerationError, match="cannot evaluate this array-contract bound"):
        make_inputs(kb.finish(), 32, 32, rng())


# ------------------------------------------- uniform arithmetic vs docs/MIR.md
from hypothesis import strategies as st  # noqa: E402

from verikern.mir import U32  # noqa: E402


def _reference(op, a, b, t):
    """docs/MIR.md integer semantics, written directly in Python."""
    bits = t.bits
    def trunc(x, y):
        q = abs(x) // abs(y)
        return q if (x >= 0) == (y >= 0) else -q
    r = {"add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b,
         "div": lambda: trunc(a, b), "floordiv": lambda: a // b,
         "mod": lambda: a - trunc(a, b) * b, "min": lambda: min(a, b), "max": lambda: max(a, b),
         "and": lambda: a & b, "or": lambda: a | b, "xor": lambda: a ^ b,
         "shl": lambda: a << (b & (bits - 1)),
         "shr": lambda: (a if t.is_signed else a & ((1 << bits) - 1)) >> (b & (bits - 1))}[op]()
    return t.wrap(r)


OPS = ["add", "sub", "mul", "div", "floordiv", "mod", "min", "max", "and", "or", "xor", "shl", "shr"]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(OPS), st.sampled_from([I32, U32]), st.integers(-2**31, 2**32 - 1),
       st.integers(-2**31, 2**32 - 1))
@example("floordiv", I32, -2**31, -1)
@example("div", I32, -2**31, -1)
@example("mod", I32, -2**31, -1)
@example("floordiv", I32, -7, 2)
@example("mod", I32, -7, 2)
@example("div", I32, 7, -2)
@example("shr", I32, -8, 33)
@example("shr", U32, 2**31, 1)
@example("shl", I32, 1, 31)
@example("min", U32, 2**32 - 1, 1)
def test_uniform_arithmetic_matches_mir_semantics(op, t, a, b):
    from verikern.inputs import InputGenerationError, _UniformEvaluator

    a, b = t.wrap(a), t.wrap(b)
    kb = KB()
    kb.arr("x")
    pa, pb = kb.scalar("a", t), kb.scalar("b", t)
    r = kb.binop(op, pa, pb, t)
    k = kb.finish()
    ev = _UniformEvaluator(k, (4,), 4, {"x": (4,)}, {"a": a, "b": b})
    if op in ("div", "floordiv", "mod") and (b == 0 or (t is I32 and (a, b) == (-2**31, -1))):
        # a zero divisor, or INT_MIN / -1 on int32: the division faults
        with pytest.raises(InputGenerationError, match="divides by zero .or INT_MIN by -1."):
            ev.eval(r)
    else:
        assert ev.eval(r) == _reference(op, a, b, t)


@pytest.mark.parametrize("src, dst, value, expected", [
    ("int32", "uint8", 300, 44), ("int32", "uint8", -1, 255), ("uint32", "int64", 2**32 - 1, 2**32 - 1),
    ("int8", "int32", -5, -5), ("uint8", "int32", 200, 200), ("int64", "int32", 2**32 + 7, 7),
    ("uint32", "int32", 2**31, -2**31), ("bool", "int32", True, 1), ("int32", "bool", 7, 1),
])
def test_uniform_casts_match_mir_semantics(src, dst, value, expected):
    from verikern.inputs import _UniformEvaluator
    from verikern.mir import SCALAR_TYPES
    from verikern.mir.nodes import Cast

    s, d = SCALAR_TYPES[src], SCALAR_TYPES[dst]
    kb = KB()
    kb.arr("x")
    p = kb.scalar("p", s)
    r = kb.b.new_value(d)
    kb.b.emit(Cast(r, p, L))
    ev = _UniformEvaluator(kb.finish(), (4,), 4, {"x": (4,)}, {"p": s.wrap(int(value))})
    assert ev.eval(r) == expected
