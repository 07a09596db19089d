"""The typing rule of each builtin that has one (docs/LANGUAGE.md sections
2-5), and of casts and vector/matrix constructors: `type_<rule>(chk, node,
name, args, expected, loc) -> HIR` with the arguments in Warp's parameter
order. table.py says which builtin each rule types.

Invariant: a rule either returns HIR of the builtin's documented result type
(a BuiltinCall named after the builtin, or the HIR it folds to) or raises the
first violated rule as a located KernelError.
"""
from __future__ import annotations

import ast

from verikern.hir import nodes as H
from verikern.hir.types import (
    BOOL, F32, I32, ArrayType, MatrixType,
    ScalarType, VectorType, component_count, is_plain_vector, is_transform, quat_type,
    vector_type,
)
from ..scan.annotations import value_type
from ..scan.constants import NotConstant
from .operators import make_literal, check_binary_types


def dtype_operand(chk, node: ast.AST):
    """The type a `dtype=` argument names: a type written in the source, or
    Warp's `x.dtype` of a variable or array (an array's element type, a vector's
    or matrix's component type, a scalar's own type); None for anything else."""
    t = value_type(chk.info, node)
    if t is None and isinstance(node, ast.Attribute) and node.attr == "dtype" \
            and isinstance(node.value, ast.Name):
        name = node.value.id
        of = chk.arrays.get(name) if name in chk.arrays else \
            chk.var_types.get(name) if name in chk.local_names else None
        t = of.dtype if isinstance(of, (ArrayType, VectorType, MatrixType)) else of
    return t


def _arity(chk, node, name, args, n_min, n_max=None):
    n_max = n_min if n_max is None else n_max
    if not n_min <= len(args) <= n_max:
        want = str(n_min) if n_min == n_max else f"{n_min} to {n_max}"
        raise chk.error(f"vk.{name}() takes {want} argument(s), got {len(args)}", node,
                        "arity")


def type_cast(chk, node, t, args) -> H.Expr:
    _arity(chk, node, t.name, args, 1)
    try:
        v = chk.literal_value(args[0])
    except NotConstant:
        v = None
    if v is not None:
        if t.is_float:
            return make_literal(chk, float(v), t, node)
        if t == BOOL:
            return H.Literal(bool(v), BOOL, chk.loc(node))
        if isinstance(v, float):
            v = int(v)
        return make_literal(chk, t.wrap(v), t, node)
    e = chk.check_scalar(args[0], what="a conversion's argument")
    if e.type == t:
        return e
    return H.CastExpr(e, t, chk.loc(node))


def type_construct(chk, node, t, args) -> H.Expr:
    n = t.length if isinstance(t, VectorType) else t.rows * t.cols
    ct = t.dtype
    loc = chk.loc(node)
    zero = 0.0 if ct.is_float else 0
    if not args:
        return H.BuiltinCall("construct", tuple(H.Literal(zero, ct, loc) for _ in range(n)), t, loc)
    if len(args) == 1 and n > 1:
        e = chk.check_expr(args[0], ct)
        if e.type == t:
            return e
        if e.type == ct:
            return H.BuiltinCall("construct", (e,) * n, t, loc)
        if type(e.type) is type(t) and component_count(e.type) == n and (
                not isinstance(t, MatrixType) or (e.type.rows, e.type.cols) == (t.rows, t.cols)):
            return H.BuiltinCall("convert", (e,), t, loc)   # Warp: each component cast
    if isinstance(t, MatrixType) and len(args) == t.rows:
        rows = [chk.check_expr(a) for a in args]
        row_t = vector_type(t.cols, ct)
        if all(r.type == row_t for r in rows):
            return H.BuiltinCall("construct_rows", tuple(rows), t, loc)
    halves = _rigid_halves(t)
    if halves is not None and len(args) == 2:   # transform(p, q), spatial_vector(w, v)
        parts = tuple(chk.check_expr(a, h) for a, h in zip(args, halves))
        for p, a, h in zip(parts, args, halves):
            if p.type != h:
                raise chk.error(f"wp.{t.name}() takes a {halves[0]} and a {halves[1]}, got "
                                f"{p.type}", a, "type-mismatch")
        return H.BuiltinCall("construct", parts, t, loc)
    if len(args) != n:
        raise chk.error(f"vk.{t.name}() takes {n} {ct} components, got {len(args)}", node,
                        "arity")
    comps = tuple(chk.check_expr(a, ct) for a in args)
    for c, a in zip(comps, args):
        if c.type != ct:
            raise chk.error(f"vk.{t.name} components are {ct}, got {c.type}", a,
                            "implicit-conversion" if isinstance(c.type, ScalarType)
                            and c.type.is_float != ct.is_float else "type-mismatch",
                            f"convert with {ct}(...)")
    return H.BuiltinCall("construct", comps, t, loc)


