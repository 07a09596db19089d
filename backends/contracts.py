"""A launch's contracts, checked on the host before any device runs it.

`check_contracts(kernel, launch, arrays, scalars)` evaluates the kernel's
contract region -- the entry block's instructions up to its last `Requires`
/ `RequiresArray`, stopping before any write or barrier (the MIR placement
rule puts every contract there, before any memory access) -- for thread 0
of block 0, in order, and raises `ContractError` for the first contract that
is false: a `requires` condition, or an array contract (`all_in_range`,
`all_distinct`, `all_sorted`) on the array's contents. A trap on the way (a
zero divisor, a failing assert) raises the error the simulator raises.

Invariants:
- device-neutral: it imports no device backend; values are computed with
  the shared host semantics of MIR's ops (verikern.backends.semantics.ops),
  so every device's launch check agrees with the simulator's run;
- the region holds only uniform arithmetic (`EVALUATORS`: one entry per
  MIR opcode it may contain); any other instruction raises
  NotImplementedError, never a silent pass;
- the simulator raises the same errors, worded here (`requires_broken`,
  `check_array_contents`), when it meets a contract while running.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from verikern.errors import ContractError, source_line_at
from verikern.mir.facts import is_barrier, is_int_division, writes_memory
from verikern.mir.nodes import (
    Assert, BinOp, Cast, Compare, Const, Kernel, Requires, RequiresArray, Select, ShapeOf,
    Special, UnaryOp,
)

from .per_kernel import per_kernel
from .semantics import ops
from .semantics.traps import assertion_failed, division_fault, faulting_divisions


def _quote(loc) -> str:
    line = source_line_at(loc)
    return f": `{line.strip()}`" if line else ""


def requires_broken(kernel_name: str, ins: Requires, launch) -> ContractError:
    """The error for a `requires` condition that this launch makes false."""
    return ContractError(
        f"kernel {kernel_name}: this launch breaks the precondition at "
        f"{ins.loc}{_quote(ins.loc)} (dims {list(launch.dims)}, block_dim "
        f"{launch.block_dim}); change the launch or its arguments so it holds")


def all_in_range_quick(data: np.ndarray, low, high) -> bool:
    """True only if every element e of `data` (1-D) has low <= e < high,
    found without temporaries; False means "look element by element".
    Signed integers with low == 0 and high within the type (+1): seen as
    unsigned, a negative element is >= 2**(bits - 1) >= high, so one pass
    for the greatest (4M int32: ~0.3 ms, against ~10 ms for the test per
    element). Otherwise the least and the greatest element; one unordered
    with the bounds (NaN) fails both comparisons."""
    if data.dtype.kind == "i" and low == 0 and 0 <= high <= int(np.iinfo(data.dtype).max) + 1:
        return bool(data.view(data.dtype.str.replace("i", "u")).max() < high)
    return bool(data.min() >= low and data.max() < high)


def check_array_contents(kernel_name: str, ins: RequiresArray, data: np.ndarray, low, high) -> None:
    """Raise ContractError unless the flat contents `data` of `ins.array`
    satisfy its contract (`low`/`high`: the all_in_range bounds, else None)."""
    if data.size == 0:
        return
    name = ins.array.name
    where = f"{ins.loc}{_quote(ins.loc)}"
    if ins.kind == "all_in_range":
        if all_in_range_quick(data, low, high):
            return
        bad = (data < low) | (data >= high)
        if bad.any():
            e = int(np.argmax(bad))
            raise ContractError(
                f"kernel {kernel_name}: argument {name} breaks "
                f"all_in_range({low}, {high}) at {where}: element {e} (flat) is "
                f"{data[e].item()}; pass an array whose elements are all in "
                f"[{low}, {high})")
    elif ins.kind == "all_distinct":
        order = np.argsort(data, kind="stable")
        s = data[order]
        dup = np.flatnonzero(s[1:] == s[:-1])
        if dup.size:
            a, b = sorted((int(order[dup[0]]), int(order[dup[0] + 1])))
            raise ContractError(
                f"kernel {kernel_name}: argument {name} breaks all_distinct "
                f"at {where}: elements {a} and {b} (flat) are both "
                f"{data[a].item()}; pass an array without repeated values")
    elif ins.kind == "all_sorted":
        down = np.flatnonzero(data[1:] < data[:-1])
        if down.size:
            a = int(down[0])
            raise ContractError(
                f"kernel {kernel_name}: argument {name} breaks all_sorted "
                f"at {where}: element {a} is {data[a].item()} but element {a + 1} is "
                f"{data[a + 1].item()}; pass a non-decreasing array")
    else:
        raise NotImplementedError(f"unknown array contract {ins.kind!r}")


@per_kernel
def contract_region(kernel: Kernel) -> tuple:
    """The entry block's instructions through its last contract, stopping
    before the first write or barrier (what a launch check evaluates);
    found once per kernel object."""
    instrs = kernel.entry.instrs
    last = -1
    for pos, ins in enumerate(instrs):
        if writes_memory(ins) or is_barrier(ins):
            break
        if isinstance(ins, (Requires, RequiresArray)):
            last = pos
    return tuple(instrs[:last + 1])


class _Thread:
    """Thread 0 of block 0 of one launch: its values by SSA id."""

    def __init__(self, kernel: Kernel, launch, arrays: dict, scalars: dict):
        self.kernel, self.launch, self.arrays = kernel, launch, arrays
        self.env: dict = {p.value.id: p.value.type.np_dtype.type(scalars[p.name])
                          for p in kernel.scalar_params}

    def value(self, op):
        if isinstance(op, Const):
            return op.type.np_dtype.type(op.value)
        return self.env[op.id]


def _binop(t: _Thread, ins: BinOp) -> None:
    x, y = t.value(ins.lhs), t.value(ins.rhs)
    if is_int_division(ins) and faulting_divisions(ins, x, y):
        raise division_fault(ins, t.kernel.name, 0, 0, 0, x.item(), y.item())
    t.env[ins.result.id] = ops.binary_function(ins.op, ins.result.type)(x, y)


def _compare(t: _Thread, ins: Compare) -> None:
    r = ops.compare_function(ins.op, ins.lhs.type)(t.value(ins.lhs), t.value(ins.rhs))
    t.env[ins.result.id] = np.bool_(r)


def _unop(t: _Thread, ins: UnaryOp) -> None:
    t.env[ins.result.id] = ops.unary_function(ins.op, ins.result.type)(t.value(ins.operand))


def _cast(t: _Thread, ins: Cast) -> None:
    t.env[ins.result.id] = ops.cast_function(ins.operand.type, ins.result.type)(t.value(ins.operand))


def _select(t: _Thread, ins: Select) -> None:
    t.env[ins.result.id] = ops.select_values(t.value(ins.cond), t.value(ins.if_true),
                                             t.value(ins.if_false), ins.result.type.np_dtype)


def _special(t: _Thread, ins: Special) -> None:
    geometry = {"block_dim": lambda: t.launch.block_dim, "grid_dim": lambda: t.launch.grid_dim,
                "launch_dim": lambda: t.launch.dims[ins.dim],
                "thread_idx": lambda: 0, "block_idx": lambda: 0}   # thread 0 of block 0
    if ins.kind not in geometry:
        raise NotImplementedError(f"launch check: unknown special {ins.kind!r}")
    t.env[ins.result.id] = np.int32(geometry[ins.kind]())


def _shape(t: _Thread, ins: ShapeOf) -> None:
    t.env[ins.result.id] = np.int32(t.arrays[ins.array.name].shape[ins.dim])


def _assert(t: _Thread, ins: Assert) -> None:
    if not bool(t.value(ins.cond)):
        raise assertion_failed(ins, t.kernel.name, 0, 0, 0)


def _requires(t: _Thread, ins: Requires) -> None:
    if not bool(t.value(ins.cond)):
        raise requires_broken(t.kernel.name, ins, t.launch)


def _requires_array(t: _Thread, ins: RequiresArray) -> None:
    low = t.value(ins.lo) if ins.lo is not None else None
    high = t.value(ins.hi) if ins.hi is not None else None
    check_array_contents(t.kernel.name, ins, t.arrays[ins.array.name].reshape(-1), low, high)


#: MIR opcode -> how thread 0 evaluates it (every opcode a contract region may hold)
EVALUATORS: dict[str, Callable] = {
    BinOp.OPCODE: _binop, Compare.OPCODE: _compare, UnaryOp.OPCODE: _unop, Cast.OPCODE: _cast,
    Select.OPCODE: _select, Special.OPCODE: _special, ShapeOf.OPCODE: _shape,
    Assert.OPCODE: _assert, Requires.OPCODE: _requires, RequiresArray.OPCODE: _requires_array,
}


def check_contracts(kernel: Kernel, launch, arrays: dict, scalars: dict) -> None:
    """Evaluate the kernel's contracts for this launch (see the module
    docstring); `arrays` are C-contiguous, by name, `scalars` by MIR name.
    Raises ContractError for the first false one."""
    t = _Thread(kernel, launch, arrays, scalars)
    with np.errstate(all="ignore"):
        for ins in contract_region(kernel):
            evaluate = EVALUATORS.get(ins.OPCODE)
            if evaluate is None:
                raise NotImplementedError(f"launch check: no evaluator for {type(ins).__name__} "
                                          f"in the contract region of kernel {kernel.name}")
            evaluate(t, ins)


__all__ = ["EVALUATORS", "check_array_contents", "check_contracts", "contract_region",
           "requires_broken"]
