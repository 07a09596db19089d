"""Exact bit-vector semantics of MIR integer operations in z3.

Invariant: every function here returns a z3 term whose value, for every
assignment of its inputs, equals the value docs/MIR.md prescribes for the same
machine operation (two's-complement wrap-around, C remainder, floor division,
shift amounts modulo the width): the reference semantics of verikern.mir.ops.
The tables INT_BINARY, BOOL_BINARY, COMPARE, INT_UNARY and BOOL_UNARY cover
exactly the int and bool entries of the op table (tests/mir/test_op_table.py);
a division by zero or INT_MIN / -1 yields z3's value (the div-zero
obligation, `division_defined`, excludes both where they fault).
Integers are `BitVec(type.bits)`, bools are z3
`Bool`; floats never reach this module (the encoder abstracts them).
"""
from __future__ import annotations

import z3
import numpy as np

from verikern.mir.ops import division_can_overflow
from verikern.mir.types import ScalarType

# Width used to compare indices and shapes of any integer type as mathematical
# integers (64-bit values extended by their own signedness fit with room to spare).
WIDE = 66


class UnsupportedConstruct(Exception):
    """A MIR construct the SMT encoding cannot express; obligations that need
    it end UNKNOWN with this message as the reason."""


def sort_of(t: ScalarType) -> z3.SortRef:
    if t.is_bool:
        return z3.BoolSort()
    return z3.BitVecSort(t.bits)


def const_term(value, t: ScalarType) -> z3.ExprRef:
    """The z3 term of a MIR literal (floats: their IEEE bit pattern)."""
    if t.is_bool:
        return z3.BoolVal(bool(value))
    if t.is_int:
        return z3.BitVecVal(int(value) & ((1 << t.bits) - 1), t.bits)
    return z3.BitVecVal(float_bits(float(value), t.bits), t.bits)


def float_bits(x: float, bits: int) -> int:
    dt = {16: np.float16, 32: np.float32, 64: np.float64}[bits]
    it = {16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]
    return int(np.array([x], dtype=dt).view(it)[0])


def bits_to_float(v: int, bits: int) -> float:
    dt = {16: np.float16, 32: np.float32, 64: np.float64}[bits]
    it = {16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]
    return float(np.array([v], dtype=it).view(dt)[0])


def widen(term: z3.BitVecRef, t: ScalarType, width: int = WIDE) -> z3.BitVecRef:
    """The mathematical value of `term` (read by t's signedness) as a `width`-bit
    signed bit-vector."""
    if t.is_bool:
        return z3.If(term, z3.BitVecVal(1, width), z3.BitVecVal(0, width))
    extra = width - t.bits
    return z3.SignExt(extra, term) if t.is_signed else z3.ZeroExt(extra, term)


def lt(a, b, t: ScalarType):
    return a < b if t.is_signed else z3.ULT(a, b)


def le(a, b, t: ScalarType):
    return a <= b if t.is_signed else z3.ULE(a, b)


def division_defined(a, b, t: ScalarType) -> z3.BoolRef:
    """The integer division a / b (or //, %) on type t does not fault: b is
    nonzero and, on int32/int64, a and b are not INT_MIN and -1."""
    ok = b != 0
    if division_can_overflow(t):
        ok = z3.And(ok, z3.Not(z3.And(a == t.min_value, b == -1)))
    return ok


def _floordiv(a, b, t: ScalarType):
    if not t.is_signed:
        return z3.UDiv(a, b)
    q = a / b
    r = z3.SRem(a, b)
    zero = z3.BitVecVal(0, t.bits)
    adjust = z3.And(r != zero, (a < zero) != (b < zero))
    return z3.If(adjust, q - 1, q)


def _shift(op: str):
    def run(a, b, t: ScalarType):
        amount = b & z3.BitVecVal(t.bits - 1, t.bits)
        if op == "shl":
            return a << amount
        return a >> amount if t.is_signed else z3.LShR(a, amount)
    return run


