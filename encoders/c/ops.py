"""MIR scalar operations as C11 expressions with MIR's exact semantics.

Every builder takes C expressions for the operands (already of the operand
type's C type) and returns a C expression of the result type.  Invariants:
- no expression has undefined behaviour for any operand values: integer
  arithmetic is done on an unsigned type at least as wide as `unsigned int`
  (so integer promotion never yields a signed overflow) and brought back to a
  signed type with the `vk_sN` helpers of the prelude (bit-exact, no
  implementation-defined conversion); divisions go through helpers that are
  total (INT_MIN / -1 wraps, a zero divisor yields 0 -- the division's
  `div-zero` obligation, `division_defined`, is checked before it, so the
  harness itself never traps where the kernel would);
- shifts take the amount modulo the width; `shr` is arithmetic on signed
  types (computed as `~(~a >> s)` for negative a, never shifting a negative);
- floats are C float/double in the value's precision; `pow atan2 sin cos tan exp
  log erf erfc` are the C library's double functions of the widened operands, rounded
  once (docs/MIR.md);
- float16 is C's `_Float16` (ISO/IEC TS 18661-3; gcc >= 12 on x86-64 and
  aarch64, clang >= 15, CBMC 6): every other op is computed in float on the
  widened operands and rounded once to float16 (`_half`), as docs/MIR.md and
  the LLVM backends compute it. For `+ - * /` and `sqrt` that is the
  correctly rounded float16 result (float's 24 bits are at least 2 * 11 + 2,
  so rounding twice is innocuous); `floor ceil fmod fmin fmax abs neg` are
  exact in any precision; `floordiv` rounds the quotient to float16 before
  `floor`, as the simulator's float16 `np.floor(np.divide(a, b))` does.

The tables (`INT_BINARY`, `BOOL_BINARY`, `FLOAT_BINARY`, `INT_UNARY`,
`BOOL_UNARY`, `FLOAT_UNARY`, `COMPARE`) are keyed by MIR op name and cover
exactly the op table `verikern.mir.ops` (tests/mir/test_op_table.py).
"""
from __future__ import annotations

import math

from verikern.mir.ops import division_can_overflow
from verikern.mir.types import F32, ScalarType


class CEncodeError(Exception):
    """The kernel uses something the C encoder does not translate; the message
    starts with file:line:col of the construct."""


def c_string(text: str) -> str:
    """A C string literal of `text` (ASCII; everything else escaped)."""
    out = []
    for ch in text:
        o = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= o < 127 and ch != "?":
            out.append(ch)
        else:
            for byte in ch.encode("utf-8"):
                out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def ctype(t: ScalarType) -> str:
    if t.is_bool:
        return "bool"
    if t.is_int:
        return f"{'int' if t.is_signed else 'uint'}{t.bits}_t"
    if t.bits == 32:
        return "float"
    if t.bits == 64:
        return "double"
    if t.bits == 16:
        return "_Float16"
    raise CEncodeError(f"{t.name} has no C type in the C encoder")


def nondet(t: ScalarType) -> str:
    """The name of the CBMC harness's `nondet_*()` function yielding a t
    (declared in the prelude, never defined: CBMC picks its value)."""
    if t.is_bool:
        return "nondet_bool"
    if t.is_float:
        return {16: "nondet_float16", 32: "nondet_float", 64: "nondet_double"}[t.bits]
    return "nondet_" + t.name


def utype(t: ScalarType) -> str:
    """The unsigned type integer arithmetic on t is done in (never promoted)."""
    return "uint64_t" if t.bits > 32 else "uint32_t"


def wrap(t: ScalarType, uexpr: str) -> str:
    """An expression of utype(t) reduced to t (two's complement, no UB)."""
    if t.is_signed:
        return f"vk_s{t.bits}({uexpr})"
    return f"(({ctype(t)})({uexpr}))"


def _u(t: ScalarType, a: str) -> str:
    return f"(({utype(t)})({a}))"


def _half(build):
    """A float builder for float16: the float32 builder on the operands
    widened to float (exact), its result rounded once to float16."""
    def half(*args):
        *operands, t = args
        if t.bits != 16:
            return build(*args)
        return f"((_Float16)({build(*(f'((float)({a}))' for a in operands), F32)}))"
    return half


def _fsuffix(t: ScalarType) -> str:
    return "f" if t.bits == 32 else ""


