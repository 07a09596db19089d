"""The typing rules of Warp's builtins over quaternions, rigid transforms,
spatial (6-d) vectors and matrices, and matrix algebra (docs/LANGUAGE.md
section 2): `type_<rule>(chk, node, name, args, expected, loc) -> HIR`, as in
rules.py; table.py says which builtin each rule types.

Invariant: each rule accepts exactly the argument types of Warp 1.19's
overloads of the builtin (every float precision: a quat, transform or
spatial type of dtype T goes with vectors and matrices of the same T), and
returns a BuiltinCall named after the builtin with Warp's result type, or
the HIR it folds to: a slice of one value (`transform_get_translation`,
`spatial_top`, ...) is a ComponentExpr, a constant value (`quat_identity`,
`transform_identity`, `identity`) a construct of literals. Anything else is
a located `type-mismatch` (or `arity`) KernelError naming the types Warp
takes.
"""
from __future__ import annotations

from verikern.hir import nodes as H
from verikern.hir.types import (
    BOOL, F32, MatrixType, ScalarType, is_plain_vector, is_quat, is_transform,
    matrix_type, quat_type, transform_type, vector_type,
)
from ..scan.annotations import value_type
from ..scan.constants import NotConstant
from .rules import _arity, dtype_operand


def _typed_args(chk, node, name, args, n_min, n_max=None):
    _arity(chk, node, name, args, n_min, n_max)
    return tuple(chk.check_expr(a) for a in args)


def _mismatch(chk, node, name, wanted: str, got) -> Exception:
    types = ", ".join(str(a.type) for a in got)
    return chk.error(f"wp.{name}() takes {wanted}, got {types}", node, "type-mismatch")


def _is_vec3_of(t, dtype) -> bool:
    return t == vector_type(3, dtype)


def _float_dtype(chk, node, name, args) -> ScalarType:
    """The `dtype` argument of a constant builtin (float32 when absent)."""
    if not args:
        return F32
    t = value_type(chk.info, args[0])
    if not isinstance(t, ScalarType) or not t.is_float:
        raise chk.error(f"wp.{name}(dtype=...) needs a float type (float16, float32 or "
                        "float64)", args[0], "type-mismatch")
    return t


def _literals(values, t, loc):
    return tuple(H.Literal(v, t, loc) for v in values)


# ------------------------------------------------------------ quaternions
def type_quat_vec3(chk, node, name, args, expected, loc):
    """quat_rotate(quat, vec) and quat_rotate_inv: a quat and a vec3 of one dtype."""
    q, v = _typed_args(chk, node, name, args, 2)
    if not (is_quat(q.type) and _is_vec3_of(v.type, q.type.dtype)):
        raise _mismatch(chk, node, name, "a quat and a vec3 of the same precision", (q, v))
    return H.BuiltinCall(name, (q, v), v.type, loc)


def _one(chk, node, name, args, accept, wanted: str):
    """The one argument of a unary builtin, typed, of a type `accept` takes."""
    (a,) = _typed_args(chk, node, name, args, 1)
    if not accept(a.type):
        raise _mismatch(chk, node, name, wanted, (a,))
    return a


def type_quat_unary(chk, node, name, args, expected, loc):
    """quat_inverse (a quat) and quat_to_matrix (its 3x3 rotation matrix)."""
    q = _one(chk, node, name, args, is_quat, "a quat")
    t = q.type if name == "quat_inverse" else matrix_type(3, 3, q.type.dtype)
    return H.BuiltinCall(name, (q,), t, loc)


def type_quat_identity(chk, node, name, args, expected, loc):
    _arity(chk, node, name, args, 0, 1)
    t = quat_type(_float_dtype(chk, node, name, args))
    return H.BuiltinCall("construct", _literals((0.0, 0.0, 0.0, 1.0), t.dtype, loc), t, loc)


def type_quat_from_axis_angle(chk, node, name, args, expected, loc):
    _arity(chk, node, name, args, 2)
    axis = chk.check_expr(args[0])
    dtype = axis.type.dtype if is_plain_vector(axis.type) else F32
    angle = chk.check_expr(args[1], dtype)
    if not (_is_vec3_of(axis.type, dtype) and dtype.is_float and angle.type == dtype):
        raise _mismatch(chk, node, name, "a float vec3 and a float of the same precision",
                        (axis, angle))
    return H.BuiltinCall(name, (axis, angle), quat_type(dtype), loc)


# ------------------------------------------------------------ transforms
def type_transform_identity(chk, node, name, args, expected, loc):
    _arity(chk, node, name, args, 0, 1)
    t = transform_type(_float_dtype(chk, node, name, args))
    return H.BuiltinCall("construct", _literals((0.0,) * 6 + (1.0,), t.dtype, loc), t, loc)


def type_transform_apply(chk, node, name, args, expected, loc):
    """transform_point / transform_vector: (transform, vec3) or (mat44, vec3)."""
    x, v = _typed_args(chk, node, name, args, 2)
    t = x.type
    if (is_transform(t) or (isinstance(t, MatrixType) and (t.rows, t.cols) == (4, 4))) \
            and t.dtype.is_float and _is_vec3_of(v.type, t.dtype):
        return H.BuiltinCall(name, (x, v), v.type, loc)
    raise _mismatch(chk, node, name, "a transform (or a 4x4 matrix) and a vec3 of the same "
                    "precision", (x, v))


def type_transform_multiply(chk, node, name, args, expected, loc):
    a, b = _typed_args(chk, node, name, args, 2)
    if not (is_transform(a.type) and a.type == b.type):
        raise _mismatch(chk, node, name, "two transforms of the same precision", (a, b))
    return H.BuiltinCall(name, (a, b), a.type, loc)


