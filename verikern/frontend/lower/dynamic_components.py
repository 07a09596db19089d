"""Lowering of run-time indices into local vector and matrix values (`v[i]`,
`m[i]`, `m[i, j]`; check/dynamic_components.py types them and rewrites the
writes into whole-component assignments).

Invariant: the indices are asserted in range (`H.COMPONENT_INDEX_MESSAGE`)
before the read, which is a chain of selects among the constant components;
the value and the indices are lowered once.
"""
from __future__ import annotations

from verikern.hir import nodes as H
from verikern.mir.nodes import Assert, Cast


def lower_dynamic_component(low, e: H.DynamicComponentExpr, hint):
    """Assert the indices in range, then select the component(s)."""
    vals = low.lower_expr(e.value)
    idx = [low.lower_expr(i)[0] for i in e.indices]
    ok = None
    for i, n in zip(idx, e.bounds):
        c = low.binop("and", low.cmp("ge", i, low.const(0, i.type), e.loc),
                      low.cmp("lt", i, low.const(n, i.type), e.loc), e.loc)
        ok = c if ok is None else low.binop("and", ok, c, e.loc)
    guard = getattr(low, "_guard", None)
    if guard is not None:   # evaluated eagerly, needed only where the guard holds
        ok = low.binop("or", low.unop("not", guard, e.loc), ok, e.loc)
    assert ok is not None   # a component access has at least one index
    low.emit(Assert(ok, H.COMPONENT_INDEX_MESSAGE, e.loc))
    if len(idx) == 2:
        r, c = idx
        if c.type != r.type:
            wide = low.b.new_value(r.type)
            low.emit(Cast(wide, c, e.loc))
            c = wide
        flat = low.binop("add", low.binop("mul", r, low.const(e.bounds[1], r.type), e.loc), c,
                         e.loc)
        stride, n = 1, e.bounds[0] * e.bounds[1]
    else:
        flat, n = idx[0], e.bounds[0]
        stride = e.count
    out = []
    for part in range(e.count):
        acc = vals[(n - 1) * stride + part]
        for k in range(n - 2, -1, -1):
            here = low.cmp("eq", flat, low.const(k, flat.type), e.loc)
            acc = low.select(here, vals[k * stride + part], acc, e.loc,
                             hint if k == 0 else "")
        out.append(acc)
    return tuple(out)

