"""Lowering of MIR value operations (BinOp, Compare, UnaryOp, Cast, Select),
shared by every LLVM target.

Invariant: each function here produces exactly the value docs/MIR.md defines,
bit for bit as the simulator computes it, and never LLVM undefined behaviour
or poison: integer division is guarded (zero divisor -> error check,
INT_MIN / -1 -> error check on int32/int64, wraps on int8/int16), shift
amounts are masked to the width, float->int casts saturate, float16 is
computed in float32 and rounded once (exact for + - * / sqrt), and
float16/float32 transcendentals are the float64 libm function rounded once.
Fast-math flags appear only on float ops and only when the kernel's
fast_math is on.  The tables INT_BINARY, BOOL_BINARY,
FLOAT_BINARY, INT_UNARY, BOOL_UNARY, FLOAT_UNARY and the comparison tables
cover exactly the op/type pairs of verikern.mir.ops (tests/mir/test_op_table.py).
"""
from __future__ import annotations

from typing import NoReturn

from llvmlite import ir

from verikern.errors import VerikernError
from verikern.mir.nodes import BinOp, Cast, Compare, Select, UnaryOp
from verikern.mir.ops import division_can_overflow
from verikern.mir.types import ScalarType

from .abi import DIVISION_OVERFLOW_NOTE, DOUBLE, ERR_DIV_ZERO, FLOAT, HALF, I1, I32, value_type


class LoweringError(VerikernError):
    """A MIR construct this lowering cannot translate (message names where)."""


def _suffix(t: ir.Type) -> str:
    if isinstance(t, ir.IntType):
        return f"i{t.width}"
    return {HALF: "f16", FLOAT: "f32", DOUBLE: "f64"}[t]


def _unsupported(ins, what: str) -> NoReturn:
    raise LoweringError(f"{ins.loc}: cannot lower {what} "
                        f"({type(ins).__name__}); this is a compiler bug or an "
                        f"unsupported construct")


# ------------------------------------------------------------------ floats
def widen(em, x: ir.Value) -> ir.Value:
    """float16 -> float32 (exact); other floats unchanged."""
    return em.b.fpext(x, FLOAT) if x.type == HALF else x


def narrow(em, x: ir.Value, t: ScalarType) -> ir.Value:
    """Round a float32 or float64 to `t` once (float64 -> float16 through
    float32 with round-to-odd, so the result is correctly rounded)."""
    target = value_type(t)
    if x.type == target:
        return x
    b = em.b
    if x.type == DOUBLE and target == HALF:
        f = b.fptrunc(x, FLOAT)
        back = b.fpext(f, DOUBLE)
        fabs = em.intrinsic("llvm.fabs.f64", DOUBLE, [DOUBLE])
        too_big = b.fcmp_ordered(">", b.call(fabs, [back]), b.call(fabs, [x]))
        bits = b.bitcast(f, I32)
        bits = b.select(too_big, b.sub(bits, ir.Constant(I32, 1)), bits)
        inexact = b.fcmp_ordered("!=", back, x)
        bits = b.select(inexact, b.or_(bits, ir.Constant(I32, 1)), bits)
        return b.fptrunc(b.bitcast(bits, FLOAT), HALF)
    return b.fptrunc(x, target)


def _float_arith(em, op: str, a: ir.Value, c: ir.Value) -> ir.Value:
    b, fm = em.b, em.fast
    if op == "add":
        return b.fadd(a, c, flags=fm)
    if op == "sub":
        return b.fsub(a, c, flags=fm)
    if op == "mul":
        return b.fmul(a, c, flags=fm)
    if op == "div":
        return b.fdiv(a, c, flags=fm)
    if op == "mod":
        return b.frem(a, c, flags=fm)
    if op in ("min", "max"):
        name = {"min": "minnum", "max": "maxnum"}[op]
        fn = em.intrinsic(f"llvm.{name}.{_suffix(a.type)}", a.type, [a.type, a.type])
        return b.call(fn, [a, c], fastmath=fm)
    raise KeyError(op)


