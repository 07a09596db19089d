"""The SMT semantics of MIR integer ops agree with an independent Python
reference (docs/MIR.md), and every MIR class has an SMT encoder entry."""
from __future__ import annotations

import z3
from hypothesis import given, settings, strategies as st

from verikern.encoders.smt.encoder import (
    INSTRUCTION_ENCODERS, PHI_ENCODING, TERMINATOR_ENCODERS,
)
from verikern.encoders.smt.semantics import int_binop, int_cast, int_compare, int_unop
from verikern.mir.nodes import INSTRUCTION_CLASSES, TERMINATOR_CLASSES, Phi
from verikern.mir.types import I8, I32, I64, U8, U32, BOOL
from verikern.proofs.deciding.prover import DECIDERS
from verikern.proofs.obligations import ObligationKind
from verikern.proofs.analysis.uniformity import UNIFORMITY_RULES


def test_every_mir_class_has_an_encoder():
    for cls in INSTRUCTION_CLASSES:
        assert cls in INSTRUCTION_ENCODERS, cls
        assert cls in UNIFORMITY_RULES, cls
    for cls in TERMINATOR_CLASSES:
        assert cls in TERMINATOR_ENCODERS, cls
    assert Phi in PHI_ENCODING and Phi in UNIFORMITY_RULES
    assert set(DECIDERS) == set(ObligationKind)


def _trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def reference(op, a, b, t):
    """Python model of docs/MIR.md integer semantics."""
    w = t.wrap
    if op == "add":
        return w(a + b)
    if op == "sub":
        return w(a - b)
    if op == "mul":
        return w(a * b)
    if op == "div":
        return w(_trunc_div(a, b))
    if op == "floordiv":
        return w(a // b)
    if op == "mod":
        return w(a - _trunc_div(a, b) * b)
    if op == "min":
        return min(a, b)
    if op == "max":
        return max(a, b)
    if op == "and":
        return w(a & b)
    if op == "or":
        return w(a | b)
    if op == "xor":
        return w(a ^ b)
    if op == "shl":
        return w(a << (b & (t.bits - 1)))
    if op == "shr":
        s = b & (t.bits - 1)
        return w(a >> s) if t.is_signed else w((a & ((1 << t.bits) - 1)) >> s)
    raise AssertionError(op)


def _eval(term, t):
    v = z3.simplify(term)
    if t.is_bool:
        return z3.is_true(v)
    return t.wrap(v.as_long())


OPS = ["add", "sub", "mul", "div", "floordiv", "mod", "min", "max", "and", "or", "xor",
       "shl", "shr"]


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(OPS), st.sampled_from([I8, U8, I32, U32]), st.integers(), st.integers())
def test_binops_match_reference(op, t, a, b):
    a, b = t.wrap(a), t.wrap(b)
    if op in ("div", "floordiv", "mod") and b == 0:
        return
    za = z3.BitVecVal(a & ((1 << t.bits) - 1), t.bits)
    zb = z3.BitVecVal(b & ((1 << t.bits) - 1), t.bits)
    assert _eval(int_binop(op, za, zb, t), t) == reference(op, a, b, t)


def test_int_min_division_wraps():
    m = z3.BitVecVal(0x80, 8)
    neg1 = z3.BitVecVal(0xFF, 8)
    assert _eval(int_binop("floordiv", m, neg1, I8), I8) == -128
    assert _eval(int_binop("div", m, neg1, I8), I8) == -128
    assert _eval(int_binop("mod", m, neg1, I8), I8) == 0
    assert _eval(int_unop("abs", m, I8), I8) == -128
    assert _eval(int_binop("floordiv", z3.BitVecVal(-7 & 0xFF, 8), z3.BitVecVal(2, 8), I8), I8) == -4
    assert _eval(int_binop("mod", z3.BitVecVal(-7 & 0xFF, 8), z3.BitVecVal(2, 8), I8), I8) == -1


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["eq", "ne", "lt", "le", "gt", "ge"]), st.sampled_from([I8, U8]),
       st.integers(), st.integers())
def test_compares_use_signedness(op, t, a, b):
    a, b = t.wrap(a), t.wrap(b)
    za = z3.BitVecVal(a & 0xFF, 8)
    zb = z3.BitVecVal(b & 0xFF, 8)
    expect = {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b,
              "ge": a >= b}[op]
    assert _eval(int_compare(op, za, zb, t), BOOL) == expect


@settings(max_examples=80, deadline=None)
@given(st.sampled_from([I8, U8, I32, U32, I64]), st.sampled_from([I8, U8, I32, U32, I64, BOOL]),
       st.integers())
def test_casts_match_reference(src, dst, a):
    a = src.wrap(a)
    za = z3.BitVecVal(a & ((1 << src.bits) - 1), src.bits)
    expect = (a != 0) if dst.is_bool else dst.wrap(a)
    assert _eval(int_cast(za, src, dst), dst) == expect