def _rigid_halves(t):
    """The two parts a transform (p, q) or a float 6-vector (w, v: Warp's
    spatial_vector(w, v)) is built from, else None."""
    if is_transform(t):
        return vector_type(3, t.dtype), quat_type(t.dtype)
    if is_plain_vector(t) and t.length == 6 and t.dtype.is_float:
        return vector_type(3, t.dtype), vector_type(3, t.dtype)
    return None


# -------------------------------------------------------------- rules
def type_tid(chk, node, name, args, expected, loc):
    _arity(chk, node, name, args, 0)
    chk.note_tid(1, node)
    return H.BuiltinCall("tid", (), I32, loc)


def type_geometry(chk, node, name, args, expected, loc):
    _arity(chk, node, name, args, 0)
    return H.BuiltinCall(name, (), I32, loc)


def type_launch_dim(chk, node, name, args, expected, loc):
    kw = {k.arg: k.value for k in node.keywords}
    if set(kw) - {"k", "dim"}:
        raise chk.error("vk.launch_dim() takes one optional dimension", node, "keyword-args")
    parts = list(args) + list(kw.values())
    _arity(chk, node, name, parts, 0, 1)
    k = chk.constant_index(parts[0], 4, "a launch dimension") if parts else 0
    chk.note_launch_dim(k)
    return H.BuiltinCall("launch_dim", (H.Literal(k, I32, loc),), I32, loc)


def _same_type_args(chk, node, name, args, expected):
    consts = [chk.is_literal_tree(a) for a in args]
    typed = [None] * len(args)
    t = expected if expected is not None and not isinstance(expected, ArrayType) else None
    if t is None and all(consts) and any(
            isinstance(n, ast.Constant) and isinstance(n.value, float)
            for a in args for n in ast.walk(a)):
        t = F32  # only literals, one of them a float: compute in float32
    for i, a in enumerate(args):
        if not consts[i]:
            typed[i] = chk.check_expr(a, t)
            t = typed[i].type
            break
    if not all(consts):
        for a, lit in zip(args, consts):
            if lit:       # Warp's builtins keep a literal's own type too
                chk.refuse_warp_literal(a, t, name)
    for i, a in enumerate(args):
        if typed[i] is None:
            typed[i] = chk.check_expr(a, t)
            t = t or typed[i].type
    for a, e in zip(args, typed):
        if e.type != typed[0].type:
            rule = "implicit-conversion" if (isinstance(e.type, ScalarType) and
                                             isinstance(typed[0].type, ScalarType) and
                                             e.type.is_float != typed[0].type.is_float) else "type-mismatch"
            raise chk.error(f"vk.{name}() arguments mix {typed[0].type} and {e.type}", a, rule,
                            "convert explicitly so all arguments have one type")
        if isinstance(e.type, ArrayType):
            raise chk.error(f"vk.{name}() does not take arrays", a, "type-mismatch")
    return tuple(typed)


def type_minmax(chk, node, name, args, expected, loc):
    _arity(chk, node, name, args, 2)
    a = _same_type_args(chk, node, name, args, expected)
    if a[0].type == BOOL or isinstance(a[0].type, MatrixType) or (
            isinstance(a[0].type, VectorType) and not is_plain_vector(a[0].type)):
        raise chk.error(f"vk.{name}() needs numbers or vectors", node, "type-mismatch")
    return H.BuiltinCall(name, a, a[0].type, loc)