def _float_libm2(em, ins, a, c):
    """pow / atan2: the float64 library function of the widened operands,
    rounded once to the result type (docs/MIR.md)."""
    r = em.b.call(em.libm(ins.op, 2), [_to_double(em, a), _to_double(em, c)])
    return narrow(em, r, ins.result.type)


def _float_floordiv(em, ins, a, c):
    t = ins.result.type
    q = narrow(em, _float_arith(em, "div", widen(em, a), widen(em, c)), t)
    return float_unary(em, "floor", q, t)


def _float_basic(em, ins, a, c):
    return narrow(em, _float_arith(em, ins.op, widen(em, a), widen(em, c)), ins.result.type)


# op name -> lowering of a float BinOp (operands already lowered)
FLOAT_BINARY = {
    "add": _float_basic, "sub": _float_basic, "mul": _float_basic, "div": _float_basic,
    "mod": _float_basic, "min": _float_basic, "max": _float_basic,
    "floordiv": _float_floordiv, "pow": _float_libm2, "atan2": _float_libm2,
}


def float_binop(em, ins: BinOp, a: ir.Value, c: ir.Value) -> ir.Value:
    fn = FLOAT_BINARY.get(ins.op)
    if fn is None:
        _unsupported(ins, f"float binop {ins.op!r}")
    return fn(em, ins, a, c)


def _to_double(em, x: ir.Value) -> ir.Value:
    return x if x.type == DOUBLE else em.b.fpext(x, DOUBLE)


def _libm_unary(name: str):
    def run(em, x, t):
        return narrow(em, em.b.call(em.libm(name, 1), [_to_double(em, x)]), t)
    return run


def _rounding_intrinsic(op: str):
    """sqrt, sqrt_precise, floor, ceil: the LLVM intrinsic in the widened
    type, rounded once (exact for these); only `sqrt` takes fast-math flags."""
    def run(em, x, t):
        w = widen(em, x)
        name = "sqrt" if op.startswith("sqrt") else op
        fn = em.intrinsic(f"llvm.{name}.{_suffix(w.type)}", w.type, [w.type])
        flags = em.fast if op == "sqrt" else ()
        return narrow(em, em.b.call(fn, [w], fastmath=flags), t)
    return run


def _float_abs(em, x, t):
    fn = em.intrinsic(f"llvm.fabs.{_suffix(x.type)}", x.type, [x.type])
    return em.b.call(fn, [x])


# op name -> lowering of a float UnaryOp: (em, operand, type) -> value
FLOAT_UNARY = {
    "neg": lambda em, x, t: em.b.fneg(x, flags=em.fast),
    "abs": _float_abs,
    **{name: _libm_unary(name) for name in ("sin", "cos", "tan", "exp", "log", "erf", "erfc")},
    **{name: _rounding_intrinsic(name) for name in ("sqrt", "sqrt_precise", "floor", "ceil")},
}


def float_unary(em, op: str, x: ir.Value, t: ScalarType) -> ir.Value:
    fn = FLOAT_UNARY.get(op)
    if fn is None:
        raise LoweringError(f"unary {op!r} is not defined on {t}")
    return fn(em, x, t)


# -------------------------------------------------------------------- ints
def _int_division(em, ins: BinOp, a: ir.Value, c: ir.Value, signed: bool) -> ir.Value:
    b = em.b
    ty = a.type
    zero = ir.Constant(ty, 0)
    em.check(b.icmp_unsigned("!=", c, zero), ERR_DIV_ZERO, ins.loc,
             "integer division or modulo by zero")
    if not signed:
        if ins.op in ("div", "floordiv"):
            return b.udiv(a, c)
        return b.urem(a, c)
    int_min = ir.Constant(ty, -(1 << (ty.width - 1)))
    minus_one = ir.Constant(ty, -1)
    overflow = b.and_(b.icmp_signed("==", a, int_min), b.icmp_signed("==", c, minus_one))
    if division_can_overflow(ins.result.type):
        # int32/int64: a fault like a zero divisor (Warp's CPU run dies of SIGFPE)
        em.check(b.not_(overflow), ERR_DIV_ZERO, ins.loc,
                 f"integer division or modulo overflow ({ins.result.type.name} INT_MIN / -1)",
                 note=DIVISION_OVERFLOW_NOTE)
    # still guarded where the check passed: LLVM's sdiv/srem of INT_MIN by -1
    # is undefined behaviour; int8/int16 wrap (INT_MIN / 1 == INT_MIN)
    safe = b.select(overflow, ir.Constant(ty, 1), c)
    if ins.op == "mod":
        return b.srem(a, safe)
    q = b.sdiv(a, safe)
    if ins.op == "div":
        return q
    r = b.srem(a, safe)
    adjust = b.and_(b.icmp_signed("!=", r, zero),
                    b.icmp_signed("<", b.xor(r, safe), zero))
    return b.sub(q, b.zext(adjust, ty))


