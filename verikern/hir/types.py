"""HIR types: machine scalars (shared with MIR), vectors, matrices,
quaternions and rigid transforms (float32 by default; Warp's vec3d, vec2h,
vec4i, quatd, transformd, ... have other component types), and arrays (global
parameters or shared).

Invariant: every HIR expression has exactly one of these types; vector-like
types are value types of `dtype` components that MIR expands to scalars
(component order: vectors x, y, z, w; matrices row-major; quat x, y, z, w;
transform p.x, p.y, p.z, q.x, q.y, q.z, q.w, Warp's memory layout of 7
scalars). Warp's spatial_vector and spatial_matrix are its 6-vector and 6x6
matrix (Warp's types_equal makes them equal to vec(6)/mat(6, 6)), so they are
plain vector and matrix types here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from verikern.mir.types import (
    HELD_LENGTHS,
    BOOL, F16, F32, F64, I8, I16, I32, I64, SCALAR_TYPES, U8, U16, U32, U64,
    ScalarType,
)

__all__ = [
    "BOOL", "F16", "F32", "F64", "I8", "I16", "I32", "I64", "U8", "U16", "U32",
    "U64", "SCALAR_TYPES", "ScalarType", "VectorType", "MatrixType", "ArrayType",
    "HirType", "TupleType", "VECTOR_TYPES", "MATRIX_TYPES", "QUAT", "is_vectorlike",
    "component_count", "inner_shape", "type_name", "vector_type", "matrix_type", "quat_type",
    "is_quat", "DTYPE_SUFFIX", "TRANSFORM", "transform_type", "is_transform", "is_plain_vector",
    "named_parts", "StructType", "struct_leaves", "UnmodelledField", "StructArrayType",
    "HELD_LENGTHS", "struct_array_leaves",
]


@dataclass(frozen=True)
class VectorType:
    """A vector (vec2, vec3d, vec(length=N, dtype=T)), a quat (4 components)
    or a transform (7 components: p then q): `length` components of `dtype`;
    the name tells a quat or a transform from a plain vector."""

    name: str
    length: int
    dtype: ScalarType = F32

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class MatrixType:
    """A matrix: rows x cols components of `dtype`, row-major."""

    name: str
    rows: int
    cols: int
    dtype: ScalarType = F32

    def __str__(self) -> str:
        return self.name


ElementType = Union[ScalarType, VectorType, MatrixType]


@dataclass(frozen=True)
class ArrayType:
    """An array: global (a kernel/func parameter; lengths read at run time) or
    shared (declared in a kernel; `shape` constant)."""

    dtype: ElementType
    ndim: int
    space: str = "global"
    shape: tuple[int, ...] | None = None
    layout: str = "row_major"

    def __str__(self) -> str:
        if self.space == "shared":
            lay = "" if self.layout == "row_major" else f", {self.layout}"
            return f"shared<{type_name(self.dtype)}, {self.shape}{lay}>"
        return f"array<{type_name(self.dtype)}, {self.ndim}>"


@dataclass(frozen=True)
class TupleType:
    """What a @func returns with `return a, b` (Warp's tuple returns): only
    ever unpacked at the call (`x, y = f(...)`); its components are the
    elements' components in order."""

    elems: tuple

    def __str__(self) -> str:
        return "tuple[" + ", ".join(type_name(t) for t in self.elems) + "]"


@dataclass(frozen=True)
class StructType:
    """A Warp struct (`@wp.struct class S`): named fields of any type here
    (scalars, vectors, matrices, arrays, other structs), in declaration
    order. Never a MIR value: the checker flattens a struct variable into
    one variable per leaf field, named by its dotted path (`s.pos`,
    `s.inner.n`; see `struct_leaves`)."""

    name: str
    fields: tuple[tuple[str, "HirType | UnmodelledField | StructArrayType"], ...]

    def __str__(self) -> str:
        return self.name

    def field(self, name: str):
        return dict(self.fields).get(name)


@dataclass(frozen=True)
class UnmodelledField:
    """The type of a struct field verikern keeps out of its model (an array of
    a struct whose elements hold arrays: warp-simdata's `ngon_n_blocks:
    wp.array(dtype=UGDatasetHandle)`). It has no leaf, so no parameter and no
    launch value; a body that reaches it is a located error carrying `reason`
    and `hint` (frontend/check/structs.py), so a kernel that never touches it
    is modelled exactly and one that does is refused."""

    reason: str
    hint: str

    def __str__(self) -> str:
        return "unmodelled field"


@dataclass(frozen=True)
class StructArrayType:
    """A struct field that is a 1-d array of `elem` structs (warp-simdata's
    `ngon_n_blocks: wp.array(dtype=UGDatasetHandle)`). Its leaves (see
    `struct_array_leaves`) are one array per leaf field of `elem`: a value
    field `f` is the 1-d array `.f`; an array field `h` (a *held* array,
    1-d) is the padded 2-d array `.h` of shape [n, W], row b holding
    element b's array, with the int32 lengths `.h.len` [n] (every length in
    0..W, a kernel contract: frontend/check/held_arrays.py)."""

    elem: StructType
    ndim: int = 1

    def __str__(self) -> str:
        return f"array<{self.elem.name}, {self.ndim}>"


def struct_array_leaves(elem: StructType, prefix: str, ndim: int = 1) -> list[tuple[str, "HirType"]]:
    """The leaves of an array of `elem` structs named `prefix` (see
    StructArrayType): value fields as arrays of `ndim` dimensions, each held
    1-d array as its padded `ndim + 1`-d array then its lengths."""
    out: list[tuple[str, HirType]] = []
    for name, lt in struct_leaves(elem, prefix):
        if isinstance(lt, ArrayType):
            out.append((name, ArrayType(lt.dtype, ndim + lt.ndim)))
            out.append((f"{name}.{HELD_LENGTHS}", ArrayType(I32, ndim)))
        elif isinstance(lt, (ScalarType, VectorType, MatrixType)):
            out.append((name, ArrayType(lt, ndim)))
    return out


def struct_leaves(t: StructType, prefix: str) -> list[tuple[str, "HirType"]]:
    """(dotted name, type) of every non-struct field of `t`, depth first in
    declaration order, each name starting with `prefix` (an UnmodelledField
    has none; a StructArrayType has its `struct_array_leaves`)."""
    out: list[tuple[str, HirType]] = []
    for name, ft in t.fields:
        if isinstance(ft, StructType):
            out += struct_leaves(ft, f"{prefix}.{name}")
        elif isinstance(ft, StructArrayType):
            out += struct_array_leaves(ft.elem, f"{prefix}.{name}", ft.ndim)
        elif not isinstance(ft, UnmodelledField):
            out.append((f"{prefix}.{name}", ft))
    return out


HirType = Union[ScalarType, VectorType, MatrixType, ArrayType, TupleType, StructType]

VECTOR_TYPES = {n: VectorType(n, k) for n, k in (("vec2", 2), ("vec3", 3), ("vec4", 4))}
QUAT = VectorType("quat", 4)
MATRIX_TYPES = {n: MatrixType(n, k, k) for n, k in (("mat22", 2), ("mat33", 3), ("mat44", 4))}


#: Warp's type-name suffixes of vector/matrix component types (vec3d, vec2h, vec4i, ...)
DTYPE_SUFFIX = {F16: "h", F32: "f", F64: "d", I8: "b", U8: "ub", I16: "s", U16: "us", I32: "i",
                U32: "ui", I64: "l", U64: "ul"}


def vector_type(length: int, dtype: ScalarType = F32) -> VectorType:
    """The vector type of `length` components of `dtype` (float32: vec2..vec4)."""
    if dtype == F32 and f"vec{length}" in VECTOR_TYPES:
        return VECTOR_TYPES[f"vec{length}"]
    return VectorType(f"vec{length}{DTYPE_SUFFIX[dtype]}", length, dtype)


def matrix_type(rows: int, cols: int, dtype: ScalarType = F32) -> MatrixType:
    """The matrix type rows x cols of `dtype` (float32: mat22..mat44)."""
    if dtype == F32 and rows == cols and f"mat{rows}{cols}" in MATRIX_TYPES:
        return MATRIX_TYPES[f"mat{rows}{cols}"]
    return MatrixType(f"mat{rows}{cols}{DTYPE_SUFFIX[dtype]}", rows, cols, dtype)


def quat_type(dtype: ScalarType = F32) -> VectorType:
    return QUAT if dtype == F32 else VectorType(f"quat{DTYPE_SUFFIX[dtype]}", 4, dtype)


def transform_type(dtype: ScalarType = F32) -> VectorType:
    """Warp's transformation(dtype): a vec3 `p` and a quat `q`, 7 components."""
    return TRANSFORM if dtype == F32 else VectorType(f"transform{DTYPE_SUFFIX[dtype]}", 7, dtype)


TRANSFORM = VectorType("transform", 7)


def is_quat(t) -> bool:
    return isinstance(t, VectorType) and t.name.startswith("quat")


def is_transform(t) -> bool:
    return isinstance(t, VectorType) and t.name.startswith("transform")


def is_plain_vector(t) -> bool:
    """A vector that is neither a quat nor a transform (what dot, length,
    matrix products and component-wise builtins take)."""
    return isinstance(t, VectorType) and not is_quat(t) and not is_transform(t)


_VECTOR_FIELDS = ("x", "y", "z", "w")


def named_parts(t) -> dict[str, tuple[int, int, "HirType"]]:
    """The attributes of a vector-like value: name -> (first component,
    count, type). Vectors and quats: x, y, z, w (those it has); transforms:
    p (a vec3) and q (a quat)."""
    if is_transform(t):
        return {"p": (0, 3, vector_type(3, t.dtype)), "q": (3, 4, quat_type(t.dtype))}
    if isinstance(t, VectorType):
        return {f: (k, 1, t.dtype) for k, f in enumerate(_VECTOR_FIELDS[:t.length])}
    return {}


def is_vectorlike(t) -> bool:
    return isinstance(t, (VectorType, MatrixType))


def component_count(t) -> int:
    """Number of MIR scalars a value of type `t` expands to."""
    if isinstance(t, VectorType):
        return t.length
    if isinstance(t, MatrixType):
        return t.rows * t.cols
    if isinstance(t, TupleType):
        return sum(component_count(e) for e in t.elems)
    return 1


def inner_shape(t) -> tuple[int, ...]:
    """Trailing constant dimensions an element type adds to an array."""
    if isinstance(t, VectorType):
        return (t.length,)
    if isinstance(t, MatrixType):
        return (t.rows, t.cols)
    return ()


def type_name(t) -> str:
    return str(t) if t is not None else "None"