def type_clamp(chk, node, name, args, expected, loc):
    _arity(chk, node, name, args, 3)
    a = _same_type_args(chk, node, name, args, expected)
    if not isinstance(a[0].type, ScalarType) or a[0].type == BOOL:
        raise chk.error("vk.clamp() needs numbers", node, "type-mismatch")
    return H.BuiltinCall("clamp", a, a[0].type, loc)


def type_abs(chk, node, name, args, expected, loc):
    _arity(chk, node, name, args, 1)
    e = chk.check_expr(args[0], expected)
    if e.type == BOOL or isinstance(e.type, (ArrayType, MatrixType)) or (
            isinstance(e.type, VectorType) and not is_plain_vector(e.type)):
        raise chk.error("vk.abs() needs a number or a vector", node, "type-mismatch")
    return H.BuiltinCall("abs", (e,), e.type, loc)


def type_float_unary(chk, node, name, args, expected, loc):
    _arity(chk, node, name, args, 1)
    e = chk.check_expr(args[0], expected if isinstance(expected, ScalarType) and expected.is_float else F32)
    if not (isinstance(e.type, ScalarType) and e.type.is_float):
        raise chk.error(f"vk.{name}() needs a float, got {e.type}", args[0],
                        "implicit-conversion", "convert with float(...)")
    return H.BuiltinCall(name, (e,), e.type, loc)


def type_pow(chk, node, name, args, expected, loc):
    """pow(x, y) and atan2(y, x): two floats of one type (Warp's `Float`)."""
    _arity(chk, node, name, args, 2)
    a = _same_type_args(chk, node, name, args, expected if expected is not None else None)
    if not (isinstance(a[0].type, ScalarType) and a[0].type.is_float):
        rule = "int-pow" if name == "pow" else "implicit-conversion"
        raise chk.error(f"vk.{name}() needs floats, got {a[0].type}", node, rule,
                        "convert with float(...)")
    return H.BuiltinCall(name, a, a[0].type, loc)


def type_len(chk, node, name, args, expected, loc):
    _arity(chk, node, name, args, 1)
    e = chk.check_expr(args[0])
    if isinstance(e.type, (VectorType, MatrixType)):   # Warp: the length, or the rows
        if not isinstance(e, H.LocalRef):
            raise chk.error("len() of a vector or matrix needs a variable", args[0],
                            "type-mismatch", "assign the value to a variable first")
        n = e.type.length if isinstance(e.type, VectorType) else e.type.rows
        return H.Literal(n, I32, loc)
    if not isinstance(e.type, ArrayType):
        raise chk.error("len() needs an array", node, "type-mismatch")
    if e.type.space == "shared":
        return H.Literal(e.type.shape[0], I32, loc)
    return H.ShapeExpr(e, 0, I32, loc)


def _vector_args(chk, node, name, args, n, allowed):
    _arity(chk, node, name, args, n)
    out = tuple(chk.check_expr(a, F32) for a in args)
    for a, e in zip(args, out):
        if not allowed(e.type):
            raise chk.error(f"vk.{name}() does not take {e.type}", a, "type-mismatch")
    return out


def _is_vec(t):
    return is_plain_vector(t)


def type_dot(chk, node, name, args, expected, loc):
    a, b = _vector_args(chk, node, name, args, 2, _is_vec)
    if a.type != b.type:
        raise chk.error(f"vk.dot() of {a.type} and {b.type}", node, "type-mismatch")
    return H.BuiltinCall("dot", (a, b), a.type.dtype, loc)


def type_cw_mul(chk, node, name, args, expected, loc):
    a, b = _vector_args(chk, node, name, args, 2, _is_vec)
    if a.type != b.type:
        raise chk.error(f"vk.{name}() of {a.type} and {b.type}", node, "type-mismatch")
    return H.BuiltinCall(name, (a, b), a.type, loc)


