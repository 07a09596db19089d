"""Elementwise semantics of MIR's pure ops, as numpy functions over lanes.

Invariant: every function takes operands that are numpy arrays or numpy
scalars of the MIR operand type (one lane per element) and returns a value of
exactly the result type, computed with the semantics of docs/MIR.md: integer
wrap-around at the type's width, `floordiv` rounding toward -inf, `mod` and
`div` as in C, shift amounts modulo the width, float ops in the value's
precision (transcendentals as the float64 function rounded once, that
function being the C library's own, called through `libm.py` exactly as
cpu:native calls it, never numpy's SIMD loops, whose last bit depends on the
machine).  Callers
run these under `np.errstate(all="ignore")`; division by zero is checked by
the caller before the op runs (these functions never see a zero divisor).
Array results are always freshly allocated (never an operand's buffer).
"""
from __future__ import annotations

import numpy as np

from verikern.mir.types import ScalarType

from . import libm

_UNSIGNED_OF = {np.dtype(np.int8): np.uint8, np.dtype(np.int16): np.uint16,
                np.dtype(np.int32): np.uint32, np.dtype(np.int64): np.uint64}


def _fresh(x):
    """A value that no other SSA value holds (arrays are copied)."""
    return x.copy() if isinstance(x, np.ndarray) else x


# ------------------------------------------------------------------ binary ops
def _int_div_trunc(a, b, t: ScalarType):
    if not t.is_signed:
        return np.floor_divide(a, b)
    r = np.fmod(a, b)
    return np.floor_divide(np.subtract(a, r), b)


def _shift_amount(b, t: ScalarType):
    return np.bitwise_and(b, t.np_dtype.type(t.bits - 1))


def _shl(a, b, t: ScalarType):
    amount = _shift_amount(b, t)
    if t.is_signed:
        u = _UNSIGNED_OF[t.np_dtype]
        return np.left_shift(np.asarray(a).astype(u), np.asarray(amount).astype(u)).astype(t.np_dtype)[()]
    return np.left_shift(a, amount)


def _shr(a, b, t: ScalarType):
    return np.right_shift(a, _shift_amount(b, t))


def _round_once(r, t: ScalarType):
    """A float64 result rounded once to the float type `t`."""
    if t.bits == 64:
        return r
    dtype = t.np_dtype
    return r.astype(dtype) if isinstance(r, np.ndarray) else dtype.type(r)


def _libm_float(name: str):
    """`(a, t)` or `(a, b, t)` -> the C library's float64 `name`
    (libm.FUNCTIONS) of the operands widened to float64, rounded once to the
    operands' type `t` (exact for float64)."""
    if libm.FUNCTIONS[name] == 1:
        def unary(a, t: ScalarType):
            return _round_once(libm.apply(name, a), t)
        return unary

    def binary(a, b, t: ScalarType):
        return _round_once(libm.apply(name, a, b), t)
    return binary


# name -> (function(a, b, t) for ints, function(a, b, t) for floats, bool function);
# an entry is set exactly where verikern.mir.ops.BINARY allows the op on that
# type class (tests/mir/test_op_table.py)
BINARY_SEMANTICS = {
    "add": (lambda a, b, t: np.add(a, b), lambda a, b, t: np.add(a, b), None),
    "sub": (lambda a, b, t: np.subtract(a, b), lambda a, b, t: np.subtract(a, b), None),
    "mul": (lambda a, b, t: np.multiply(a, b), lambda a, b, t: np.multiply(a, b), None),
    "div": (_int_div_trunc, lambda a, b, t: np.divide(a, b), None),
    "floordiv": (lambda a, b, t: np.floor_divide(a, b),
                 lambda a, b, t: np.floor(np.divide(a, b)), None),
    "mod": (lambda a, b, t: np.fmod(a, b), lambda a, b, t: np.fmod(a, b), None),
    "min": (lambda a, b, t: np.minimum(a, b), lambda a, b, t: np.fmin(a, b), None),
    "max": (lambda a, b, t: np.maximum(a, b), lambda a, b, t: np.fmax(a, b), None),
    "and": (lambda a, b, t: np.bitwise_and(a, b), None, lambda a, b, t: np.logical_and(a, b)),
    "or": (lambda a, b, t: np.bitwise_or(a, b), None, lambda a, b, t: np.logical_or(a, b)),
    "xor": (lambda a, b, t: np.bitwise_xor(a, b), None, lambda a, b, t: np.logical_xor(a, b)),
    "shl": (_shl, None, None),
    "shr": (_shr, None, None),
    "pow": (None, _libm_float("pow"), None),
    "atan2": (None, _libm_float("atan2"), None),
}

# ops that are exactly one numpy ufunc (so they can write into a given buffer)
_INT_UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
               "floordiv": np.floor_divide, "mod": np.fmod, "min": np.minimum,
               "max": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or,
               "xor": np.bitwise_xor}
_FLOAT_UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
                 "mod": np.fmod, "min": np.fmin, "max": np.fmax}
_BOOL_UFUNCS = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}


def binary_ufunc(op: str, t: ScalarType):
    """The single ufunc equal to binary_function(op, t), or None."""
    table = _BOOL_UFUNCS if t.is_bool else _INT_UFUNCS if t.is_int else _FLOAT_UFUNCS
    return table.get(op)


