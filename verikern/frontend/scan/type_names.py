"""The names of value types as the source spells them (verikern's and Warp's:
`float32`, `vec3`, `vec3f`, `mat33d`, `quath`, `transformd`,
`spatial_vector`, `spatial_matrixf`, `int`), and float rounding to a type's
precision: what reading annotations and module constants needs.

Invariant: `value_type_by_name` returns a type only for a name Warp 1.19
defines (or verikern's own spelling of it), else None; it never guesses.
"""
from __future__ import annotations

import re

import numpy as np

from verikern.hir.types import (
    BOOL, DTYPE_SUFFIX, F16, F32, I32, MATRIX_TYPES, QUAT, SCALAR_TYPES, VECTOR_TYPES,
    ScalarType, matrix_type, quat_type, transform_type, vector_type,
)

SCALAR_ALIASES = {"int": I32, "float": F32, "bool": BOOL}
# Warp spellings of the same types
EXTRA_TYPE_NAMES = {"vec2f": VECTOR_TYPES["vec2"], "vec3f": VECTOR_TYPES["vec3"],
                    "vec4f": VECTOR_TYPES["vec4"], "mat22f": MATRIX_TYPES["mat22"],
                    "mat33f": MATRIX_TYPES["mat33"], "mat44f": MATRIX_TYPES["mat44"],
                    "quatf": QUAT, "quat": QUAT}


def value_type_by_name(name: str):
    """A scalar/vector/matrix type by its DSL name, or None."""
    if name in SCALAR_TYPES:
        return SCALAR_TYPES[name]
    if name in VECTOR_TYPES:
        return VECTOR_TYPES[name]
    if name in MATRIX_TYPES:
        return MATRIX_TYPES[name]
    if name in EXTRA_TYPE_NAMES:
        return EXTRA_TYPE_NAMES[name]
    m = _RIGID_TYPE_NAME.match(name)
    if m is not None:   # transform*, spatial_vector*, spatial_matrix*: floats only
        precision = _SUFFIX_DTYPE[m.group(2) or "f"]
        if m.group(1) == "transform":
            return transform_type(precision)
        if m.group(1) == "spatial_vector":
            return vector_type(6, precision)
        return matrix_type(6, 6, precision)
    m = _WARP_TYPE_NAME.match(name)
    if m is None:
        return None
    kind, size, suffix = m.group(1), m.group(2), m.group(3) or "f"
    dtype = _SUFFIX_DTYPE.get(suffix)
    if dtype is None:
        return None
    if kind == "vec":
        return vector_type(int(size), dtype)
    if kind == "quat":
        return quat_type(dtype) if dtype.is_float else None
    if dtype.is_float and size[0] == size[1]:
        return matrix_type(int(size[0]), int(size[1]), dtype)
    return None


_WARP_TYPE_NAME = re.compile(r"^(vec|mat|quat)([2-4]|22|33|44|)(h|f|d|b|ub|s|us|i|ui|l|ul)?$")
_RIGID_TYPE_NAME = re.compile(r"^(transform|spatial_vector|spatial_matrix)(h|f|d)?$")
_SUFFIX_DTYPE = {v: k for k, v in DTYPE_SUFFIX.items()}


def round_float(value: float, t: ScalarType) -> float:
    """`value` rounded to the precision of float type `t` (IEEE: past the type's
    range, an infinity, as the C++ conversion Warp compiles gives; no warning)."""
    with np.errstate(over="ignore"):
        if t == F16:
            return float(np.float16(value))
        if t == F32:
            return float(np.float32(value))
    return float(value)
