"""Parameter annotations -> HIR types (`vk.float32`, `int`, `vk.vec3`,
`vk.array(dtype=..., ndim=...)`, Warp's `wp.array2d(dtype=...)`).

Invariant: only the spellings listed in docs/LANGUAGE.md section 2 (and their
Warp equivalents) are accepted; anything else is an `annotation` KernelError.
"""
from __future__ import annotations

import ast

from verikern.hir.types import (
    BOOL, ArrayType, ScalarType, TupleType, matrix_type, quat_type, transform_type, vector_type,
)
from .constants import NotConstant, eval_module_constant
from .name_origins import explain
from .type_names import SCALAR_ALIASES, value_type_by_name

ARRAY_CTORS = {"array": None, "array1d": 1, "array2d": 2, "array3d": 3, "array4d": 4}


def is_any(info, node) -> bool:
    """`Any` / `typing.Any` (a generic parameter), or an array of `Any`."""
    if node is None:
        return False
    if isinstance(node, ast.Name) and node.id == "Any":
        return True
    if isinstance(node, ast.Attribute) and node.attr == "Any":
        return True
    if isinstance(node, ast.Subscript) and info.dsl_name(node.value) in ARRAY_CTORS:
        first = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) else node.slice
        return is_any(info, first)
    if isinstance(node, ast.Call) and info.dsl_name(node.func) in ARRAY_CTORS:
        dt = next((k.value for k in node.keywords if k.arg == "dtype"),
                  node.args[0] if node.args else None)
        return dt is None or is_any(info, dt)
    return False


def value_type(info, node: ast.AST, _depth: int = 0):
    """A scalar/vector/matrix type written in the source, or None: a name
    (`float`, `wp.vec3d`), `wp.types.vector(length=3, dtype=float)`,
    `wp.types.matrix(shape=(3, 3), dtype=float)`, `wp.types.quaternion(dtype=...)`,
    `wp.types.transformation(dtype=...)`,
    or a module-level alias of one of these."""
    if isinstance(node, ast.Name) and node.id in SCALAR_ALIASES:
        return SCALAR_ALIASES[node.id]
    if isinstance(node, ast.Name) and node.id in info.type_aliases and _depth < 8:
        return value_type(info, info.type_aliases[node.id], _depth + 1)
    if isinstance(node, ast.Call):
        return _type_constructor(info, node, _depth)
    name = info.dsl_name(node)
    if name is not None:
        return value_type_by_name(name)
    return None


def subclassed_type(cls: ast.ClassDef, info) -> ast.expr | None:
    """The base of `class vec1f(vector(length=1, dtype=wp.float32)): pass` (Warp's
    own way to name a vector or matrix type: the class is that type), when the
    class has one base that is a type, no decorator, keyword or metaclass, and a
    body of `pass`, `...` or a docstring; else None."""
    if cls.decorator_list or cls.keywords or len(cls.bases) != 1 \
            or value_type(info, cls.bases[0]) is None:
        return None
    if all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
           for s in cls.body):
        return cls.bases[0]
    return None


_TYPE_CTORS = {"types.vector": ("length", "dtype"), "vector": ("length", "dtype"),
               "vec": ("length", "dtype"), "types.matrix": ("shape", "dtype"),
               "matrix": ("shape", "dtype"), "mat": ("shape", "dtype"),
               "types.quaternion": ("dtype",), "quaternion": ("dtype",),
               "types.transformation": ("dtype",), "transformation": ("dtype",)}


def _type_constructor(info, node: ast.Call, depth: int):
    name = info.dsl_name(node.func)
    params = _TYPE_CTORS.get(name)
    if params is None or len(node.args) > len(params):
        return None
    if any(k.arg is None for k in node.keywords):   # `**options`: not a type we can read
        return None
    kw = dict(zip(params, node.args))
    kw.update({k.arg: k.value for k in node.keywords if k.arg is not None})
    if set(kw) - set(params) or "dtype" not in kw:
        return None
    dtype = value_type(info, kw["dtype"], depth + 1)
    if not isinstance(dtype, ScalarType) or dtype == BOOL:
        return None
    if params[0] == "dtype" and not dtype.is_float:
        return None
    if params[0] == "dtype":
        return quat_type(dtype) if name.endswith("quaternion") else transform_type(dtype)
    try:
        size = eval_module_constant(kw[params[0]], info)
    except (NotConstant, KeyError):
        return None
    if params[0] == "length" and isinstance(size, int) and 1 <= size <= 64:
        return vector_type(size, dtype)
    if params[0] == "shape" and isinstance(size, tuple) and len(size) == 2 and \
            all(isinstance(x, int) and 1 <= x <= 16 for x in size) and dtype.is_float:
        return matrix_type(size[0], size[1], dtype)
    return None


