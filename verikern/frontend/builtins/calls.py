"""Builtin calls inside kernels: resolution of the callee and the typing
rule of each builtin (docs/LANGUAGE.md sections 2-5).

Invariant: a call is either a builtin listed in BUILTIN_RULES (keyed by its
canonical vk name), a cast to a scalar type, a vector/matrix constructor, or
a @vk.func; anything else is a `call-not-allowed` KernelError. Statement-only
builtins (sync_threads, block_until, requires, invariant) are rejected here
and handled by the statement checker.
"""
from __future__ import annotations

import ast

from verikern.hir import nodes as H
from verikern.hir.types import (
    BOOL, F32, I32, QUAT, VECTOR_TYPES, ArrayType, MatrixType,
    ScalarType, VectorType, component_count, is_quat, vector_type,
)
from .warp import DESUGARED, desugar, positional_args
from ..scan.module import NotConstant
from .type_ctors import TYPE_CONSTRUCTORS, check_matrix_from_vectors, check_type_constructor
from ..scan.type_names import SCALAR_ALIASES, value_type_by_name
from .operators import make_literal, check_binary_types
from ..scan.annotations import value_type

STATEMENT_BUILTINS = {"sync_threads", "block_until", "requires", "invariant"}
CONTRACT_ONLY = {"all_in_range", "all_distinct", "all_sorted"}
PYTHON_BUILTINS = {"min": "min", "max": "max", "abs": "abs", "int": "int",
                   "float": "float", "bool": "bool", "len": "len", "pow": "pow"}
GEOMETRY = ("thread_idx", "block_idx", "block_dim", "grid_dim")
ATOMICS = {"atomic_add": "add", "atomic_sub": "sub", "atomic_min": "min",
           "atomic_max": "max", "atomic_exch": "exch", "atomic_cas": "cas",
           "atomic_and": "and", "atomic_or": "or", "atomic_xor": "xor"}
#: Warp's Perlin-noise builtins: their values are not specified (Warp 1.19's
#: docs: "may differ between CPU and CUDA or change between Warp versions").
NOISE = ("noise", "pnoise", "curlnoise")
FLOAT_UNARY = ("floor", "ceil", "sqrt", "sqrt_precise", "sin", "cos", "tan", "exp", "log")


def callee_name(chk, func: ast.AST) -> tuple[str, str]:
    """('builtin'|'func', name) for a call target, or a KernelError."""
    dsl = chk.info.dsl_name(func)
    if dsl is not None:
        return "builtin", dsl
    if isinstance(func, ast.Name):
        n = func.id
        if n in chk.local_names or n in chk.arrays:
            raise chk.error(f"{n!r} is a variable, not a function", func, "call-not-allowed")
        if n in chk.info.type_aliases:
            return "type", n
        if n in chk.info.funcs:
            if n in chk.info.ambiguous_funcs:
                raise chk.error(f"several functions of this file define a func named {n!r}; "
                                "verikern cannot tell which one this call means", func,
                                "ambiguous-func", "give each func its own name")
            return "func", n
        if n in PYTHON_BUILTINS:
            return "builtin", PYTHON_BUILTINS[n]
        if n in ("print", "range"):
            raise chk.error(f"{n}() cannot be called here", func, "call-not-allowed",
                            "range() is allowed only as `for v in range(...)`")
        if any(d.node.name == n for d in chk.info.kernels):
            raise chk.error(f"a kernel cannot call the kernel {n!r}", func, "call-not-allowed",
                            "make the shared code a @vk.func")
        if n in chk.info.import_notes:    # a project func verikern could not take (scan/project.py)
            raise chk.error(f"{n}() {chk.info.import_notes[n]}", func, "imported-func",
                            "import the names the func reads too, or bind them to the same "
                            "values in this file")
    text = ast.unparse(func)
    raise chk.error(f"{text}() is not a builtin or a @vk.func", func, "call-not-allowed",
                    "only verikern builtins and @vk.func functions can be called in kernels")


