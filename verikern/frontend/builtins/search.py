"""The typing of Warp 1.19's `wp.lower_bound(arr, value)` and
`wp.lower_bound(arr, arr_begin, arr_end, value)` (`warp/_src/builtins.py`):
`arr` a one-dimensional array of scalars, `value` of its element type,
`arr_begin`/`arr_end` int32; the result is an int32. The two-argument form
searches `[0, arr.shape[0])`, so both become one call of four arguments
(lowered in lower/search_calls.py as Warp's loop, exactly)."""
from __future__ import annotations

from verikern.hir import nodes as H
from verikern.hir.types import I32, ArrayType, ScalarType


def type_lower_bound(chk, node, name, args, expected, loc):
    if len(args) not in (2, 4):
        raise chk.error(f"wp.{name}() takes (arr, value) or (arr, arr_begin, arr_end, value), "
                        f"got {len(args)} argument(s)", node, "arity")
    arr = chk.check_expr(args[0])
    if not isinstance(arr, H.ArrayRefExpr) or not isinstance(arr.type, ArrayType) \
            or arr.type.ndim != 1 or not isinstance(arr.type.dtype, ScalarType) \
            or arr.name in getattr(chk, "views", {}):
        raise chk.error(f"wp.{name}() searches a one-dimensional array of scalars, got "
                        f"{arr.type}", args[0], "type-mismatch",
                        "pass a 1-d array parameter (Warp's lower_bound takes array(dtype=Scalar))")
    dtype = arr.type.dtype
    value = chk.check_expr(args[-1], dtype)
    if value.type != dtype:
        raise chk.error(f"wp.{name}() looks for a {dtype} in {arr.name}, got a {value.type}",
                        args[-1], "type-mismatch", f"convert it: {dtype.name}(...)")
    if len(args) == 2:
        begin: H.Expr = H.Literal(0, I32, loc)
        end: H.Expr = H.ShapeExpr(arr, 0, I32, loc)
    else:
        begin, end = (chk.check_int(a, I32, what=f"a range bound of wp.{name}()") for a in args[1:3])
        for e, a in ((begin, args[1]), (end, args[2])):
            if e.type != I32:
                raise chk.error(f"wp.{name}()'s range bounds are int32, got {e.type}", a,
                                "type-mismatch", "convert with int(...)")
    return H.BuiltinCall(name, (arr, begin, end, value), I32, loc)