def _int_minmax(em, ins, a, c):
    name = ("s" if ins.result.type.is_signed else "u") + ins.op
    fn = em.intrinsic(f"llvm.{name}.{_suffix(a.type)}", a.type, [a.type, a.type])
    return em.b.call(fn, [a, c])


def _shift(em, ins, a, c):
    t = ins.result.type
    amount = em.b.and_(c, ir.Constant(a.type, t.bits - 1))   # amount mod width
    if ins.op == "shl":
        return em.b.shl(a, amount)
    return em.b.ashr(a, amount) if t.is_signed else em.b.lshr(a, amount)


def _nowrap(em, ins):
    return ["nuw", "nsw"] if ins.result.id in em.nowrap else []


# op name -> lowering of an integer BinOp (operands already lowered)
INT_BINARY = {
    "add": lambda em, ins, a, c: em.b.add(a, c, flags=_nowrap(em, ins)),
    "sub": lambda em, ins, a, c: em.b.sub(a, c),
    "mul": lambda em, ins, a, c: em.b.mul(a, c, flags=_nowrap(em, ins)),
    "div": lambda em, ins, a, c: _int_division(em, ins, a, c, ins.result.type.is_signed),
    "floordiv": lambda em, ins, a, c: _int_division(em, ins, a, c,
                                                    ins.result.type.is_signed),
    "mod": lambda em, ins, a, c: _int_division(em, ins, a, c, ins.result.type.is_signed),
    "min": _int_minmax,
    "max": _int_minmax,
    "and": lambda em, ins, a, c: em.b.and_(a, c),
    "or": lambda em, ins, a, c: em.b.or_(a, c),
    "xor": lambda em, ins, a, c: em.b.xor(a, c),
    "shl": _shift,
    "shr": _shift,
}
BOOL_BINARY = {
    "and": lambda em, ins, a, c: em.b.and_(a, c),
    "or": lambda em, ins, a, c: em.b.or_(a, c),
    "xor": lambda em, ins, a, c: em.b.xor(a, c),
}


def int_binop(em, ins: BinOp, a: ir.Value, c: ir.Value) -> ir.Value:
    fn = INT_BINARY.get(ins.op)
    if fn is None:
        _unsupported(ins, f"integer binop {ins.op!r}")
    return fn(em, ins, a, c)


def bool_binop(em, ins: BinOp, a: ir.Value, c: ir.Value) -> ir.Value:
    fn = BOOL_BINARY.get(ins.op)
    if fn is None:
        _unsupported(ins, f"bool binop {ins.op!r}")
    return fn(em, ins, a, c)


# ------------------------------------------------------------ MIR classes
def lower_binop(em, ins: BinOp) -> None:
    a, c = em.operand(ins.lhs), em.operand(ins.rhs)
    t = ins.result.type
    if t.is_float:
        r = float_binop(em, ins, a, c)
    elif t.is_int:
        r = int_binop(em, ins, a, c)
    else:
        r = bool_binop(em, ins, a, c)
    em.define(ins.result, r)


# op name -> (fcmp predicate, ordered) for floats / icmp predicate for ints and bools
FLOAT_COMPARE = {"eq": ("==", True), "ne": ("!=", False), "lt": ("<", True),
                 "le": ("<=", True), "gt": (">", True), "ge": (">=", True)}
