"""Kernel ABI shared by the LLVM targets, and the error-status protocol.

Invariant: both targets receive the same leading parameters, in this order
(`kernel_params`):

  for each kernel parameter, in source order:
    array  -> `T*` (noalias; element storage type, bool stored as i8),
              then one `i32` shape per *logical* dimension;
    scalar -> the value by value (bool passed as `i8`, 0 or 1);
  then `i32 launch_dim_0 .. launch_dim_{n-1}` (n = kernel.launch_ndim)
  and `i32 launch_size` (the product).

nvptx appends `i64* err` (the status buffer below) and is a `void` PTX
`.entry`; block_dim / grid_dim / thread and block ids come from the special
registers. The CPU body function appends `i32 block_dim, i32 grid_dim,
i32 block_begin, i32 block_end, i8* shared, i32* thread_state, i64* spill,
i64* err` and returns the status code; `vk_entry_<name>(i8* args, ...)`
wraps it, reading the leading parameters plus block_dim and grid_dim from one
C struct laid out as `args_struct_type` (natural alignment);
`vk_worker_<name>(i8* args, i64* next_block, i32 chunk, i8* shared, ...)`
reads the same struct and runs the blocks it claims, `chunk` at a time, from
a counter shared by the host threads of one launch (kernel_cpu._worker_wrapper).

Error status buffer: 8 x int64, all zero on entry. The first failing thread
writes `[code, site, thread_idx, block_idx, d0, d1, d2, d3]`; `code` is one of
ERR_* below; `site` indexes `LoweredKernel.sites`; for bounds errors
d0..d2 = (dimension, index, length); for barrier divergence (CPU) d0 = the
number of threads of the block, whose states stay in `thread_state`.
"""
from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir

from verikern.mir.nodes import ArrayRef, Kernel, ScalarParam, SourceLoc
from verikern.mir.types import ScalarType

ERR_NONE = 0
ERR_BOUNDS = 1
ERR_DIV_ZERO = 2
#: the `detail` of an ERR_DIV_ZERO site that checks INT_MIN / -1 (int32/int64)
#: rather than a zero divisor: the host raises DivisionOverflowError for it
DIVISION_OVERFLOW_NOTE = "overflow"
ERR_ASSERT = 3
ERR_DIVERGENCE = 4
#: CPU only, and only in code built with `fuel=True` (replay): the launch
#: spent its fuel (loop-header executions, the global FUEL_SYMBOL) -- a limit
#: of the caller's, never a bug of the kernel.
ERR_FUEL = 5
FUEL_SYMBOL = "vk_fuel"
ERR_WORDS = 8

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
HALF = ir.HalfType()
FLOAT = ir.FloatType()
DOUBLE = ir.DoubleType()


def value_type(t: ScalarType) -> ir.Type:
    """The LLVM type of an SSA value of MIR type `t` (bool is i1)."""
    if t.is_bool:
        return I1
    if t.is_int:
        return ir.IntType(t.bits)
    return {16: HALF, 32: FLOAT, 64: DOUBLE}[t.bits]


def storage_type(t: ScalarType) -> ir.Type:
    """The LLVM type of an element in memory or of a by-value parameter
    (bool is one byte, as in numpy)."""
    return I8 if t.is_bool else value_type(t)


@dataclass(frozen=True)
class ParamSlot:
    """One LLVM parameter of the leading ABI: what it carries and its type.

    kind: "array" (pointer), "shape" (dim = logical dimension), "scalar",
    "launch_dim" (dim = launch dimension) or "launch_size". `name` is the MIR
    parameter name (empty for launch geometry)."""

    kind: str
    name: str
    type: ir.Type
    dim: int = 0
    scalar_type: ScalarType | None = None


