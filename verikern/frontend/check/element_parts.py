"""Stores into part of an array element: `a[i].x = v`, `a[i][1] = v`,
`m[i][1, 2] = v`, `m[i][1] = row` and their augmented forms (Warp 1.19).

Invariant: the target names a constant part of one element of a global or
shared array of vector, quat or matrix dtype: one component (`.x`, `[k]`,
`[r, c]`) or one matrix row (`[r]`); the statement writes exactly those
components (memory is per component in MIR, so a write never touches the
rest of the element).  As for whole elements (docs/LANGUAGE.md section 4),
`+= -= &= |= ^=` are atomic updates of those components and `*= /=`
plain read-modify-writes (which Warp accepts only in kernels declared
`enable_backward=False`; elsewhere a `warp-backward` error, as in Warp); the
index is evaluated once.  Any other target is
left to the caller (None).
"""
from __future__ import annotations

import ast
import dataclasses

from verikern.hir import nodes as H
from verikern.hir.types import ArrayType, MatrixType, VectorType, named_parts, vector_type
from verikern.mir.ops import symbols
from ..builtins.rules import check_atomic_value
from ..builtins.operators import check_binary_types, literal_type_for
from .dynamic_components import dynamic_write


def element_part(chk, target):
    """(array expr, index nodes, first component, count, part type) for a
    part-of-element target, or None."""
    if isinstance(target, ast.Attribute):
        base, parts = target.value, None
    elif isinstance(target, ast.Subscript):
        base, parts = target.value, chk.index_list(target.slice)
    else:
        return None
    if not (isinstance(base, ast.Subscript) and isinstance(base.value, ast.Name)
            and base.value.id in chk.arrays):
        return None
    arr = chk.check_expr(base.value)
    t = arr.type.dtype if isinstance(arr.type, ArrayType) else None
    if not isinstance(t, (VectorType, MatrixType)):
        return None
    idx_nodes = chk.index_list(base.slice)
    if parts is None:
        part = named_parts(t).get(target.attr)
        if part is None:
            return None
        return arr, idx_nodes, part[0], part[1], part[2]
    if isinstance(t, VectorType) and len(parts) == 1:
        k = chk.constant_index(parts[0], t.length, "a vector component")
        return arr, idx_nodes, k, 1, t.dtype
    if isinstance(t, MatrixType) and len(parts) == 1:
        r = chk.constant_index(parts[0], t.rows, "a matrix row")
        return arr, idx_nodes, r * t.cols, t.cols, vector_type(t.cols, t.dtype)
    if isinstance(t, MatrixType) and len(parts) == 2:
        r = chk.constant_index(parts[0], t.rows, "a matrix row")
        c = chk.constant_index(parts[1], t.cols, "a matrix column")
        return arr, idx_nodes, r * t.cols + c, 1, t.dtype
    return None


def assign_part(chk, target, value, loc):
    """`a[i].x = v` as a partial StoreStmt, or None for other targets."""
    found = element_part(chk, target)
    if found is None:
        return None
    arr, idx_nodes, first, count, pt = found
    v = chk._typed(value, pt, what="stored value")   # Python: the value before the target
    idx = chk.check_indices(arr, idx_nodes, target)
    return H.StoreStmt(arr, idx, v, loc, first, count)