def type_cross(chk, node, name, args, expected, loc):
    a, b = _vector_args(chk, node, name, args, 2,
                        lambda t: _is_vec(t) and t.length == 3 and t.dtype.is_float)
    if a.type != b.type:
        raise chk.error(f"vk.cross() of {a.type} and {b.type}", node, "type-mismatch")
    return H.BuiltinCall("cross", (a, b), a.type, loc)


def type_length(chk, node, name, args, expected, loc):
    (a,) = _vector_args(chk, node, name, args, 1,
                        lambda t: isinstance(t, VectorType) and t.dtype.is_float
                        and not is_transform(t))
    return H.BuiltinCall(name, (a,), a.type.dtype, loc)


def type_normalize(chk, node, name, args, expected, loc):
    (a,) = _vector_args(chk, node, name, args, 1,
                        lambda t: isinstance(t, VectorType) and t.dtype.is_float
                        and not is_transform(t))
    return H.BuiltinCall("normalize", (a,), a.type, loc)


def type_transpose(chk, node, name, args, expected, loc):
    (m,) = _vector_args(chk, node, name, args, 1, lambda t: isinstance(t, MatrixType))
    return H.BuiltinCall("transpose", (m,), m.type, loc)


def type_mul(chk, node, name, args, expected, loc):
    _arity(chk, node, name, args, 2)
    lhs, r = chk.check_pair(args[0], args[1], "mul")
    t = check_binary_types(chk, "mul", lhs, r, node)
    return H.BinaryExpr("mul", lhs, r, t, loc)


def type_where(chk, node, name, args, expected, loc):
    """Warp's where(cond, a, b) (a if cond) and select(cond, b, a) (a if cond):
    ordinary calls, so both value arguments are always evaluated."""
    _arity(chk, node, name, args, 3)
    cond = chk.check_cond(args[0])
    x, y = chk.check_pair(args[1], args[2], "add", expected)
    if x.type != y.type or isinstance(x.type, ArrayType):
        raise chk.error(f"vk.{name}() values have types {x.type} and {y.type}", node,
                        "type-mismatch", "convert one value explicitly")
    return H.BuiltinCall(name, (cond, x, y), x.type, loc)


def type_atomic(op, chk, node, name, args, expected, loc):
    """Atomic `op` (the table binds it: `partial(type_atomic, op)`)."""
    if not args:
        raise chk.error(f"vk.{name}() needs an array, indices and a value", node, "arity")
    arr = chk.check_expr(args[0])
    if not isinstance(arr.type, ArrayType):
        raise chk.error(f"the first argument of vk.{name}() must be an array", args[0],
                        "type-mismatch")
    nvals = 2 if op == "cas" else 1
    want = 1 + arr.type.ndim + nvals
    if len(args) != want:
        raise chk.error(f"vk.{name}() on a {arr.type.ndim}-d array takes {want} arguments, "
                        f"got {len(args)}", node, "arity")
    idx = tuple(chk.check_int(a) for a in args[1:1 + arr.type.ndim])
    vals = tuple(chk.check_expr(a, arr.type.dtype) for a in args[1 + arr.type.ndim:])
    check_atomic_value(chk, op, arr, vals, args[1 + arr.type.ndim:])
    return H.BuiltinCall(name, (arr, *idx, *vals), arr.type.dtype, loc)


def check_atomic_value(chk, op, arr, vals, nodes):
    dt = arr.type.dtype
    for v, n in zip(vals, nodes):
        if v.type != dt:
            raise chk.error(f"atomic value has type {v.type} but {arr.name} holds {dt}", n,
                            "implicit-conversion" if isinstance(v.type, ScalarType) and
                            isinstance(dt, ScalarType) and v.type.is_float != dt.is_float
                            else "type-mismatch", f"convert with {dt}(...)")
    if isinstance(dt, (VectorType, MatrixType)) and op not in ("add", "sub"):
        raise chk.error(f"atomic {op} on {dt} elements is not supported", nodes[0],
                        "atomic-type", "only add and sub work on vector elements")
    if isinstance(dt, ScalarType) and (dt == BOOL or (dt.is_float and op in ("and", "or", "xor"))):
        raise chk.error(f"atomic {op} is not defined on {dt}", nodes[0], "atomic-type")