def kernel_params(kernel: Kernel, addrspace: int = 0) -> list[ParamSlot]:
    """The leading ABI parameters of `kernel`, in order (see module doc)."""
    slots: list[ParamSlot] = []
    for p in kernel.params:
        if isinstance(p, ArrayRef):
            ptr = ir.PointerType(storage_type(p.dtype), addrspace)
            slots.append(ParamSlot("array", p.name, ptr, scalar_type=p.dtype))
            for d in range(p.ndim):
                slots.append(ParamSlot("shape", p.name, I32, d))
        elif isinstance(p, ScalarParam):
            slots.append(ParamSlot("scalar", p.name, storage_type(p.value.type),
                                   scalar_type=p.value.type))
        else:  # pragma: no cover - MIR has only these two parameter kinds
            raise TypeError(f"unknown kernel parameter {p!r}")
    for d in range(kernel.launch_ndim):
        slots.append(ParamSlot("launch_dim", "", I32, d))
    slots.append(ParamSlot("launch_size", "", I32))
    return slots


class AbiTarget:
    """Base of the targets (CPU, NVPTX): the kernel arguments `bind_abi_args`
    records on them, by ABI slot."""

    arrays: dict[str, ir.Argument]
    shapes: dict[tuple[str, int], ir.Argument]
    scalars: dict[str, ir.Argument]
    launch_dims: dict[int, ir.Argument]
    launch_size: ir.Argument


def bind_abi_args(target: AbiTarget, func, params, extra_names) -> list:
    """Name `func`'s arguments after the ABI slots `params` followed by the
    target's `extra_names`, and record them on `target` (arrays, shapes,
    scalars, launch_dims, launch_size; arrays marked noalias). Returns the
    arguments after the ABI slots (the target's extras), in order."""
    args = list(func.args)
    for arg, name in zip(args, [param_name(p) for p in params] + list(extra_names)):
        arg.name = name
    bind_slots(target, params, args)
    for slot, arg in zip(params, args):
        if slot.kind == "array":
            arg.add_attribute("noalias")
    return args[len(params):]


def bind_slots(target: AbiTarget, params, values) -> None:
    """Record `values`, one per ABI slot of `params`, on `target`: arrays,
    shapes, scalars, launch_dims and launch_size."""
    target.arrays, target.shapes, target.scalars, target.launch_dims = {}, {}, {}, {}
    for slot, value in zip(params, values):
        if slot.kind == "array":
            target.arrays[slot.name] = value
        elif slot.kind == "shape":
            target.shapes[(slot.name, slot.dim)] = value
        elif slot.kind == "scalar":
            target.scalars[slot.name] = value
        elif slot.kind == "launch_dim":
            target.launch_dims[slot.dim] = value
        else:
            target.launch_size = value


def param_name(slot: ParamSlot) -> str:
    """A readable LLVM argument name for an ABI slot."""
    if slot.kind == "shape":
        return f"{slot.name}.shape{slot.dim}"
    if slot.kind == "launch_dim":
        return f"launch_dim{slot.dim}"
    if slot.kind == "launch_size":
        return "launch_size"
    return slot.name


@dataclass(frozen=True)
class ErrorSite:
    """A runtime check in the generated code: what it guards and where."""

    code: int
    loc: SourceLoc
    message: str
    array: str = ""
    detail: str = ""


@dataclass
class LoweredKernel:
    """A lowered kernel: the module, the entry symbol names and the check
    sites (indexed by the `site` word of the error status)."""

    module: ir.Module
    target: str
    kernel_name: str
    function_name: str
    entry_name: str | None
    sites: list[ErrorSite]
    params: list[ParamSlot]
    barrier_locs: list[SourceLoc]
    spill_slots: int
    shared_layout: dict[str, tuple[int, int]]  # name -> (byte offset, bytes)
    shared_bytes: int
    fuel_symbol: str | None = None              # FUEL_SYMBOL when built with fuel
    #: CPU: the entry that claims chunks of blocks from a shared counter
    #: (kernel_cpu._worker_wrapper), for runs spread over host threads
    worker_name: str | None = None
