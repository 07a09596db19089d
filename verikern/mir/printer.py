"""Stable text form of MIR (golden tests compare against it).

Invariant: the output depends only on the kernel's content (no ids of Python
objects, no dict-order accidents), one instruction per line, each followed by
`  ; line:col` of its source location.
"""
from __future__ import annotations

from .nodes import (
    ArrayRef, Assert, Atomic, Barrier, BinOp, Block, Branch, Cast, Compare,
    Jump, Kernel, Load, Phi, Requires, RequiresArray, Return, ScalarParam,
    Select, ShapeOf, Special, Store, UnaryOp,
)


def _array_type(a: ArrayRef) -> str:
    inner = "".join(f"[{n}]" for n in a.inner)
    if a.space == "shared":
        dims = ", ".join(str(n) for n in a.shape or ())
        lay = "" if a.layout == "row_major" else f", {a.layout}"
        return f"shared {a.dtype}{inner}[{dims}{lay}]"
    return f"array<{a.dtype}{inner}, {a.ndim}>"


def _idx(ins) -> str:
    return ", ".join(str(i) for i in ins.indices)


def _loc(ins) -> str:
    return f"  ; {ins.loc.line}:{ins.loc.col}"


def format_instr(ins) -> str:
    """One instruction (or phi, or terminator) without its location comment."""
    if isinstance(ins, Phi):
        inc = ", ".join(f"[{lbl}: {v}]" for lbl, v in ins.incoming)
        return f"{ins.result}: {ins.result.type} = phi {inc}"
    if isinstance(ins, BinOp):
        return f"{ins.result}: {ins.result.type} = {ins.op} {ins.lhs}, {ins.rhs}"
    if isinstance(ins, Compare):
        return f"{ins.result}: bool = cmp.{ins.op} {ins.lhs}, {ins.rhs}"
    if isinstance(ins, UnaryOp):
        return f"{ins.result}: {ins.result.type} = {ins.op} {ins.operand}"
    if isinstance(ins, Cast):
        return f"{ins.result}: {ins.result.type} = cast {ins.operand}"
    if isinstance(ins, Select):
        return (f"{ins.result}: {ins.result.type} = select {ins.cond}, "
                f"{ins.if_true}, {ins.if_false}")
    if isinstance(ins, Special):
        suffix = f"({ins.dim})" if ins.kind == "launch_dim" else ""
        return f"{ins.result}: int32 = {ins.kind}{suffix}"
    if isinstance(ins, ShapeOf):
        return f"{ins.result}: int32 = shape {ins.array.name}[{ins.dim}]"
    if isinstance(ins, Load):
        return f"{ins.result}: {ins.result.type} = load {ins.array.name}[{_idx(ins)}]"
    if isinstance(ins, Store):
        return f"store {ins.array.name}[{_idx(ins)}], {ins.value}"
    if isinstance(ins, Atomic):
        cmp = f", {ins.compare}" if ins.compare is not None else ""
        return (f"{ins.result}: {ins.result.type} = atomic.{ins.op} "
                f"{ins.array.name}[{_idx(ins)}], {ins.value}{cmp}")
    if isinstance(ins, Barrier):
        return "barrier"
    if isinstance(ins, Assert):
        return f"{ins.kind} {ins.cond}, {ins.message!r}"
    if isinstance(ins, Requires):
        return f"requires {ins.cond}"
    if isinstance(ins, RequiresArray):
        bounds = f", {ins.lo}, {ins.hi}" if ins.kind == "all_in_range" else ""
        return f"requires.{ins.kind} {ins.array.name}{bounds}"
    if isinstance(ins, Jump):
        return f"jmp {ins.target}"
    if isinstance(ins, Branch):
        return f"br {ins.cond}, {ins.if_true}, {ins.if_false}"
    if isinstance(ins, Return):
        return "ret"
    raise TypeError(f"no printer for MIR node {type(ins).__name__}")


def format_block(b: Block) -> list[str]:
    lines = [f"{b.label}:"]
    for ins in (*b.phis, *b.instrs, b.terminator):
        lines.append(f"  {format_instr(ins)}{_loc(ins)}")
    return lines


def format_kernel(k: Kernel) -> str:
    params = []
    for p in k.params:
        if isinstance(p, ScalarParam):
            params.append(f"{p.value}: {p.value.type}")
        else:
            params.append(f"{p.name}: {_array_type(p)}")
    attrs = [f"launch_ndim={k.launch_ndim}"]
    if k.block_dim is not None:
        attrs.append(f"block_dim={k.block_dim}")
    if k.fast_math:
        attrs.append("fast_math")
    lines = [f"kernel {k.name}({', '.join(params)}) [{', '.join(attrs)}] {{"]
    for s in k.shared:
        lines.append(f"  {s.name} = {_array_type(s)}")
    for loop in k.loops:
        rng = ""
        if loop.range is not None:
            r = loop.range
            rng = f" range {r.counter} = {r.start} to {r.stop} step {r.step}"
        lines.append(f"  loop {loop.header} body=[{', '.join(loop.body)}] "
                     f"exit={loop.exit}{rng}")
    for b in k.blocks:
        lines.extend(format_block(b))
    lines.append("}")
    return "\n".join(lines) + "\n"