def type_transform_unary(chk, node, name, args, expected, loc):
    """transform_inverse (a transform), transform_get_translation (its p, a
    vec3) and transform_get_rotation (its q, a quat)."""
    a = _one(chk, node, name, args, is_transform, "a transform")
    if name == "transform_get_translation":
        return H.ComponentExpr(a, 0, 3, vector_type(3, a.type.dtype), loc)
    if name == "transform_get_rotation":
        return H.ComponentExpr(a, 3, 4, quat_type(a.type.dtype), loc)
    return H.BuiltinCall(name, (a,), a.type, loc)


# ------------------------------------------------------------ spatial vectors
def _spatial(t) -> bool:
    return is_plain_vector(t) and t.length == 6 and t.dtype.is_float


def type_spatial_half(chk, node, name, args, expected, loc):
    """spatial_top (components 0-2) / spatial_bottom (3-5) of a 6-vector."""
    a = _one(chk, node, name, args, _spatial, "a spatial_vector (a float 6-vector)")
    first = 0 if name == "spatial_top" else 3
    return H.ComponentExpr(a, first, 3, vector_type(3, a.type.dtype), loc)


def type_spatial_pair(chk, node, name, args, expected, loc):
    """spatial_dot (a scalar), spatial_cross and spatial_cross_dual (a 6-vector)."""
    a, b = _typed_args(chk, node, name, args, 2)
    if not (_spatial(a.type) and a.type == b.type):
        raise _mismatch(chk, node, name, "two spatial_vectors of the same precision", (a, b))
    if name == "spatial_dot":
        return H.BuiltinCall("dot", (a, b), a.type.dtype, loc)
    return H.BuiltinCall(name, (a, b), a.type, loc)


def type_spatial_adjoint(chk, node, name, args, expected, loc):
    r, s = _typed_args(chk, node, name, args, 2)
    t = r.type
    if not (isinstance(t, MatrixType) and (t.rows, t.cols) == (3, 3) and t.dtype.is_float
            and s.type == t):
        raise _mismatch(chk, node, name, "two 3x3 float matrices of the same precision", (r, s))
    return H.BuiltinCall(name, (r, s), matrix_type(6, 6, t.dtype), loc)


# ------------------------------------------------------------ matrix algebra
def _square(t, sizes) -> bool:
    return isinstance(t, MatrixType) and t.rows == t.cols and t.rows in sizes \
        and t.dtype.is_float


def type_inverse(chk, node, name, args, expected, loc):
    """inverse (a matrix) and determinant (its scalar) of a 2x2, 3x3 or 4x4 float matrix."""
    (a,) = _typed_args(chk, node, name, args, 1)
    if not _square(a.type, (2, 3, 4)):
        raise _mismatch(chk, node, name, "a 2x2, 3x3 or 4x4 float matrix", (a,))
    return H.BuiltinCall(name, (a,), a.type if name == "inverse" else a.type.dtype, loc)


def type_outer(chk, node, name, args, expected, loc):
    a, b = _typed_args(chk, node, name, args, 2)
    if not (is_plain_vector(a.type) and is_plain_vector(b.type) and a.type.dtype == b.type.dtype
            and a.type.dtype != BOOL):
        raise _mismatch(chk, node, name, "two vectors of the same component type", (a, b))
    return H.BuiltinCall(name, (a, b), matrix_type(a.type.length, b.type.length, a.type.dtype),
                         loc)


def type_diag(chk, node, name, args, expected, loc):
    """diag (a vector's diagonal matrix), get_diag (a square matrix's
    diagonal) and skew (a vec3's cross-product matrix)."""
    if name == "get_diag":
        m = _one(chk, node, name, args, lambda t: isinstance(t, MatrixType) and t.rows == t.cols,
                 "a square matrix")
        return H.BuiltinCall(name, (m,), vector_type(m.type.rows, m.type.dtype), loc)
    n = 3 if name == "skew" else None
    a = _one(chk, node, name, args, lambda t: is_plain_vector(t) and t.dtype != BOOL
             and n in (None, t.length), "a vec3" if n else "a vector")
    size = a.type.length
    return H.BuiltinCall(name, (a,), matrix_type(size, size, a.type.dtype), loc)


def type_ddot(chk, node, name, args, expected, loc):
    a, b = _typed_args(chk, node, name, args, 2)
    if not (isinstance(a.type, MatrixType) and a.type == b.type):
        raise _mismatch(chk, node, name, "two matrices of the same shape and type", (a, b))
    return H.BuiltinCall(name, (a, b), a.type.dtype, loc)


def type_identity(chk, node, name, args, expected, loc):
    """identity(n, dtype): the n x n identity matrix (n a constant 1..16)."""
    _arity(chk, node, name, args, 2)
    try:
        n = chk.const_eval(args[0])
    except (NotConstant, KeyError):
        n = None
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 16:
        raise chk.error("wp.identity(n=...) needs a constant n from 1 to 16", args[0],
                        "identity-size")
    dtype = dtype_operand(chk, args[1])
    if not isinstance(dtype, ScalarType) or dtype == BOOL:
        raise chk.error("wp.identity(dtype=...) needs a numeric scalar type", args[1],
                        "type-mismatch")
    one, zero = (1.0, 0.0) if dtype.is_float else (1, 0)
    values = [one if r == c else zero for r in range(n) for c in range(n)]
    t = matrix_type(n, n, dtype)
    return H.BuiltinCall("construct", _literals(values, dtype, loc), t, loc)

