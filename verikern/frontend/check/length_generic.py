"""Annotations generic over a vector's length or a matrix's shape, with a fixed
component type: `vector(length=Any, dtype=T)` (and `vector(dtype=T)`, whose
length defaults to Any in Warp 1.19), `matrix(shape=(Any, Any), dtype=T)`, and
arrays of them (`wp.array(dtype=vector(dtype=scalar_t, length=Any))`,
warpSPHCore's `vecArray_t` with its default `dim_t`).

Warp 1.19 treats such a func parameter as a template: a call picks it when the
argument is a vector (a matrix) of that component type, whatever its length (a
quat or transform is no match: Warp compares the generic type, `vec_t` against
`quat_t`), and the func is built for the argument's type. A kernel parameter
so annotated makes the kernel generic over the length: Warp builds one per
length it is launched with.

Invariant: `takes` is exactly Warp's match of an argument type against the
pattern (component type equal, any length or shape; an array pattern takes any
array of such elements, as Warp does not compare the ndim when it chooses);
`instance(n)` is the concrete type of length n (n x n for a matrix).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from verikern.hir.types import (
    BOOL, ArrayType, MatrixType, ScalarType, VectorType, matrix_type, vector_type,
)
from ..scan.annotations import ARRAY_CTORS, value_type
from ..scan.runtime_lengths import MAX_ALIAS_LINKS, length_alias, runtime_length

_VECTOR = ("vector", "types.vector", "vec")
_MATRIX = ("matrix", "types.matrix", "mat")


@dataclass(frozen=True)
class LengthPattern:
    """A vector (`kind` "vector") or square-or-not matrix ("matrix") of `dtype`
    of any size; `ndim` set: an array of them with that ndim (None: the array's
    ndim is read as written, 1 by default)."""

    kind: str
    dtype: ScalarType
    ndim: int | None = None
    is_array: bool = False

    def takes(self, t) -> bool:
        if self.is_array:
            return isinstance(t, ArrayType) and self._element(t.dtype)
        return self._element(t)

    def _element(self, t) -> bool:
        if self.kind == "vector":
            return isinstance(t, VectorType) and t.name.startswith("vec") and t.dtype == self.dtype
        return isinstance(t, MatrixType) and t.dtype == self.dtype

    def instance(self, n: int):
        element = vector_type(n, self.dtype) if self.kind == "vector" else matrix_type(n, n, self.dtype)
        return ArrayType(element, self.ndim or 1) if self.is_array else element

    def __str__(self) -> str:
        inner = (f"vector(length=Any, dtype={self.dtype})" if self.kind == "vector"
                 else f"matrix(shape=(Any, Any), dtype={self.dtype})")
        return f"array(dtype={inner}, ndim={self.ndim or 1})" if self.is_array else inner


def _is_any(info, node) -> bool:
    """`Any`, or a length read at run time (scan/runtime_lengths.py: `dim_t`)."""
    return (isinstance(node, ast.Name) and node.id == "Any") or \
        (isinstance(node, ast.Attribute) and node.attr == "Any") or runtime_length(info, node) is not None


def _followed(info, node):
    """(module, expression) after following module-level names bound once to
    an expression (`vecArray_t` -> `wp.array(dtype=vec_t)` in type_config)."""
    for _ in range(MAX_ALIAS_LINKS):
        found = length_alias(info, node)
        if found is None:
            break
        info, node = found
    return info, node


def _element_pattern(info, node) -> LengthPattern | None:
    info, node = _followed(info, node)
    if not isinstance(node, ast.Call) or any(k.arg is None for k in node.keywords):
        return None
    name = info.dsl_name(node.func)
    kind = "vector" if name in _VECTOR else "matrix" if name in _MATRIX else None
    if kind is None or len(node.args) > 2:
        return None
    size_name = "length" if kind == "vector" else "shape"
    kw = dict(zip((size_name, "dtype"), node.args))
    kw.update({k.arg: k.value for k in node.keywords if k.arg is not None})
    if set(kw) - {size_name, "dtype"} or "dtype" not in kw:
        return None
    size = kw.get(size_name)
    if kind == "vector" and not (size is None or _is_any(info, size)):
        return None
    if kind == "matrix" and not (isinstance(size, ast.Tuple) and len(size.elts) == 2
                                 and all(_is_any(info, e) for e in size.elts)):
        return None
    dtype = value_type(info, kw["dtype"])
    if not isinstance(dtype, ScalarType) or dtype == BOOL:
        return None
    return LengthPattern(kind, dtype)


def length_generic(info, node) -> LengthPattern | None:
    """The pattern an annotation writes (module docstring), else None."""
    if node is None:
        return None
    info, node = _followed(info, node)
    found = _element_pattern(info, node)
    if found is not None:
        return found
    if isinstance(node, ast.Call) and info.dsl_name(node.func) in ARRAY_CTORS:
        kw = {k.arg: k.value for k in node.keywords}
        dtype = kw.get("dtype", node.args[0] if node.args else None)
        element = _element_pattern(info, dtype) if dtype is not None else None
        if element is None or set(kw) - {"dtype", "ndim"}:
            return None
        ndim = ARRAY_CTORS[info.dsl_name(node.func)]
        given = kw.get("ndim")
        if given is not None:
            if not (isinstance(given, ast.Constant) and isinstance(given.value, int)):
                return None
            ndim = given.value
        return LengthPattern(element.kind, element.dtype, ndim, True)
    if isinstance(node, ast.Subscript) and info.dsl_name(node.value) in ARRAY_CTORS \
            and not isinstance(node.slice, ast.Tuple):
        element = _element_pattern(info, node.slice)
        if element is not None:
            return LengthPattern(element.kind, element.dtype, ARRAY_CTORS[info.dsl_name(node.value)], True)
    return None
