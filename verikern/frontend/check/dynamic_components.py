"""Run-time indices into local vector and matrix values: `v[i]`, `m[i]`,
`m[i, j]` (reads) and `v[i] = x`, `m[i] = row`, `m[i, j] = x` (writes), as
Warp 1.19 allows.

Invariant: every such access first asserts `0 <= index < bound` for each
index (an `assert` obligation named "vector index in range": Warp leaves an
index out of range undefined, and verikern, as for arrays, also refuses a
negative one), then selects among the constant components: a read is a
chain of selects, a write replaces each component by `x` where the index
matches.  The value and the indices are evaluated once.
"""
from __future__ import annotations

from verikern.hir import nodes as H
from verikern.hir.types import BOOL, MatrixType, ScalarType, VectorType, vector_type


def _int_index(chk, node):
    e = chk.check_expr(node)
    if not (isinstance(e.type, ScalarType) and e.type.is_int):
        raise chk.error(f"a component index must be an integer, got {e.type}", node,
                        "index-not-int", "convert with int(...)")
    return e


def past_components(chk, t, parts) -> bool:
    """Whether `chk` takes the constant index `parts` of a `t` as a run-time one, its
    range an obligation (check/component_obligations.py): only under a checker with
    `component_obligations`, and only when some part is past the end of its bound."""
    if not getattr(chk, "component_obligations", False):
        return False
    if isinstance(t, VectorType) and len(parts) == 1:
        bounds: tuple = (t.length,)
    elif isinstance(t, MatrixType) and len(parts) in (1, 2):
        bounds = (t.rows, t.cols)[:len(parts)]
    else:
        return False
    values = [chk.const_eval(p) for p in parts]
    return any(isinstance(v, int) and not isinstance(v, bool) and v >= n for v, n in zip(values, bounds))


def dynamic_read(chk, base, parts, loc):
    """The DynamicComponentExpr of `base[parts]` (some part not constant)."""
    t = base.type
    idx = tuple(_int_index(chk, p) for p in parts)
    if isinstance(t, VectorType) and len(parts) == 1:
        return H.DynamicComponentExpr(base, idx, (t.length,), 1, t.dtype, loc)
    if isinstance(t, MatrixType) and len(parts) == 1:
        return H.DynamicComponentExpr(base, idx, (t.rows,), t.cols,
                                      vector_type(t.cols, t.dtype), loc)
    if isinstance(t, MatrixType) and len(parts) == 2:
        return H.DynamicComponentExpr(base, idx, (t.rows, t.cols), 1, t.dtype, loc)
    raise chk.error(f"{t} takes {1 if isinstance(t, VectorType) else '1 or 2'} index(es)",
                    parts[-1], "index-count")


def dynamic_write(chk, var, parts, value, loc, read_first=False):
    """Statements for `var[parts] = value` on a local vector/matrix `var`
    (a LocalRef) with a run-time index: temporaries, the range assertion,
    then every component set to `value` where the index matches.
    `read_first`: `value` reads `var[parts]` itself, with the same index
    (check/dynamic_updates.py), and that read asserts the range before the
    write; the write asserts nothing more (one obligation per update)."""
    t = var.type
    row = isinstance(t, MatrixType) and len(parts) == 1   # m[i] = a row
    if isinstance(t, VectorType) and len(parts) == 1:
        bounds = (t.length,)
    elif isinstance(t, MatrixType) and len(parts) == 2:
        bounds = (t.rows, t.cols)
    elif row:
        bounds = (t.rows,)
    else:
        raise chk.error(f"cannot assign to this part of a {t} with a run-time index",
                        parts[0], "bad-assign-target", "use constant indices")
    out = []
    xt = vector_type(t.cols, t.dtype) if row else t.dtype
    x = chk._typed(value, xt, what="a row" if row else "a component")   # value first
    tx = chk.temp()
    chk.declare(tx, xt, parts[0])
    out.append(H.Assign(tx, x, loc))
    idx = []
    for p in parts:
        e = _int_index(chk, p)
        ti = chk.temp()
        chk.declare(ti, e.type, p)
        out.append(H.Assign(ti, e, e.loc))
        idx.append(H.LocalRef(ti, e.type, e.loc))
    if not read_first:
        out.append(H.AssertStmt(_in_range(idx, bounds, loc), H.COMPONENT_INDEX_MESSAGE, "assert", loc))
    flat = _flat(idx, bounds, loc)
    xv = H.LocalRef(tx, xt, loc)
    for k in range(_size(t)):
        sel = k // t.cols if row else k     # the row, or the component, index k belongs to
        here = H.CompareExpr("eq", flat, H.Literal(sel, flat.type, loc), BOOL, loc)
        new = H.ComponentExpr(xv, k % t.cols, 1, t.dtype, loc) if row else xv
        old = H.ComponentExpr(var, k, 1, t.dtype, loc)
        out.append(H.AssignComponent(var.name, k, 1, H.CondExpr(here, new, old, t.dtype, loc),
                                     loc))
    return out



def _size(t) -> int:
    return t.length if isinstance(t, VectorType) else t.rows * t.cols


def _in_range(idx, bounds, loc):
    cond = None
    for i, n in zip(idx, bounds):
        c = H.BoolOpExpr("and", H.CompareExpr("ge", i, H.Literal(0, i.type, loc), BOOL, loc),
                         H.CompareExpr("lt", i, H.Literal(n, i.type, loc), BOOL, loc),
                         BOOL, loc)
        cond = c if cond is None else H.BoolOpExpr("and", cond, c, BOOL, loc)
    return cond


def _flat(idx, bounds, loc):
    """The flat component index (row-major) in the first index's type."""
    if len(idx) == 1:
        return idx[0]
    r, c = idx
    t = r.type
    c2 = c if c.type == t else H.CastExpr(c, t, loc)
    return H.BinaryExpr("add", H.BinaryExpr("mul", r, H.Literal(bounds[1], t, loc), t, loc),
                        c2, t, loc)
