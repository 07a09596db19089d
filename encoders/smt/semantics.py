"""Exact bit-vector semantics of MIR integer operations in z3.

Invariant: every function here returns a z3 term whose value, for every
assignment of its inputs, equals the value docs/MIR.md prescribes for the same
machine operation (two's-complement wrap-around, C remainder, floor division,
shift amounts modulo the width). Integers are `BitVec(type.bits)`, bools are z3
`Bool`; floats never reach this module (the encoder abstracts them).
"""
from __future__ import annotations

import z3

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
    import numpy as np
    dt = {16: np.float16, 32: np.float32, 64: np.float64}[bits]
    it = {16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]
    return int(np.array([x], dtype=dt).view(it)[0])


def bits_to_float(v: int, bits: int) -> float:
    import numpy as np
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


def int_binop(op: str, a, b, t: ScalarType):
    """Result of an integer (or bool, for and/or/xor) BinOp."""
    if t.is_bool:
        if op == "and":
            return z3.And(a, b)
        if op == "or":
            return z3.Or(a, b)
        if op == "xor":
            return z3.Xor(a, b)
        if op == "min":
            return z3.And(a, b)
        if op == "max":
            return z3.Or(a, b)
        raise UnsupportedConstruct(f"binary {op} on bool")
    signed = t.is_signed
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    if op == "mul":
        return a * b
    if op == "div":
        return a / b if signed else z3.UDiv(a, b)
    if op == "mod":
        return z3.SRem(a, b) if signed else z3.URem(a, b)
    if op == "floordiv":
        if not signed:
            return z3.UDiv(a, b)
        q = a / b
        r = z3.SRem(a, b)
        zero = z3.BitVecVal(0, t.bits)
        adjust = z3.And(r != zero, (a < zero) != (b < zero))
        return z3.If(adjust, q - 1, q)
    if op == "min":
        return z3.If(lt(a, b, t), a, b)
    if op == "max":
        return z3.If(lt(b, a, t), a, b)
    if op == "and":
        return a & b
    if op == "or":
        return a | b
    if op == "xor":
        return a ^ b
    if op in ("shl", "shr"):
        amount = b & z3.BitVecVal(t.bits - 1, t.bits)
        if op == "shl":
            return a << amount
        return a >> amount if signed else z3.LShR(a, amount)
    raise UnsupportedConstruct(f"integer binary op {op!r}")


def int_compare(op: str, a, b, t: ScalarType):
    if op == "eq":
        return a == b
    if op == "ne":
        return a != b
    if t.is_bool:
        a = z3.If(a, z3.BitVecVal(1, 1), z3.BitVecVal(0, 1))
        b = z3.If(b, z3.BitVecVal(1, 1), z3.BitVecVal(0, 1))
        signed = False
    else:
        signed = t.is_signed
    if op == "lt":
        return a < b if signed else z3.ULT(a, b)
    if op == "le":
        return a <= b if signed else z3.ULE(a, b)
    if op == "gt":
        return a > b if signed else z3.UGT(a, b)
    if op == "ge":
        return a >= b if signed else z3.UGE(a, b)
    raise UnsupportedConstruct(f"comparison {op!r}")


def int_unop(op: str, a, t: ScalarType):
    if op == "not" and t.is_bool:
        return z3.Not(a)
    if op == "neg" and t.is_int:
        return -a
    if op == "invert" and t.is_int:
        return ~a
    if op == "abs" and t.is_int:
        if not t.is_signed:
            return a
        return z3.If(a < 0, -a, a)
    raise UnsupportedConstruct(f"unary {op!r} on {t}")


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


def model_int(model: z3.ModelRef, term, t: ScalarType) -> int | bool:
    """The Python value of `term` in `model`, read by t's signedness."""
    v = model.eval(term, model_completion=True)
    if t.is_bool:
        return z3.is_true(v)
    raw = v.as_long()
    if t.is_float:
        return bits_to_float(raw, t.bits)
    return t.wrap(raw)
