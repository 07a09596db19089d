"""Kernel parameters for cuLaunchKernel, per the NVPTX ABI of verikern.backends.llvm.

Invariant: the meaning of each parameter slot comes from `abi_slots(kernel)`
(the documented ABI) and its byte size from the PTX `.entry` declaration
itself; `pack_parameters` refuses (raises `AbiMismatchError`) when the two
disagree in count or a slot's size cannot hold its value, so a drift
between the LLVM lowering and this module can never launch a kernel with
misplaced arguments.
"""
from __future__ import annotations

import ctypes
import re
from typing import Any
from dataclasses import dataclass

import numpy as np

from verikern.errors import VerikernError
from verikern.mir.nodes import Kernel


class AbiMismatchError(VerikernError):
    """The PTX entry's parameters do not match the ABI this runtime packs."""


@dataclass(frozen=True)
class AbiSlot:
    """One kernel parameter: kind is "pointer" (a device address: array `name`'s
    base, or the error-status buffer), "shape" (int32 length of logical
    dimension `dim` of `name`), "scalar" (the scalar parameter `name`, by
    value, in its MIR type), "launch_dim" (int32 length of launch dimension
    `dim`) or "launch_size" (int32 product of the launch dims)."""

    kind: str
    name: str
    dim: int = 0
    dtype: str = ""


@dataclass(frozen=True)
class PtxParam:
    """One `.param` of a PTX `.entry`: its name and size in bytes."""

    name: str
    size: int
    align: int


ERROR_STATUS_WORDS = 8  # int64 words of the status buffer (verikern.backends.llvm.abi)
ERROR_STATUS = "<error_status>"  # its slot name; no source identifier can clash

_SLOT_KINDS = {"array": "pointer", "shape": "shape", "scalar": "scalar",
               "launch_dim": "launch_dim", "launch_size": "launch_size"}


def abi_slots(kernel: Kernel) -> tuple[AbiSlot, ...]:
    """The parameter list of the kernel's `.entry`, in order: the leading
    parameters of verikern.backends.llvm.abi.kernel_params (per source
    parameter an array pointer plus one int32 per logical dimension, or a
    scalar by value; then int32 launch dims and the int32 launch size),
    then the pointer to the int64[8] error-status buffer (named ERROR_STATUS)."""
    from verikern.backends.llvm.abi import kernel_params  # lazy: llvmlite, only to compile

    slots = []
    for p in kernel_params(kernel):
        if p.kind not in _SLOT_KINDS:
            raise AbiMismatchError(f"the LLVM ABI has a parameter kind {p.kind!r} this runtime cannot pack")
        dtype = p.scalar_type.name if p.scalar_type is not None else "int32"
        slots.append(AbiSlot(_SLOT_KINDS[p.kind], p.name or p.kind, p.dim, dtype))
    slots.append(AbiSlot("pointer", ERROR_STATUS, 0, "int64"))
    return tuple(slots)


_ENTRY_RE = re.compile(r"\.entry\s+([A-Za-z_$][\w$]*)\s*\((.*?)\)", re.S)
_PARAM_RE = re.compile(
    r"\.param\s+(?:\.align\s+(\d+)\s+)?\.([a-z]+)(\d+)\b[^,]*?\s([A-Za-z_$][\w$]*)\s*(?:\[(\d+)\])?\s*$")


def ptx_entry_params(ptx: str, entry: str) -> tuple[PtxParam, ...]:
    """The `.param` list of `.entry entry` in `ptx` (sizes in bytes)."""
    for m in _ENTRY_RE.finditer(ptx):
        if m.group(1) != entry:
            continue
        params = []
        for decl in filter(None, (d.strip() for d in m.group(2).split(","))):
            p = _PARAM_RE.search(decl)
            if p is None:
                raise AbiMismatchError(f"cannot read the PTX parameter declaration {decl!r} of {entry}")
            bits = int(p.group(3))
            count = int(p.group(5)) if p.group(5) else 1
            size = bits // 8 * count
            align = int(p.group(1)) if p.group(1) else bits // 8
            params.append(PtxParam(p.group(4), size, align))
        return tuple(params)
    raise AbiMismatchError(f"the PTX has no .entry named {entry}")