def check_call(chk, node: ast.Call, expected) -> H.Expr:
    kind, name = callee_name(chk, node.func)
    if kind == "func":
        return chk.check_func_call(node, name)
    if kind == "type":   # a module-level type alias used as a constructor or cast
        t = value_type(chk.info, node.func)
        return _cast(chk, node, t, node.args) if isinstance(t, ScalarType) else \
            _construct(chk, node, t, node.args)
    if name in STATEMENT_BUILTINS:
        raise chk.error(f"vk.{name}() is a statement, not a value", node, "statement-only",
                        f"call vk.{name}(...) on its own line")
    if name in CONTRACT_ONLY:
        raise chk.error(f"vk.{name}() is allowed only inside vk.requires(...)", node,
                        "contract-position")
    if name == "shared.array":
        raise chk.error("vk.shared.array(...) must be assigned to a variable: "
                        "`s = vk.shared.array(shape=..., dtype=...)`", node, "shared-decl")
    if any(isinstance(a, ast.Starred) for a in node.args):
        raise chk.error("*args are not allowed in kernels", node, "varargs",
                        "pass each argument explicitly")
    if name in TYPE_CONSTRUCTORS:
        return check_type_constructor(chk, node, name)
    loc = chk.loc(node)
    args = node.args
    if name != "launch_dim":
        args = positional_args(chk, node, name)
    if name in DESUGARED:
        return chk.check_expr(desugar(chk, node, name, args), expected)
    t = SCALAR_ALIASES.get(name) or value_type_by_name(name)
    if isinstance(t, ScalarType):
        return _cast(chk, node, t, args)
    if isinstance(t, (VectorType, MatrixType)):
        return _construct(chk, node, t, args)
    rule = BUILTIN_RULES.get(name)
    if rule is None and name in NOISE:
        raise chk.error(
            f"wp.{name}() is not supported: Warp documents its values as implementation-"
            "defined (they differ between Warp's CPU and CUDA backends and between Warp "
            "versions), so verikern cannot give it one meaning on every device", node.func,
            "warp-noise", "compute the noise outside the kernel (numpy, or a separate Warp "
            "kernel) and pass it in an array")
    if rule is None:
        raise chk.error(f"vk.{name} is not a verikern builtin", node.func, "call-not-allowed",
                        "see docs/LANGUAGE.md section 4 for the builtins")
    return rule(chk, node, name, args, expected, loc)


def _arity(chk, node, name, args, n_min, n_max=None):
    n_max = n_min if n_max is None else n_max
    if not n_min <= len(args) <= n_max:
        want = str(n_min) if n_min == n_max else f"{n_min} to {n_max}"
        raise chk.error(f"vk.{name}() takes {want} argument(s), got {len(args)}", node,
                        "arity")


def _cast(chk, node, t, args) -> H.Expr:
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


def _construct(chk, node, t, args) -> H.Expr:
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


# -------------------------------------------------------------- rules
def _tid(chk, node, name, args, expected, loc):
    _arity(chk, node, name, args, 0)
    chk.note_tid(1, node)
    return H.BuiltinCall("tid", (), I32, loc)


def _geometry(chk, node, name, args, expected, loc):
    _arity(chk, node, name, args, 0)
    return H.BuiltinCall(name, (), I32, loc)


def _launch_dim(chk, node, name, args, expected, loc):
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


def _minmax(chk, node, name, args, expected, loc):
    _arity(chk, node, name, args, 2)
    a = _same_type_args(chk, node, name, args, expected)
    if a[0].type == BOOL or isinstance(a[0].type, MatrixType) or a[0].type == QUAT:
        raise chk.error(f"vk.{name}() needs numbers or vectors", node, "type-mismatch")
    return H.BuiltinCall(name, a, a[0].type, loc)


def _clamp(chk, node, name, args, expected, loc):
    _arity(chk, node, name, args, 3)
    a = _same_type_args(chk, node, name, args, expected)
    if not isinstance(a[0].type, ScalarType) or a[0].type == BOOL:
        raise chk.error("vk.clamp() needs numbers", node, "type-mismatch")
    return H.BuiltinCall("clamp", a, a[0].type, loc)


def _abs(chk, node, name, args, expected, loc):
    _arity(chk, node, name, args, 1)
    e = chk.check_expr(args[0], expected)
    if e.type == BOOL or isinstance(e.type, (ArrayType, MatrixType)) or e.type == QUAT:
        raise chk.error("vk.abs() needs a number or a vector", node, "type-mismatch")
    return H.BuiltinCall("abs", (e,), e.type, loc)


def _float_unary(chk, node, name, args, expected, loc):
    _arity(chk, node, name, args, 1)
    e = chk.check_expr(args[0], expected if isinstance(expected, ScalarType) and expected.is_float else F32)
    if not (isinstance(e.type, ScalarType) and e.type.is_float):
        raise chk.error(f"vk.{name}() needs a float, got {e.type}", args[0],
                        "implicit-conversion", "convert with float(...)")
    return H.BuiltinCall(name, (e,), e.type, loc)


def _pow(chk, node, name, args, expected, loc):
    """pow(x, y) and atan2(y, x): two floats of one type (Warp's `Float`)."""
    _arity(chk, node, name, args, 2)
    a = _same_type_args(chk, node, name, args, expected if expected is not None else None)
    if not (isinstance(a[0].type, ScalarType) and a[0].type.is_float):
        rule = "int-pow" if name == "pow" else "implicit-conversion"
        raise chk.error(f"vk.{name}() needs floats, got {a[0].type}", node, rule,
                        "convert with float(...)")
    return H.BuiltinCall(name, a, a[0].type, loc)


def _len(chk, node, name, args, expected, loc):
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
    return isinstance(t, VectorType) and not is_quat(t)


def _dot(chk, node, name, args, expected, loc):
    a, b = _vector_args(chk, node, name, args, 2, _is_vec)
    if a.type != b.type:
        raise chk.error(f"vk.dot() of {a.type} and {b.type}", node, "type-mismatch")
    return H.BuiltinCall("dot", (a, b), a.type.dtype, loc)


