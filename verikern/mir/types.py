"""Scalar machine types shared by HIR and MIR.

Invariant: a `ScalarType` is identified by its name; there is exactly one
instance per name (compare with `==` or `is`, both work).  Every MIR value has
one of these types; vectors, matrices and quaternions never reach MIR.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ScalarType:
    """A machine scalar: `kind` is 'bool', 'int' (signed), 'uint' or 'float'."""

    name: str
    kind: str
    bits: int

    @property
    def is_int(self) -> bool:
        """Signed or unsigned integer (bool excluded)."""
        return self.kind in ("int", "uint")

    @property
    def is_signed(self) -> bool:
        return self.kind == "int"

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_bool(self) -> bool:
        return self.kind == "bool"

    @property
    def np_dtype(self) -> np.dtype:
        return np.dtype(_NUMPY_NAMES[self.name])

    @property
    def min_value(self) -> int:
        if self.kind == "int":
            return -(1 << (self.bits - 1))
        return 0

    @property
    def max_value(self) -> int:
        if self.kind == "int":
            return (1 << (self.bits - 1)) - 1
        if self.kind == "uint":
            return (1 << self.bits) - 1
        if self.kind == "bool":
            return 1
        raise TypeError(f"{self.name} has no integer range")

    def wrap(self, value: int) -> int:
        """Reduce a Python int to this integer type with two's-complement wrap."""
        if self.kind == "bool":
            return int(bool(value))
        mask = (1 << self.bits) - 1
        value &= mask
        if self.kind == "int" and value >= (1 << (self.bits - 1)):
            value -= 1 << self.bits
        return value

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return self.name


BOOL = ScalarType("bool", "bool", 1)
I8 = ScalarType("int8", "int", 8)
I16 = ScalarType("int16", "int", 16)
I32 = ScalarType("int32", "int", 32)
I64 = ScalarType("int64", "int", 64)
U8 = ScalarType("uint8", "uint", 8)
U16 = ScalarType("uint16", "uint", 16)
U32 = ScalarType("uint32", "uint", 32)
U64 = ScalarType("uint64", "uint", 64)
F16 = ScalarType("float16", "float", 16)
F32 = ScalarType("float32", "float", 32)
F64 = ScalarType("float64", "float", 64)

SCALAR_TYPES: dict[str, ScalarType] = {
    t.name: t for t in (BOOL, I8, I16, I32, I64, U8, U16, U32, U64, F16, F32, F64)
}

_NUMPY_NAMES = {
    "bool": "bool",
    "int8": "int8",
    "int16": "int16",
    "int32": "int32",
    "int64": "int64",
    "uint8": "uint8",
    "uint16": "uint16",
    "uint32": "uint32",
    "uint64": "uint64",
    "float16": "float16",
    "float32": "float32",
    "float64": "float64",
}


#: the suffix of the leaf that holds the lengths of a held array's rows
#: (`blocks.data` -> `blocks.data.len`; an array leaf has no fields, so no
#: struct field can take this name)
HELD_LENGTHS = "len"
