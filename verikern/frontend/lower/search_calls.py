"""The lowering of `wp.lower_bound` (builtins/search.py) as the loop Warp
1.19 runs (`warp/native/array.h`):

    lower = arr_begin; upper = arr_end - 1
    while lower < upper:
        mid = lower + (upper - lower) / 2        # C division of int32
        if arr[mid] < value: lower = mid + 1
        else: upper = mid
    return lower

so the result is `arr_begin` for an empty range and at most `arr_end - 1`
(never `arr_end`, unlike C++'s std::lower_bound), the array is read only at
`mid`, each read a `bounds` obligation, and every backend runs the same loop.

The loop carries an invariant hint, proved like a `vk.invariant` (an
`invariant` obligation; never trusted): `arr_begin < 0 or arr_begin > last
or arr_begin <= lower <= upper <= last`, `last` being `arr_end - 1` as
computed. It holds: on entry `lower, upper = arr_begin, last`; under
`0 <= lower < upper` nothing wraps, `mid` is in `[lower, upper)`, and both
updates keep the order. With it the prover bounds every read and the result.

Invariant: the loop's locals (`$lower_bound.*`) exist only while the call is
lowered: its arguments are evaluated first, in order, and the names are gone
from the environment afterwards, so nothing around the call (an enclosing
loop's phis) sees them.
"""
from __future__ import annotations

from verikern.hir import nodes as H
from verikern.hir.types import BOOL, I32

_LOWER, _UPPER, _MID, _VALUE, _BEGIN, _LAST = (
    f"$lower_bound.{n}" for n in ("lower", "upper", "mid", "value", "begin", "last"))
_NAMES = (_LOWER, _UPPER, _MID, _VALUE, _BEGIN, _LAST)


def lower_lower_bound(lw, e: H.BuiltinCall, hint):
    """`lw`: the Lowerer. The call's result operand (int32)."""
    arr, begin, end, value = e.args
    assert isinstance(arr, H.ArrayRefExpr)          # builtins/search.py
    loc = e.loc
    start, stop, wanted = (lw.lower_expr(x) for x in (begin, end, value))
    if lw.cur is None:
        return (lw.const(0, I32),)
    last = (lw.binop("sub", stop[0], lw.const(1, I32), loc),)
    lw.env.update({_LOWER: start, _BEGIN: start, _UPPER: last, _LAST: last, _VALUE: wanted})

    def local(name, t=I32):
        return H.LocalRef(name, t, loc)

    def binary(op, a, b):
        return H.BinaryExpr(op, a, b, I32, loc)

    def compare(op, a, b):
        return H.CompareExpr(op, local(a), local(b), BOOL, loc)

    def either(op, *parts):
        out = parts[0]
        for p in parts[1:]:
            out = H.BoolOpExpr(op, out, p, BOOL, loc)
        return out

    hint = either("or", H.CompareExpr("lt", local(_BEGIN), H.Literal(0, I32, loc), BOOL, loc),
                  compare("gt", _BEGIN, _LAST),
                  either("and", compare("le", _BEGIN, _LOWER), compare("le", _LOWER, _UPPER),
                         compare("le", _UPPER, _LAST)))
    half = binary("div", binary("sub", local(_UPPER), local(_LOWER)), H.Literal(2, I32, loc))
    element = H.IndexExpr(arr, (local(_MID),), arr.type.dtype, loc)
    body = (H.AssertStmt(hint, "invariant of wp.lower_bound's search: arr_begin <= lower <= upper "
                         "<= arr_end - 1", "invariant", loc),
            H.Assign(_MID, binary("add", local(_LOWER), half), loc),
            H.If(H.CompareExpr("lt", element, local(_VALUE, value.type), BOOL, loc),
                 (H.Assign(_LOWER, binary("add", local(_MID), H.Literal(1, I32, loc)), loc),),
                 (H.Assign(_UPPER, local(_MID), loc),), loc))
    lw._while(H.While(H.CompareExpr("lt", local(_LOWER), local(_UPPER), BOOL, loc), body, loc))
    result = lw.env[_LOWER]
    for name in _NAMES:
        lw.env.pop(name, None)
    return result