#: The C library functions whose CBMC 6 models crash its SMT back end (an
#: invariant violation in smt2_conv's flatten2bv under the FP theory, which
#: verikern's z3 runs use): under CBMC their result is an unknown value of
#: the type (`VK_UNMODELLED`: every behaviour of the real function is among
#: them, so a proof stands and a failure goes through replay); replay calls them.
UNMODELLED = frozenset({"sqrt", "sqrtf", "log", "exp", "pow", "fmod", "fmodf"})


def _call(t: ScalarType, fn: str, expr: str) -> str:
    """`expr`, a call of C library function `fn` yielding a t."""
    return f"VK_UNMODELLED({nondet(t)}, {expr})" if fn in UNMODELLED else expr


def _libm(t: ScalarType, fn: str, *args: str) -> str:
    """A C library double function of the widened operands, rounded once to t."""
    call = f"{fn}(" + ", ".join(f"(double)({a})" for a in args) + ")"
    return _call(t, fn, f"(({ctype(t)}){call})")


# ------------------------------------------------------------------ binary
def _iarith(sym):
    return lambda a, b, t: wrap(t, f"{_u(t, a)} {sym} {_u(t, b)}")


def _helper(name):
    return lambda a, b, t: f"vk_{name}_{'i' if t.is_signed else 'u'}{t.bits}({a}, {b})"


def _shl(a, b, t):
    return wrap(t, f"{_u(t, a)} << ({_u(t, b)} & {t.bits - 1}u)")


def _shr(a, b, t):
    if t.is_signed:
        return f"vk_shr_i{t.bits}({a}, (unsigned)({_u(t, b)} & {t.bits - 1}u))"
    return f"(({ctype(t)})({a} >> ({_u(t, b)} & {t.bits - 1}u)))"


def division_defined(a: str, b: str, t: ScalarType) -> str:
    """The C condition of an integer division's `div-zero` obligation: the
    divisor is nonzero and, on int32/int64, the operands are not INT_MIN and -1."""
    cond = f"({b}) != 0"
    if division_can_overflow(t):
        cond += f" && {no_division_overflow(a, b, t)}"
    return cond


def no_division_overflow(a: str, b: str, t: ScalarType) -> str:
    """The C condition that a division on int32/int64 `t` is not INT_MIN by -1."""
    return f"!(({a}) == INT{t.bits}_MIN && ({b}) == -1)"


INT_BINARY = {
    "add": _iarith("+"), "sub": _iarith("-"), "mul": _iarith("*"),
    "div": _helper("div"), "floordiv": _helper("floordiv"), "mod": _helper("mod"),
    "min": lambda a, b, t: _minmax("min", "<")(a, b, t),
    "max": lambda a, b, t: _minmax("max", ">")(a, b, t),
    "and": _iarith("&"), "or": _iarith("|"), "xor": _iarith("^"),
    "shl": _shl, "shr": _shr,
}

BOOL_BINARY = {
    "and": lambda a, b, t: f"(({a}) && ({b}))",
    "or": lambda a, b, t: f"(({a}) || ({b}))",
    "xor": lambda a, b, t: f"(({a}) != ({b}))",
}


def _farith(sym):
    return lambda a, b, t: f"(({ctype(t)})(({a}) {sym} ({b})))"


def _floordiv(a, b, t):
    if t.bits == 16:       # the quotient rounded to float16 first, then floor (exact)
        return f"((_Float16)floorf((float)(_Float16)((float)({a}) / (float)({b}))))"
    return f"floor{_fsuffix(t)}(({ctype(t)})(({a}) / ({b})))"


FLOAT_BINARY = {
    "add": _half(_farith("+")), "sub": _half(_farith("-")), "mul": _half(_farith("*")),
    "div": _half(_farith("/")),
    "floordiv": _floordiv,
    "mod": _half(lambda a, b, t: _call(t, f"fmod{_fsuffix(t)}", f"fmod{_fsuffix(t)}({a}, {b})")),
    "min": _half(lambda a, b, t: f"fmin{_fsuffix(t)}({a}, {b})"),
    "max": _half(lambda a, b, t: f"fmax{_fsuffix(t)}({a}, {b})"),
    "pow": lambda a, b, t: _libm(t, "pow", a, b),
    "atan2": lambda a, b, t: _libm(t, "atan2", a, b),
}