#: dtype name -> its ctypes scalar class (constructed from an int or a float by class)
_SCALAR_CTYPES: dict[str, Any] = {
    "bool": ctypes.c_uint8, "int8": ctypes.c_int8, "int16": ctypes.c_int16,
    "int32": ctypes.c_int32, "int64": ctypes.c_int64, "uint8": ctypes.c_uint8,
    "uint16": ctypes.c_uint16, "uint32": ctypes.c_uint32, "uint64": ctypes.c_uint64,
    "float16": ctypes.c_uint16, "float32": ctypes.c_float, "float64": ctypes.c_double,
}


def _scalar_object(dtype: str, value, size: int):
    ctype = _SCALAR_CTYPES[dtype]
    if dtype == "float16":
        obj = ctype(int(np.array(value, dtype=np.float16).view(np.uint16)))
    elif dtype == "bool":
        obj = ctype(1 if value else 0)
    elif dtype.startswith(("int", "uint")):
        obj = ctype(int(np.array(value).astype(np.dtype(dtype))))
    else:
        obj = ctype(float(value))
    if ctypes.sizeof(obj) > size:
        raise AbiMismatchError(f"scalar {dtype} needs {ctypes.sizeof(obj)} bytes, the PTX slot has {size}")
    if ctypes.sizeof(obj) < size:  # widened slot (e.g. bool as .u32): zero-extend
        wide = (ctypes.c_uint8 * size)()
        ctypes.memmove(wide, ctypes.addressof(obj), ctypes.sizeof(obj))
        return wide
    return obj


@dataclass
class PackedParameters:
    """`address` is the void** cuLaunchKernel takes; `objects` keeps its
    pointees alive as long as this object lives."""

    address: int
    objects: list
    values: tuple


def pack_parameters(kernel: Kernel, ptx_params: tuple[PtxParam, ...], *,
                    pointers: dict[str, int], shapes: dict[str, tuple[int, ...]],
                    scalars: dict, dims: tuple[int, ...]) -> PackedParameters:
    """Parameter buffer for one launch (see the module invariant)."""
    slots = abi_slots(kernel)
    if len(slots) != len(ptx_params):
        raise AbiMismatchError(
            f"kernel {kernel.name}: the PTX entry has {len(ptx_params)} parameters but the "
            f"runtime's ABI packs {len(slots)} ({', '.join(s.kind + ':' + s.name for s in slots)})")
    objects: list[Any] = []   # ctypes objects: the scalars and arrays argv points at, then argv
    values: list[Any] = []
    for slot, pparam in zip(slots, ptx_params):
        if slot.kind == "pointer":
            value = int(pointers[slot.name])
            if pparam.size != 8:
                raise AbiMismatchError(f"pointer to {slot.name} needs 8 bytes, the PTX slot has {pparam.size}")
            obj = ctypes.c_uint64(value)
        elif slot.kind == "shape":
            value = int(shapes[slot.name][slot.dim])
            obj = _scalar_object("int32", value, pparam.size)
        elif slot.kind == "scalar":
            value = scalars[slot.name]
            obj = _scalar_object(slot.dtype, value, pparam.size)
        elif slot.kind == "launch_dim":
            value = int(dims[slot.dim])
            obj = _scalar_object("int32", value, pparam.size)
        elif slot.kind == "launch_size":
            value = int(np.prod(dims, dtype=np.int64))
            obj = _scalar_object("int32", value, pparam.size)
        else:  # pragma: no cover
            raise AbiMismatchError(f"unknown ABI slot kind {slot.kind}")
        objects.append(obj)
        values.append(value)
    argv = (ctypes.c_void_p * max(1, len(objects)))(*[ctypes.addressof(o) for o in objects])
    objects.append(argv)
    return PackedParameters(ctypes.addressof(argv), objects, tuple(values))
