"""Instances of a generic kernel that only a vector-like typing type-checks
(docs/LANGUAGE.md section 1): `positions` a vec3 array, `cell` a mat33, or a
kernel whose linked parameters have too many typings to enumerate but one
typing to start from (check/generic_kernels.py).

Without them such a kernel has no instance at all, only `kernel[...]`, so
nothing of it reaches MIR. With them it is proved for the typing the
enumeration found (float32-based: vec3, mat33, quat, float32 scalars) and
for the same typing with every float32 component float64 (vec3d, mat33d,
float64), the precision a project declares beside float32 when it declares
any -- each only when the checker accepts it -- while `kernel[...]` keeps
standing for every other instantiation, `unknown` unless the type-oblivious
proof covers it.

Invariants:
- a typing given here is one the caller type-checks before making it an
  instance, so an instance is a typing the checker accepts (which applies
  Warp's literal rule in generic typings; tests/frontend/
  test_fe_generic_probed.py has real Warp build and run the shapes found
  here); a typing the checker refuses is dropped, never made an instance;
- the instances only add verdicts: `kernel[...]` stays for every other
  instantiation, so the kernel is proved as a whole only when the
  type-oblivious proof covers them all;
- at most MAX_PROBED typings per kernel, in a fixed order (the found typing,
  then its float64 twin): bounded and deterministic;
- a typing premise's pins are kept: a twin whose pinned parameter's type the
  premise does not admit is not given.
"""
from __future__ import annotations

import dataclasses

from ..scan.annotations import value_type

from verikern.hir.types import (
    F32, F64, ArrayType, MatrixType, VectorType, is_quat, is_transform, matrix_type, quat_type,
    transform_type, vector_type,
)

#: the most typings made instances this way per kernel: the found one and its float64 twin
MAX_PROBED = 2
#: the most vector and matrix types of the kernel's own module the start search adds
MAX_MODULE_TYPES = 4


def float64_of(t):
    """`t` with its float32 scalar (or float32 components, or float32 array elements)
    float64; any other type (an integer vector, a float16 scalar, ...) unchanged."""
    if t == F32:
        return F64
    if isinstance(t, MatrixType) and t.dtype == F32:
        return matrix_type(t.rows, t.cols, F64)
    if isinstance(t, VectorType) and t.dtype == F32:
        if is_quat(t):
            return quat_type(F64)
        if is_transform(t):
            return transform_type(F64)
        return vector_type(t.length, F64)
    if isinstance(t, ArrayType):
        return dataclasses.replace(t, dtype=float64_of(t.dtype))
    return t


def probed_typings(found: dict, pins: dict) -> list[dict]:
    """The typings to make instances of, given `found` (param -> HIR type, a typing the
    enumeration saw type-check): `found`, then its float64 twin when it differs and every
    pinned parameter's twin is one its pins admit (`pins`: param -> admitted types)."""
    out = [dict(found)]
    twin = {p: float64_of(t) for p, t in found.items()}
    if twin != found and all(twin[p] in admitted for p, admitted in pins.items() if p in twin):
        out.append(twin)
    return out[:MAX_PROBED]


def module_vector_types(info, tried: list) -> list:
    """The vector and matrix types the kernel's module names at module level (`vec9f =
    wp.types.vector(length=9, dtype=wp.float32)`: nvalchemi's pressure tensors), in
    source order, at most MAX_MODULE_TYPES, without those in `tried` (the candidates
    already tried, an array's element type counted): the typing to start from is also
    searched with them (generic_start.py), since a module that names a type launches its
    kernels with it. Only types the annotation reader reads are given."""
    seen = {t.dtype if isinstance(t, ArrayType) else t for t in tried}
    out = []
    for node in info.type_aliases.values():
        t = value_type(info, node)
        if isinstance(t, (VectorType, MatrixType)) and t not in seen and t not in out:
            out.append(t)
    return out[:MAX_MODULE_TYPES]
