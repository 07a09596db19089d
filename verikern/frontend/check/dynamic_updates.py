"""`v[i] += x`, `m[i, j] *= x`, `m[i] -= row` on a local vector or matrix
with a run-time index (warpsphcore's matmul: `res[i] += mat[i, j] * vec[j]`
in loops over `range(numRows)`): Warp 1.19 reads such an update as `v[i] =
v[i] + x`, the index read for the load and again for the store.

Invariant: only an index whose expressions call nothing and bind nothing
(names, constants, attributes, subscripts and operators: reading it twice
reads the same value) is taken; it is evaluated once into temporaries, the
load `v[t]` asserts `0 <= t < bound` (lower/dynamic_components.py) and the
store to the same `v[t]` follows it (check/dynamic_components.py, with no
second assertion: on every path that reaches the store the load's held);
anything else returns None and the caller's located error stands.
"""
from __future__ import annotations

import ast

from verikern.hir import nodes as H
from .dynamic_components import dynamic_write

_PURE = (ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.BinOp, ast.UnaryOp,
         ast.Compare, ast.BoolOp, ast.Tuple, ast.Load, ast.operator, ast.unaryop, ast.cmpop,
         ast.boolop)


def dynamic_update(chk, s: ast.AugAssign):
    """The statements of `s` when its target is a local vector or matrix with a
    run-time index (module docstring), else None."""
    t = s.target
    if not (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)) or t.value.id in chk.arrays \
            or t.value.id not in chk.local_names or not all(isinstance(n, _PURE) for n in ast.walk(t.slice)):
        return None
    parts = chk.index_list(t.slice)
    if all(chk.is_const(p) for p in parts):
        return None
    var = chk._local_vector(t.value)
    out: list = []
    names: list[ast.expr] = []
    for p in parts:
        e = chk.check_expr(p)
        tmp = chk.temp()
        chk.declare(tmp, e.type, p)
        out.append(H.Assign(tmp, e, e.loc))
        names.append(ast.copy_location(ast.Name(id=tmp, ctx=ast.Load()), p))
    index = names[0] if len(names) == 1 else ast.copy_location(ast.Tuple(elts=names, ctx=ast.Load()), t.slice)
    load = ast.copy_location(ast.Subscript(value=ast.Name(id=t.value.id, ctx=ast.Load()), slice=index,
                                           ctx=ast.Load()), t)
    value = ast.fix_missing_locations(ast.copy_location(ast.BinOp(left=load, op=s.op, right=s.value), s))
    return out + dynamic_write(chk, var, names, value, chk.loc(s), read_first=True)
