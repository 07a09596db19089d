"""Generic kernels (`typing.Any` parameters) typed from their launch sites in
the same file: instances beside the wp.overloads and the enumerated scalar
typings (check/generic_kernels.py).

Invariant: a launch site gives an instance only when every argument's type
is certain from the source: a literal (int -> int32, float -> float32, bool),
a typed constructor (`wp.float64(...)`, `wp.vec3(...)`), or an array made by
`wp.zeros/ones/empty/full(shape, dtype=T)` or `wp.array(..., dtype=T)` with a
literal shape (or flat list or tuple data), directly or through a name bound once in the
same function. Anything else skips the site (never a guessed type); distinct
type tuples give distinct instances, in source order.
"""
from __future__ import annotations

import ast

from verikern.hir.types import BOOL, F32, I32, ArrayType, ScalarType
from .annotations import value_type

_MAKERS = {"zeros": 0, "ones": 0, "empty": 0, "full": 0}


def collect(tree: ast.Module, info) -> None:
    """Record every `wp.launch(kernel, ...)` with its enclosing function."""
    def walk(node, fn):
        for child in ast.iter_child_nodes(node):
            inner = child if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else fn
            if isinstance(child, ast.Call) and info.dsl_name(child.func) == "launch":
                target = child.args[0] if child.args else next(
                    (k.value for k in child.keywords if k.arg == "kernel"), None)
                if isinstance(target, ast.Name):
                    info.launch_sites.setdefault(target.id, []).append((child, fn))
            walk(child, inner)
    walk(tree, None)


def _bindings(fn) -> dict:
    """name -> its value, for names bound exactly once by `name = value` in `fn`."""
    if fn is None:
        return {}
    seen: dict = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            seen.setdefault(n.targets[0].id, []).append(n.value)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For)):
            t = getattr(n, "target", None)
            if isinstance(t, ast.Name):
                seen.setdefault(t.id, []).extend([None, None])
    return {k: v[0] for k, v in seen.items() if len(v) == 1}


def _ndim(node, bindings, depth) -> int | None:
    if isinstance(node, ast.Name) and node.id in bindings and depth < 4:
        return _ndim(bindings[node.id], bindings, depth + 1)
    if isinstance(node, ast.Tuple):
        return len(node.elts) if 1 <= len(node.elts) <= 4 else None
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return 1
    return None


def arg_type(info, node, bindings, depth=0):
    """The certain type of a launch argument, or None."""
    if isinstance(node, ast.Name) and node.id in bindings and depth < 4:
        return arg_type(info, bindings[node.id], bindings, depth + 1)
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, bool):
            return BOOL
        if isinstance(v, int) and I32.min_value <= v <= I32.max_value:
            return I32
        if isinstance(v, float):
            return F32
        return None
    if not isinstance(node, ast.Call):
        return None
    name = info.dsl_name(node.func)
    t = value_type(info, node.func)
    if t is not None and not isinstance(t, ArrayType):
        return t
    kw = {k.arg: k.value for k in node.keywords}
    dtype = value_type(info, kw["dtype"]) if "dtype" in kw else None
    if dtype is None or isinstance(dtype, ArrayType) or (isinstance(dtype, ScalarType)
                                                         and False):
        return None
    if name in _MAKERS:
        shape = kw.get("shape", node.args[0] if node.args else None)
        nd = _ndim(shape, bindings, depth) if shape is not None else None
        return ArrayType(dtype, nd) if nd else None
    if name == "array":
        if "shape" in kw:
            nd = _ndim(kw["shape"], bindings, depth)
        elif node.args and isinstance(node.args[0], (ast.List, ast.Tuple)) and not any(
                isinstance(e, (ast.List, ast.Tuple)) for e in node.args[0].elts):
            nd = 1
        else:
            nd = None
        return ArrayType(dtype, nd) if nd else None
    return None


def instances(info, kernel_node) -> list[dict]:
    """[{param name: HIR type}] for a generic kernel, one per distinct typing."""
    params = [a.arg for a in kernel_node.args.args]
    out, seen = [], set()
    for call, fn in info.launch_sites.get(kernel_node.name, []):
        kw = {k.arg: k.value for k in call.keywords}
        values: list[ast.expr] = []
        listed = True   # every argument list is written out (a list or tuple display)
        for key in ("inputs", "outputs"):
            v = kw.get(key)
            if v is None and key == "inputs" and len(call.args) >= 3:
                v = call.args[2]
            if v is None:
                continue
            if not isinstance(v, (ast.List, ast.Tuple)):
                listed = False
                break
            values.extend(v.elts)
        if not listed or len(values) != len(params):
            continue
        bindings = _bindings(fn)
        types = [arg_type(info, v, bindings) for v in values]
        if any(t is None for t in types):
            continue
        typing = tuple(types)
        if typing not in seen:
            seen.add(typing)
            out.append(dict(zip(params, types)))
    return out