INT_COMPARE = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def lower_compare(em, ins: Compare) -> None:
    a, c = em.operand(ins.lhs), em.operand(ins.rhs)
    t = ins.lhs.type
    b = em.b
    if ins.op not in (FLOAT_COMPARE if t.is_float else INT_COMPARE):
        _unsupported(ins, f"comparison {ins.op!r}")
    if t.is_float:
        sym, ordered = FLOAT_COMPARE[ins.op]
        r = (b.fcmp_ordered if ordered else b.fcmp_unordered)(sym, a, c, flags=em.fast)
    elif t.is_signed:
        r = b.icmp_signed(INT_COMPARE[ins.op], a, c)
    else:
        r = b.icmp_unsigned(INT_COMPARE[ins.op], a, c)
    em.define(ins.result, r)


def _int_abs(em, x, t):
    if not t.is_signed:
        return x
    fn = em.intrinsic(f"llvm.abs.{_suffix(x.type)}", x.type, [x.type, I1])
    return em.b.call(fn, [x, ir.Constant(I1, 0)])   # abs(INT_MIN) wraps, no poison


# op name -> lowering of an integer / bool UnaryOp: (em, operand, type) -> value
INT_UNARY = {
    "neg": lambda em, x, t: em.b.sub(ir.Constant(x.type, 0), x),
    "invert": lambda em, x, t: em.b.xor(x, ir.Constant(x.type, -1)),
    "abs": _int_abs,
}
BOOL_UNARY = {
    "not": lambda em, x, t: em.b.xor(x, ir.Constant(I1, 1)),
}


def lower_unary(em, ins: UnaryOp) -> None:
    x = em.operand(ins.operand)
    t = ins.result.type
    if t.is_float:
        r = float_unary(em, ins.op, x, t)
    else:
        fn = (INT_UNARY if t.is_int else BOOL_UNARY).get(ins.op)
        if fn is None:
            _unsupported(ins, f"unary {ins.op!r} on {t}")
        r = fn(em, x, t)
    em.define(ins.result, r)


def convert(em, x: ir.Value, src: ScalarType, dst: ScalarType) -> ir.Value:
    """MIR Cast semantics from `src` to `dst` (see docs/MIR.md)."""
    b = em.b
    to = value_type(dst)
    if src == dst:
        return x
    if dst.is_bool:
        if src.is_float:
            return b.fcmp_unordered("!=", x, ir.Constant(x.type, 0.0))
        return b.icmp_unsigned("!=", x, ir.Constant(x.type, 0))
    if src.is_bool:
        if dst.is_int:
            return b.zext(x, to)
        return narrow(em, b.uitofp(x, FLOAT), dst) if dst.bits == 16 else b.uitofp(x, to)
    if src.is_int and dst.is_int:
        if src.bits == dst.bits:
            return x
        if src.bits > dst.bits:
            return b.trunc(x, to)
        return b.sext(x, to) if src.is_signed else b.zext(x, to)
    if src.is_int and dst.is_float:
        conv = b.sitofp if src.is_signed else b.uitofp
        if dst.bits == 16:   # |x| >= 65520 is inf either way; below 2**24 f32 is exact
            return b.fptrunc(conv(x, FLOAT), HALF)
        return conv(x, to)
    if src.is_float and dst.is_int:
        w = widen(em, x)
        kind = "fptosi" if dst.is_signed else "fptoui"
        fn = em.intrinsic(f"llvm.{kind}.sat.{_suffix(to)}.{_suffix(w.type)}", to, [w.type])
        return b.call(fn, [w])
    if src.bits < dst.bits:
        return b.fpext(x, to)
    return narrow(em, x, dst)


def lower_cast(em, ins: Cast) -> None:
    x = em.operand(ins.operand)
    em.define(ins.result, convert(em, x, ins.operand.type, ins.result.type))


def lower_select(em, ins: Select) -> None:
    c = em.operand(ins.cond)
    em.define(ins.result, em.b.select(c, em.operand(ins.if_true), em.operand(ins.if_false)))
