"""The thread guard of a barrier-free CPU kernel: `if i < n and i < m: ...`
at the top of the kernel, with nothing to do otherwise.

`thread_guard(kernel)` returns the guard's bounds when the kernel's entry
block (a) holds only instructions without effects that cannot trap (shapes,
launch geometry, integer arithmetic without division, comparisons, casts,
selects, contracts), (b) ends in a branch whose condition is `i < b1` (or a
conjunction of such comparisons, `and` of bools) where `i` is the linear
thread id (`linear_id_values`) and every `b` is an int32 array length, an
int32 scalar parameter or a constant, and (c) whose false successor is an
empty block that returns (no phis, no instructions). Otherwise None.

Invariant: for such a kernel, a thread with `i >= min(b)` does nothing
observable (it evaluates effect-free values and returns), so the CPU thread
loop may stop at `min(b) - first` instead of the block's end, and the
branch is then always taken by the threads that run (kernel_cpu.build_cpu
lowers it as taken): the loop body has no guard left, which lets LLVM's
loop vectoriser use plain (unmasked) loads and stores.
"""
from __future__ import annotations

from dataclasses import dataclass

from verikern.mir import facts
from verikern.mir.nodes import (
    Assert, BinOp, Branch, Compare, Const, Kernel, Return, ScalarParam, ShapeOf, Value,
)

from .body import linear_id_values


@dataclass(frozen=True)
class ThreadGuard:
    """label: the entry block whose branch is always taken by running
    threads; bounds: every b with i < b, as ("const", value, 0),
    ("param", scalar parameter name, 0) or ("shape", array name, dim)."""

    label: str
    bounds: tuple[tuple[str, str | int, int], ...]


def thread_guard(kernel: Kernel) -> ThreadGuard | None:
    """See the module doc."""
    entry = kernel.entry
    term = entry.terminator
    if not isinstance(term, Branch) or not isinstance(term.cond, Value):
        return None
    exit_block = kernel.block(term.if_false)
    if exit_block.phis or exit_block.instrs or not isinstance(exit_block.terminator, Return):
        return None
    defs = {}
    for ins in entry.instrs:
        if facts.accesses_memory(ins) or facts.may_trap(ins) or facts.is_barrier(ins) \
                or isinstance(ins, Assert):
            return None
        r = getattr(ins, "result", None)
        if r is not None:
            defs[r.id] = ins
    _, linear = linear_id_values(kernel)
    params = {p.value.id: p.name for p in kernel.params if isinstance(p, ScalarParam)
              and p.value.type.name == "int32"}
    bounds: list[tuple[str, str | int, int]] = []

    def bound_ok(op) -> bool:
        if isinstance(op, Const):
            if op.type.name == "int32":
                bounds.append(("const", int(op.value), 0))
                return True
            return False
        ins = defs.get(op.id)
        if isinstance(ins, ShapeOf) and ins.array.space == "global":
            bounds.append(("shape", ins.array.name, ins.dim))
            return True
        if op.id in params:
            bounds.append(("param", params[op.id], 0))
            return True
        return False

    def collect(op) -> bool:
        if not isinstance(op, Value):
            return False
        ins = defs.get(op.id)
        if isinstance(ins, BinOp) and ins.op == "and" and ins.result.type.is_bool:
            return collect(ins.lhs) and collect(ins.rhs)
        if isinstance(ins, Compare) and ins.lhs.type.name == "int32":
            if ins.op == "lt" and isinstance(ins.lhs, Value) and ins.lhs.id in linear:
                return bound_ok(ins.rhs)
            if ins.op == "gt" and isinstance(ins.rhs, Value) and ins.rhs.id in linear:
                return bound_ok(ins.lhs)
        return False

    if not collect(term.cond):
        return None
    return ThreadGuard(entry.label, tuple(bounds))
