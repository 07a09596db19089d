"""`vk.shared.array(shape=..., dtype=..., layout=...)` declarations.

Invariant: the shape is a compile-time constant tuple of positive ints."""
from __future__ import annotations

import ast

from verikern.hir.types import ArrayType
from ..scan.annotations import value_type
from ..scan.constants import NotConstant


def shared_array_type(chk, call: ast.Call) -> ArrayType:
    kw = {k.arg: k.value for k in call.keywords}
    args = list(call.args)
    if args:
        kw.setdefault("shape", args[0])
    if len(args) > 1 or set(kw) - {"shape", "dtype", "layout"} or "shape" not in kw \
            or "dtype" not in kw:
        raise chk.error("write vk.shared.array(shape=(n, m), dtype=T[, layout=...])", call,
                        "shared-decl")
    node = kw["shape"]
    try:
        if isinstance(node, ast.Tuple):
            shape = tuple(chk.const_eval(e) for e in node.elts)
        elif isinstance(node, ast.Name) and isinstance(chk.info.constants.get(node.id), tuple) \
                and node.id not in chk.local_names:
            shape = chk.info.constants[node.id]
        else:
            shape = (chk.const_eval(node),)
    except NotConstant:
        for name in ast.walk(node):     # a rebindable name says so, not "not a constant"
            if isinstance(name, ast.Name) and name.id not in chk.local_names:
                chk.refuse_rebound(name)
        raise chk.error("the shape of a shared array must be a compile-time constant", node,
                        "shared-shape", "use literals or module-level constants") from None
    if not 1 <= len(shape) <= 4 or not all(isinstance(n, int) and not isinstance(n, bool)
                                           and n >= 1 for n in shape):
        raise chk.error(f"shared array shape {shape} must be 1 to 4 positive ints", node,
                        "shared-shape")
    dtype = value_type(chk.info, kw["dtype"])
    if dtype is None:
        raise chk.error(f"unknown dtype `{ast.unparse(kw['dtype'])}`", kw["dtype"], "annotation")
    layout = "row_major"
    if "layout" in kw:
        lv = kw["layout"]
        if not (isinstance(lv, ast.Constant) and lv.value in ("row_major", "column_major")):
            raise chk.error('layout must be "row_major" or "column_major"', lv, "shared-decl")
        layout = lv.value
    return ArrayType(dtype, len(shape), "shared", tuple(shape), layout)