def augassign_part(chk, s, op, atomic_ops, loc):
    """`a[i].x op= v` (atomic for `atomic_ops`), or None for other targets."""
    found = element_part(chk, s.target)
    if found is None:
        return None
    arr, idx_nodes, first, count, pt = found
    idx = chk.check_indices(arr, idx_nodes, s.target)
    if op in atomic_ops:
        v = chk.check_expr(s.value, pt)
        if v.type != pt:
            raise chk.error(f"value of type {v.type} where {pt} is needed", s.value,
                            "type-mismatch", f"convert with {pt}(...)")
        _check_atomic_part(chk, atomic_ops[op], arr, pt, v, s.value)
        return H.AtomicUpdate(atomic_ops[op], arr, idx, v, loc, first, count)
    if not _forward_only(chk):
        raise chk.error(f"Warp refuses `{ast.unparse(s.target)} {_SYM.get(op, op)}= ...` on part "
                        "of an array element while backward code generation is enabled",
                        s, "warp-backward", "use @wp.kernel(enable_backward=False), or load "
                        "the element into a variable, update it and store it back")
    out, fixed = [], []
    for e in idx:   # the index once, as for whole elements
        if isinstance(e, (H.Literal, H.LocalRef)):
            fixed.append(e)
        else:
            tmp = chk.temp()
            chk.declare(tmp, e.type, s.target)
            out.append(H.Assign(tmp, e, e.loc))
            fixed.append(H.LocalRef(tmp, e.type, e.loc))
    old_elem = H.IndexExpr(arr, tuple(fixed), arr.type.dtype, chk.loc(s.target))
    old = H.ComponentExpr(old_elem, first, count, pt, chk.loc(s.target))
    rhs = chk.check_expr(s.value, literal_type_for(op, pt))
    rt = check_binary_types(chk, op, old, rhs, s)
    if rt != pt:
        raise chk.error(f"result {rt} does not fit {pt}", s, "type-mismatch")
    out.append(H.StoreStmt(arr, tuple(fixed), H.BinaryExpr(op, old, rhs, rt, loc), loc,
                           first, count))
    return out


_SYM = symbols("binary")


def _forward_only(chk) -> bool:
    """The kernel says `@wp.kernel(enable_backward=False)` (Warp then accepts
    a non-atomic update of part of an array element)."""
    for d in getattr(chk.defn.node, "decorator_list", ()):
        if isinstance(d, ast.Call) and chk.info.dsl_name(d.func) == "kernel":
            for k in d.keywords:
                if k.arg == "enable_backward" and isinstance(k.value, ast.Constant) \
                        and k.value.value is False:
                    return True
    return False


def _check_atomic_part(chk, op, arr, pt, v, node):
    """The atomic rules of whole elements, for the components updated."""
    scalar = pt.dtype if isinstance(pt, VectorType) else pt
    as_scalar = H.ArrayRefExpr(arr.name, dataclasses.replace(arr.type, dtype=scalar), arr.loc)
    if isinstance(pt, VectorType) and op not in ("add", "sub"):
        raise chk.error(f"atomic {op} on a matrix row is not supported", node,
                        "atomic-type", "update the components one by one")
    check_atomic_value(chk, op, as_scalar, (v,) if scalar == pt else (), (node,))


def assign_local_matrix_part(chk, target, value, loc):
    """`m[r] = row` and `m[r][c] = x` on a local matrix `m` with constant
    indices (Warp), as an AssignComponent, `m[i][j] = x` with run-time
    indices as `m[i, j] = x` (dynamic_components.py); None for other targets."""
    base = target.value if isinstance(target, ast.Subscript) else None
    if isinstance(base, ast.Name) and base.id not in chk.arrays:
        t = chk.check_expr(base).type
        parts = chk.index_list(target.slice)
        if isinstance(t, MatrixType) and len(parts) == 1:
            var = chk._local_vector(base)
            r = chk.constant_index(parts[0], t.rows, "a matrix row")
            row = chk._typed(value, vector_type(t.cols, t.dtype))
            return H.AssignComponent(var.name, r * t.cols, t.cols, row, loc)
    if isinstance(base, ast.Subscript) and isinstance(base.value, ast.Name) \
            and base.value.id not in chk.arrays:
        var = chk._local_vector(base.value)
        t = var.type
        rows, cols = chk.index_list(base.slice), chk.index_list(target.slice)
        if isinstance(t, MatrixType) and len(rows) == 1 and len(cols) == 1:
            if not (chk.is_const(rows[0]) and chk.is_const(cols[0])):   # m[i][j] = x, run-time i, j
                return dynamic_write(chk, var, rows + cols, value, loc)
            r = chk.constant_index(rows[0], t.rows, "a matrix row")
            c = chk.constant_index(cols[0], t.cols, "a matrix column")
            return H.AssignComponent(var.name, r * t.cols + c, 1, chk._typed(value, t.dtype),
                                     loc)
    return None