def _cw_mul(chk, node, name, args, expected, loc):
    a, b = _vector_args(chk, node, name, args, 2, _is_vec)
    if a.type != b.type:
        raise chk.error(f"vk.{name}() of {a.type} and {b.type}", node, "type-mismatch")
    return H.BuiltinCall(name, (a, b), a.type, loc)


def _cross(chk, node, name, args, expected, loc):
    a, b = _vector_args(chk, node, name, args, 2,
                        lambda t: _is_vec(t) and t.length == 3 and t.dtype.is_float)
    if a.type != b.type:
        raise chk.error(f"vk.cross() of {a.type} and {b.type}", node, "type-mismatch")
    return H.BuiltinCall("cross", (a, b), a.type, loc)


def _length(chk, node, name, args, expected, loc):
    (a,) = _vector_args(chk, node, name, args, 1,
                        lambda t: isinstance(t, VectorType) and t.dtype.is_float)
    return H.BuiltinCall(name, (a,), a.type.dtype, loc)


def _normalize(chk, node, name, args, expected, loc):
    (a,) = _vector_args(chk, node, name, args, 1,
                        lambda t: isinstance(t, VectorType) and t.dtype.is_float)
    return H.BuiltinCall("normalize", (a,), a.type, loc)


def _quat_rotate(chk, node, name, args, expected, loc):
    q, v = _vector_args(chk, node, name, args, 2,
                        lambda t: t in (QUAT, VECTOR_TYPES["vec3"]))
    if q.type != QUAT or v.type != VECTOR_TYPES["vec3"]:
        raise chk.error(f"vk.{name}(q, v) needs a quat and a vec3", node, "type-mismatch")
    return H.BuiltinCall(name, (q, v), v.type, loc)


def _quat_inverse(chk, node, name, args, expected, loc):
    (q,) = _vector_args(chk, node, name, args, 1, lambda t: t == QUAT)
    return H.BuiltinCall("quat_inverse", (q,), QUAT, loc)


def _quat_identity(chk, node, name, args, expected, loc):
    _arity(chk, node, name, args, 0)
    comps = tuple(H.Literal(v, F32, loc) for v in (0.0, 0.0, 0.0, 1.0))
    return H.BuiltinCall("construct", comps, QUAT, loc)


def _quat_from_axis_angle(chk, node, name, args, expected, loc):
    _arity(chk, node, name, args, 2)
    axis = chk.check_expr(args[0])
    angle = chk.check_expr(args[1], F32)
    if axis.type != VECTOR_TYPES["vec3"] or angle.type != F32:
        raise chk.error("vk.quat_from_axis_angle(axis, angle) needs a vec3 and a float32",
                        node, "type-mismatch")
    return H.BuiltinCall(name, (axis, angle), QUAT, loc)


def _transpose(chk, node, name, args, expected, loc):
    (m,) = _vector_args(chk, node, name, args, 1, lambda t: isinstance(t, MatrixType))
    return H.BuiltinCall("transpose", (m,), m.type, loc)


def _mul(chk, node, name, args, expected, loc):
    _arity(chk, node, name, args, 2)
    lhs, r = chk.check_pair(args[0], args[1], "mul")
    t = check_binary_types(chk, "mul", lhs, r, node)
    return H.BinaryExpr("mul", lhs, r, t, loc)


def _where(chk, node, name, args, expected, loc):
    """Warp's where(cond, a, b) (a if cond) and select(cond, b, a) (a if cond):
    ordinary calls, so both value arguments are always evaluated."""
    _arity(chk, node, name, args, 3)
    cond = chk.check_cond(args[0])
    x, y = chk.check_pair(args[1], args[2], "add", expected)
    if x.type != y.type or isinstance(x.type, ArrayType):
        raise chk.error(f"vk.{name}() values have types {x.type} and {y.type}", node,
                        "type-mismatch", "convert one value explicitly")
    return H.BuiltinCall(name, (cond, x, y), x.type, loc)


def _atomic(chk, node, name, args, expected, loc):
    op = ATOMICS[name]
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


BUILTIN_RULES = {
    "tid": _tid, "launch_dim": _launch_dim,
    **{g: _geometry for g in GEOMETRY},
    "min": _minmax, "max": _minmax, "clamp": _clamp, "abs": _abs,
    **{f: _float_unary for f in FLOAT_UNARY},
    "pow": _pow, "atan2": _pow, "len": _len,
    "dot": _dot, "cross": _cross, "length": _length, "length_sq": _length,
    "normalize": _normalize, "cw_mul": _cw_mul, "cw_div": _cw_mul,
    "quat_rotate": _quat_rotate, "quat_inverse": _quat_inverse,
    "quat_identity": _quat_identity, "quat_from_axis_angle": _quat_from_axis_angle,
    "transpose": _transpose, "mul": _mul, "where": _where, "select": _where,
    "matrix_from_rows": check_matrix_from_vectors, "matrix_from_cols": check_matrix_from_vectors,
    **{a: _atomic for a in ATOMICS},
}
