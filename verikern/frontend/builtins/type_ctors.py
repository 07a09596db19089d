"""Warp's generic type constructors called as values in kernel code:
`wp.types.vector(*values, length=N, dtype=T)`, `wp.types.matrix(*values,
shape=(R, C), dtype=T)` and `wp.types.quaternion(*values, dtype=T)`.

Invariant: the call is resolved, from compile-time constants only, to one
concrete vector/matrix/quat type and then checked exactly as the named
constructor of that type (`wp.vec2h(...)`, `wp.mat22(...)`): no values give
zeros, one scalar fills every component, one value of the type itself is a
copy, otherwise the values are the components.  Without `dtype` the
components' type is that of the values (a float literal: float32, an int
literal: int32; no values: float32), as in Warp 1.19.  Anything else (a
length that is not a constant, a shape that does not match the values) is a
`type-constructor` error naming the argument.
"""
from __future__ import annotations

import ast

from verikern.hir.types import (
    BOOL, F32, I32, MatrixType, ScalarType, VectorType, matrix_type, quat_type, vector_type,
)
from ..scan.constants import NotConstant
from .rules import dtype_operand, type_construct
from verikern.hir import nodes as H

TYPE_CONSTRUCTORS = {"types.vector": "vector", "vector": "vector",
                     "types.matrix": "matrix", "matrix": "matrix",
                     "types.quaternion": "quat", "quaternion": "quat"}
_KEYWORDS = {"vector": ("length", "dtype"), "matrix": ("shape", "dtype"), "quat": ("dtype",)}


def _error(chk, node, message, hint=None):
    return chk.error(message, node, "type-constructor", hint)


def _constant_int(chk, node, what: str) -> int:
    try:
        v = chk.const_eval(node)
    except NotConstant:
        v = None
    if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= 64:
        raise _error(chk, node, f"{what} must be a constant integer from 1 to 64",
                     "write a literal or a module-level constant")
    return v


def _component_type(chk, node: ast.Call, kw: dict) -> ScalarType:
    if "dtype" in kw:
        t = dtype_operand(chk, kw["dtype"])
        if not isinstance(t, ScalarType) or t == BOOL:
            raise _error(chk, kw["dtype"], f"dtype `{ast.unparse(kw['dtype'])}` is not a "
                         "numeric scalar type")
        return t
    if not node.args:
        return F32
    first = node.args[0]
    if chk.is_literal_tree(first):
        is_float = any(isinstance(n, ast.Constant) and isinstance(n.value, float)
                       for a in node.args for n in ast.walk(a))
        return F32 if is_float else I32
    t = chk.check_expr(first).type
    if isinstance(t, (VectorType, MatrixType)):
        return t.dtype
    if isinstance(t, ScalarType) and t != BOOL:
        return t
    raise _error(chk, first, f"cannot build a vector or matrix from {t}")


def check_type_constructor(chk, node: ast.Call, name: str):
    """The HIR expression of a `wp.types.vector/matrix/quaternion(...)` call."""
    kind = TYPE_CONSTRUCTORS[name]
    kw = {}
    for k in node.keywords:
        if k.arg not in _KEYWORDS[kind]:
            raise chk.error(f"wp.{name}() has no parameter {k.arg!r} (Warp names them "
                            f"{', '.join(_KEYWORDS[kind])})", k.value or node, "keyword-args")
        kw[k.arg] = k.value
    ct = _component_type(chk, node, kw)
    args = list(node.args)
    if kind == "quat":
        if not ct.is_float:
            raise _error(chk, node, f"a quaternion holds floats, not {ct}")
        return type_construct(chk, node, quat_type(ct), args)
    if kind == "vector":
        if "length" in kw:
            n = _constant_int(chk, kw["length"], "length")
        elif len(args) == 1 and not chk.is_literal_tree(args[0]) and \
                isinstance(chk.check_expr(args[0]).type, VectorType):
            n = chk.check_expr(args[0]).type.length
        elif len(args) >= 2:
            n = len(args)
        else:
            raise _error(chk, node, f"wp.{name}() needs length= or at least two values")
        return type_construct(chk, node, vector_type(n, ct), args)
    shape = kw.get("shape")
    if not isinstance(shape, ast.Tuple) or len(shape.elts) != 2:
        raise _error(chk, shape if shape is not None else node,
                     f"wp.{name}() needs shape=(rows, cols) with constant sizes")
    rows, cols = (_constant_int(chk, e, "a matrix dimension") for e in shape.elts)
    if not ct.is_float:
        raise _error(chk, node, f"a matrix holds floats, not {ct}")
    return type_construct(chk, node, matrix_type(rows, cols, ct), args)


def check_matrix_from_vectors(chk, node, name, args, expected, loc):
    """`wp.matrix_from_rows(*rows)` / `wp.matrix_from_cols(*cols)`: float
    vectors of one type, one per row (column) of the matrix."""

    if not args or len(args) > 16:
        raise chk.error(f"wp.{name}() takes 1 to 16 vectors", node, "arity")
    vecs = [chk.check_expr(a) for a in args]
    t = vecs[0].type
    for v, a in zip(vecs, args):
        if not isinstance(v.type, VectorType) or v.type != t or not t.dtype.is_float \
                or v.type.length > 16:
            raise chk.error(f"wp.{name}() needs float vectors of one type, got {v.type}", a,
                            "type-mismatch")
    if name == "matrix_from_rows":
        return H.BuiltinCall(name, tuple(vecs), matrix_type(len(vecs), t.length, t.dtype), loc)
    return H.BuiltinCall(name, tuple(vecs), matrix_type(t.length, len(vecs), t.dtype), loc)


def typed_ctor_args(chk, node: ast.Call, t) -> list:
    """The values of `wp.vec3i(0, 0, 0, dtype=wp.int32)`: a concrete vector or
    matrix type called with `dtype=` its own component type (Warp 1.19 builds
    it; any other dtype is Warp's "Remove the extraneous `dtype` parameter"
    error, and so is any other keyword here)."""
    for k in node.keywords:
        given = dtype_operand(chk, k.value) if k.arg == "dtype" else None
        if given != t.dtype:
            what = f"dtype={ast.unparse(k.value)}" if k.arg == "dtype" else f"{k.arg}="
            raise chk.error(f"{t} holds {t.dtype}: Warp refuses {what} in its constructor", k.value,
                            "type-constructor", f"drop {what} (or write dtype={t.dtype})")
    return list(node.args)