# op -> term of an integer BinOp (the "int" entries of verikern.mir.ops.BINARY)
INT_BINARY = {
    "add": lambda a, b, t: a + b,
    "sub": lambda a, b, t: a - b,
    "mul": lambda a, b, t: a * b,
    "div": lambda a, b, t: a / b if t.is_signed else z3.UDiv(a, b),
    "floordiv": _floordiv,
    "mod": lambda a, b, t: z3.SRem(a, b) if t.is_signed else z3.URem(a, b),
    "min": lambda a, b, t: z3.If(lt(a, b, t), a, b),
    "max": lambda a, b, t: z3.If(lt(b, a, t), a, b),
    "and": lambda a, b, t: a & b,
    "or": lambda a, b, t: a | b,
    "xor": lambda a, b, t: a ^ b,
    "shl": _shift("shl"),
    "shr": _shift("shr"),
}
# op -> term of a bool BinOp (the "bool" entries of verikern.mir.ops.BINARY)
BOOL_BINARY = {
    "and": lambda a, b, t: z3.And(a, b),
    "or": lambda a, b, t: z3.Or(a, b),
    "xor": lambda a, b, t: z3.Xor(a, b),
}


def int_binop(op: str, a, b, t: ScalarType):
    """Result of an integer (or bool, for and/or/xor) BinOp; raises
    UnsupportedConstruct for an op/type pair MIR does not define."""
    fn = (BOOL_BINARY if t.is_bool else INT_BINARY).get(op)
    if fn is None:
        raise UnsupportedConstruct(f"binary {op!r} on {t}")
    return fn(a, b, t)


def _bool_as_bv(x):
    return z3.If(x, z3.BitVecVal(1, 1), z3.BitVecVal(0, 1))


def _ordered(signed_fn, unsigned_fn):
    def run(a, b, t: ScalarType):
        if t.is_bool:                     # false < true
            return unsigned_fn(_bool_as_bv(a), _bool_as_bv(b))
        return (signed_fn if t.is_signed else unsigned_fn)(a, b)
    return run


# op -> term of a Compare on int or bool operands (every entry of COMPARE)
COMPARE = {
    "eq": lambda a, b, t: a == b,
    "ne": lambda a, b, t: a != b,
    "lt": _ordered(lambda a, b: a < b, z3.ULT),
    "le": _ordered(lambda a, b: a <= b, z3.ULE),
    "gt": _ordered(lambda a, b: a > b, z3.UGT),
    "ge": _ordered(lambda a, b: a >= b, z3.UGE),
}


def int_compare(op: str, a, b, t: ScalarType):
    fn = COMPARE.get(op)
    if fn is None:
        raise UnsupportedConstruct(f"comparison {op!r}")
    return fn(a, b, t)


# op -> term of an integer UnaryOp / a bool UnaryOp
INT_UNARY = {
    "neg": lambda a, t: -a,
    "invert": lambda a, t: ~a,
    "abs": lambda a, t: z3.If(a < 0, -a, a) if t.is_signed else a,
}
BOOL_UNARY = {
    "not": lambda a, t: z3.Not(a),
}


def int_unop(op: str, a, t: ScalarType):
    fn = (BOOL_UNARY if t.is_bool else INT_UNARY if t.is_int else {}).get(op)
    if fn is None:
        raise UnsupportedConstruct(f"unary {op!r} on {t}")
    return fn(a, t)


def int_cast(a, src: ScalarType, dst: ScalarType):
    """Exact int/bool -> int/bool conversion (MIR Cast rules)."""
    if src == dst:
        return a
    if src.is_bool:
        return z3.If(a, z3.BitVecVal(1, dst.bits), z3.BitVecVal(0, dst.bits)) \
            if dst.is_int else a
    if dst.is_bool:
        return a != z3.BitVecVal(0, src.bits)
    if dst.bits == src.bits:
        return a
    if dst.bits < src.bits:
        return z3.Extract(dst.bits - 1, 0, a)
    extra = dst.bits - src.bits
    return z3.SignExt(extra, a) if src.is_signed else z3.ZeroExt(extra, a)


def model_int(model: z3.ModelRef, term, t: ScalarType) -> int | bool | float:
    """The Python value of `term` in `model`, read by t's signedness."""
    v = model.eval(term, model_completion=True)
    if t.is_bool:
        return z3.is_true(v)
    raw = v.as_long()
    if t.is_float:
        return bits_to_float(raw, t.bits)
    return t.wrap(raw)