def parse_annotation(chk, node: ast.AST | None, what: str):
    """The HIR type of an annotation; `what` names the thing annotated."""
    if node is None:
        raise chk.error(f"{what} needs a type annotation", chk.current_node, "annotation",
                        "annotate it, e.g. `x: vk.float32` or `a: vk.array(dtype=vk.float32)`")
    t = value_type(chk.info, node)
    if t is not None:
        return t
    if isinstance(node, ast.Call):
        name = chk.info.dsl_name(node.func)
        if name in ARRAY_CTORS:
            return _array_type(chk, node, ARRAY_CTORS[name], what)
    if isinstance(node, ast.Subscript):
        name = chk.info.dsl_name(node.value)
        if name in ARRAY_CTORS:
            return _subscript_array_type(chk, node, ARRAY_CTORS[name], what)
        base = node.value
        base_name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", None)
        if base_name in ("tuple", "Tuple") and what.startswith("the result"):
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            elems = tuple(parse_annotation(chk, p, what) for p in parts)
            if any(isinstance(e, (ArrayType, TupleType)) for e in elems):
                raise chk.error("a tuple result holds scalars, vectors and matrices only", node,
                                "annotation")
            return TupleType(elems)
    why = explain(chk.info, node)
    if why is not None:
        raise chk.error(f"the type annotation `{ast.unparse(node)}` for {what} is not one type: {why}",
                        node, "annotation", _CHOSEN_HINT)
    raise chk.error(f"unknown type annotation `{ast.unparse(node)}` for {what}", node,
                    "annotation",
                    "use a verikern type: vk.float32, vk.int32, int, float, vk.vec3, vk.array(...)")


#: what to do about a type the module chooses when it runs (name_origins.py)
_CHOSEN_HINT = ("verikern proves a kernel for types it can read: bind the name once to one type "
                "(`scalar_t = wp.float32`) to prove the kernels for that type, or make the "
                "parameter generic (`Any`) to prove them for every type")


def _unknown_dtype(chk, node: ast.AST):
    """The located error for an array dtype that is no type verikern can read."""
    why = explain(chk.info, node)
    if why is not None:
        return chk.error(f"the array dtype `{ast.unparse(node)}` is not one type: {why}", node,
                         "annotation", _CHOSEN_HINT)
    return chk.error(f"unknown array dtype `{ast.unparse(node)}`", node,
                     "annotation", "use a scalar, vector or matrix type")


def _literal_int(chk, node):
    """`2` or `Literal[2]` / `typing.Literal[2]` as an int, else None."""
    if isinstance(node, ast.Subscript):
        base = node.value
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", None)
        if name == "Literal":
            node = node.slice
    try:
        v = chk.const_eval(node)
    except Exception:
        return None
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _subscript_array_type(chk, node: ast.Subscript, fixed_ndim, what) -> ArrayType:
    """Warp 1.19's `wp.array[T]`, `wp.array[T, Literal[N]]`, `wp.array2d[T]`."""
    parts = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    if len(parts) > 2 or (len(parts) == 2 and fixed_ndim is not None):
        raise chk.error(f"unsupported array annotation `{ast.unparse(node)}`", node,
                        "annotation", "write wp.array[T] or wp.array[T, Literal[N]]")
    dtype = value_type(chk.info, parts[0])
    if dtype is None:
        raise _unknown_dtype(chk, parts[0])
    ndim = fixed_ndim or 1
    if len(parts) == 2:
        ndim = _literal_int(chk, parts[1])
        if ndim is None or not 1 <= ndim <= 4:
            raise chk.error("ndim must be a constant 1..4", parts[1], "annotation")
    return ArrayType(dtype, ndim)


def _array_type(chk, node: ast.Call, fixed_ndim, what) -> ArrayType:
    kw = {k.arg: k.value for k in node.keywords}
    args = list(node.args)
    if args:
        kw.setdefault("dtype", args[0])
    if set(kw) - {"dtype", "ndim"} or len(args) > 1:
        raise chk.error(f"unsupported array options in `{ast.unparse(node)}`", node, "annotation",
                        "write vk.array(dtype=T, ndim=N)")
    if "dtype" not in kw:
        raise chk.error(f"the array {what} needs a dtype", node, "annotation",
                        "write vk.array(dtype=vk.float32)")
    dtype = value_type(chk.info, kw["dtype"])
    if dtype is None:
        raise _unknown_dtype(chk, kw["dtype"])
    ndim = fixed_ndim or 1
    if "ndim" in kw:
        try:
            ndim = chk.const_eval(kw["ndim"])
        except Exception:
            ndim = None
        if not isinstance(ndim, int) or not 1 <= ndim <= 4 or \
                (fixed_ndim is not None and ndim != fixed_ndim):
            raise chk.error("ndim must be a constant 1..4", kw["ndim"], "annotation")
    return ArrayType(dtype, ndim)