def _semantics_for(table: dict, kind: str, op: str, t: ScalarType):
    """The (int, float, bool) entry of `table` for `op`, picked by `t`'s kind;
    raises NotImplementedError for an op/type pair MIR does not define."""
    try:
        int_fn, float_fn, bool_fn = table[op]
    except KeyError:
        raise NotImplementedError(f"simulator: no semantics for {kind} op {op!r}") from None
    fn = bool_fn if t.is_bool else int_fn if t.is_int else float_fn
    if fn is None:
        raise NotImplementedError(f"simulator: {kind} op {op!r} is not defined on {t.name}")
    return fn


def _of_type(dtype):
    """`r` as a value of numpy `dtype` (arrays converted only when they differ)."""
    def cast(r):
        if isinstance(r, np.ndarray):
            return r if r.dtype == dtype else r.astype(dtype)
        return dtype.type(r)
    return cast


def binary_function(op: str, t: ScalarType):
    """The numpy function computing `op` on operands of type `t`; raises
    NotImplementedError for an op/type pair MIR does not define."""
    fn = _semantics_for(BINARY_SEMANTICS, "binary", op, t)
    cast = _of_type(t.np_dtype)

    def run(a, b):
        return cast(fn(a, b, t))
    return run


# ------------------------------------------------------------------- compares
COMPARE_SEMANTICS = {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less,
    "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
}


def compare_function(op: str, t: ScalarType):
    try:
        fn = COMPARE_SEMANTICS[op]
    except KeyError:
        raise NotImplementedError(f"simulator: no semantics for compare op {op!r}") from None
    return fn


# ------------------------------------------------------------------ unary ops
def _float_only(fn):
    return (None, fn, None)


UNARY_SEMANTICS = {
    "neg": (lambda a, t: np.negative(a), lambda a, t: np.negative(a), None),
    "not": (None, None, lambda a, t: np.logical_not(a)),
    "invert": (lambda a, t: np.invert(a), None, None),
    "abs": (lambda a, t: np.abs(a), lambda a, t: np.abs(a), None),
    "sqrt": _float_only(lambda a, t: np.sqrt(a)),
    "sqrt_precise": _float_only(lambda a, t: np.sqrt(a)),
    "sin": _float_only(_libm_float("sin")),
    "cos": _float_only(_libm_float("cos")),
    "tan": _float_only(_libm_float("tan")),
    "exp": _float_only(_libm_float("exp")),
    "log": _float_only(_libm_float("log")),
    "erf": _float_only(_libm_float("erf")),
    "erfc": _float_only(_libm_float("erfc")),
    "floor": _float_only(lambda a, t: np.floor(a)),
    "ceil": _float_only(lambda a, t: np.ceil(a)),
}


def unary_function(op: str, t: ScalarType):
    """The numpy function computing unary `op` on a value of type `t`."""
    fn = _semantics_for(UNARY_SEMANTICS, "unary", op, t)
    cast = _of_type(t.np_dtype)

    def run(a):
        return cast(fn(a, t))
    return run


# ---------------------------------------------------------------------- casts
def _saturating_float_to_int(dst: ScalarType):
    """float->int per docs/MIR.md: truncate toward zero, saturate at the
    target's range, NaN gives 0 (LLVM's fptosi/fptoui.sat, PTX's cvt.rzi)."""
    dtype = dst.np_dtype
    info = np.iinfo(dtype)
    # the bounds as doubles: 2**bits-ish powers of two are exact; a truncated
    # value at or above `top` (or below `bottom`) is out of range
    top = float(2 ** (dst.bits - 1) if dst.is_signed else 2 ** dst.bits)
    bottom = float(info.min)

    def run(a):
        t = np.trunc(np.asarray(a, dtype=np.float64))
        nan, high, low = np.isnan(t), t >= top, t < bottom
        inside = ~(nan | high | low)
        out = np.where(inside, t, 0.0).astype(dtype)
        out[high] = info.max
        out[low] = info.min
        return out if isinstance(a, np.ndarray) else out[()]
    return run


def cast_function(src: ScalarType, dst: ScalarType):
    """Conversion per docs/MIR.md: int->int truncates/extends by the source's
    signedness, number->bool is `!= 0`, float->int truncates toward zero and
    saturates (NaN gives 0)."""
    dtype = dst.np_dtype
    if dst.is_bool:
        def nonzero(a):
            return np.not_equal(a, src.np_dtype.type(0))
        return nonzero
    if src == dst:
        return _fresh
    if src.is_float and dst.is_int:
        return _saturating_float_to_int(dst)

    def run(a):
        if isinstance(a, np.ndarray):
            return a.astype(dtype)
        return np.asarray(a).astype(dtype)[()]
    return run


def select_values(cond, if_true, if_false, dtype: np.dtype):
    """`if_true` where cond else `if_false`, as a fresh value of `dtype`."""
    if not isinstance(cond, np.ndarray):
        return _fresh(if_true if cond else if_false)
    r = np.where(cond, if_true, if_false)
    return r if r.dtype == dtype else r.astype(dtype)