# ------------------------------------------------------------------ compare
_CMP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def _cmp(op, sym):
    # unsigned and bool comparisons go through the prelude's vk_cmp_* helpers,
    # so a comparison with a literal 0 draws no -Wtype-limits warning
    def build(a, b, t):
        if t.is_bool or (t.is_int and not t.is_signed):
            return f"vk_{op}_{'b' if t.is_bool else f'u{t.bits}'}({a}, {b})"
        return f"(({a}) {sym} ({b}))"
    return build


COMPARE = {op: _cmp(op, sym) for op, sym in _CMP.items()}


def _minmax(op, sym):
    def build(a, b, t):
        if not t.is_signed:
            return f"vk_{op}_u{t.bits}({a}, {b})"
        return f"(({a}) {sym} ({b}) ? ({a}) : ({b}))"
    return build

# ------------------------------------------------------------------ unary
INT_UNARY = {
    "neg": lambda a, t: wrap(t, f"({utype(t)})0u - {_u(t, a)}"),
    "invert": lambda a, t: wrap(t, f"~{_u(t, a)}"),
    "abs": lambda a, t: (f"(({a}) < 0 ? {wrap(t, f'({utype(t)})0u - {_u(t, a)}')} : ({a}))"
                         if t.is_signed else f"({a})"),
}

BOOL_UNARY = {"not": lambda a, t: f"(!({a}))"}


def _fcall(fn):
    return _half(lambda a, t: _call(t, fn + _fsuffix(t), f"{fn}{_fsuffix(t)}({a})"))


def _flibm(fn):
    return lambda a, t: _libm(t, fn, a)


FLOAT_UNARY = {
    "neg": _half(lambda a, t: f"(-({a}))"),
    "abs": _fcall("fabs"),
    "sqrt": _fcall("sqrt"), "sqrt_precise": _fcall("sqrt"),
    "sin": _flibm("sin"), "cos": _flibm("cos"), "tan": _flibm("tan"),
    "exp": _flibm("exp"), "log": _flibm("log"), "erf": _flibm("erf"), "erfc": _flibm("erfc"),
    "floor": _fcall("floor"), "ceil": _fcall("ceil"),
}


def binary(op: str, a: str, b: str, t: ScalarType) -> str:
    table = BOOL_BINARY if t.is_bool else INT_BINARY if t.is_int else FLOAT_BINARY
    if op not in table:
        raise CEncodeError(f"binary op {op!r} is not defined on {t.name}")
    return table[op](a, b, t)


def unary(op: str, a: str, t: ScalarType) -> str:
    table = BOOL_UNARY if t.is_bool else INT_UNARY if t.is_int else FLOAT_UNARY
    if op not in table:
        raise CEncodeError(f"unary op {op!r} is not defined on {t.name}")
    return table[op](a, t)


def compare(op: str, a: str, b: str, t: ScalarType) -> str:
    if op not in COMPARE:
        raise CEncodeError(f"comparison {op!r} is unknown")
    return COMPARE[op](a, b, t)


# ------------------------------------------------------------------ casts
def cast(a: str, src: ScalarType, dst: ScalarType) -> str:
    """MIR Cast: int->int by the source's signedness, bool<->number, int->float
    rounded, float->int truncated and saturated (NaN gives 0), float->float
    rounded."""
    if src == dst:
        return f"({a})"
    if src.is_bool:
        return f"(({ctype(dst)})(({a}) ? 1 : 0))"
    if dst.is_bool:
        return f"(({a}) != 0)"
    if src.is_int and dst.is_int:
        if dst.is_signed:
            return wrap(dst, f"(({utype(dst)})({a}))")
        return f"(({ctype(dst)})({a}))"
    if dst.is_float:
        return f"(({ctype(dst)})({a}))"
    return f"vk_f2{'i' if dst.is_signed else 'u'}{dst.bits}((double)({a}))"


# ------------------------------------------------------------------ constants
def const(value, t: ScalarType) -> str:
    """A C literal of exactly `value` in type t (floats as hex literals)."""
    if t.is_bool:
        return "1" if value else "0"
    if t.is_int:
        v = t.wrap(int(value))
        if t.is_signed:
            lit = f"(-{-(v + 1)}LL - 1)" if v < 0 else f"{v}LL"
        else:
            lit = f"{v}ULL"
        return f"(({ctype(t)}){lit})"
    x = float(value)
    if math.isnan(x):
        return f"(({ctype(t)})NAN)"
    if x in (float("inf"), float("-inf")):
        return f"(({ctype(t)})({'-' if x < 0 else ''}INFINITY))"
    return f"(({ctype(t)}){x.hex()})"
