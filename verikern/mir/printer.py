"""Stable text form of MIR (golden tests compare against it).

Invariants: the output depends only on the kernel's content (no ids of Python
objects, no dict-order accidents), one instruction per line, each followed by
`  ; line:col` of its source location (`  ; file:line:col` when its file is
not the kernel's, nothing when it is the kernel's file at 0:0); the header
ends with `  ; file:line:col` of the kernel (omitted for UNKNOWN_LOC). The
text holds every field of the Kernel: `verikern.mir.parser.parse_kernel` is
its exact inverse (docs/MIR.md, "Text format").
"""
from __future__ import annotations

from .nodes import (
    UNKNOWN_LOC, ArrayRef, Assert, Atomic, Barrier, BinOp, Block, Branch, Cast, Compare,
    Jump, Kernel, Load, LoopInfo, Phi, Requires, RequiresArray, Return, ScalarParam,
    Select, ShapeOf, SourceLoc, Special, Store, UnaryOp,
)


def _array_type(a: ArrayRef) -> str:
    inner = "".join(f"[{n}]" for n in a.inner)
    if a.space == "shared":
        dims = [str(n) for n in a.shape or ()] + ([] if a.layout == "row_major" else [a.layout])
        return f"shared {a.dtype}{inner}[{', '.join(dims)}]"
    return f"array<{a.dtype}{inner}, {a.ndim}>"


def _idx(ins) -> str:
    return ", ".join(str(i) for i in ins.indices)


def quote_file(name: str) -> str:
    """A file name as written in a location: as is, or as a Python string
    literal when it could not be read back verbatim (empty, quoted, padded,
    or with unprintable characters)."""
    if (not name or name != name.strip() or name[0] in "'\"" or not name.isprintable()):
        return repr(name)
    return name


def format_loc(loc: SourceLoc, kernel_file: str | None = None) -> str:
    """`  ; line:col` (file omitted when it is `kernel_file`), or "" for
    `kernel_file`:0:0; with kernel_file None, always `  ; line:col`."""
    if kernel_file is None or loc.file == kernel_file:
        if kernel_file is not None and loc.line == 0 and loc.col == 0:
            return ""
        return f"  ; {loc.line}:{loc.col}"
    return f"  ; {quote_file(loc.file)}:{loc.line}:{loc.col}"


def _loc(ins, kernel_file: str | None = None) -> str:
    return format_loc(ins.loc, kernel_file)


def format_instr(ins) -> str:
    """One instruction (or phi, or terminator) without its location comment."""
    if isinstance(ins, Phi):
        inc = ", ".join(f"[{lbl}: {v}]" for lbl, v in ins.incoming)
        return f"{ins.result}: {ins.result.type} = phi {inc}"
    if isinstance(ins, BinOp):
        return f"{ins.result}: {ins.result.type} = {ins.op} {ins.lhs}, {ins.rhs}"
    if isinstance(ins, Compare):
        return f"{ins.result}: {ins.result.type} = cmp.{ins.op} {ins.lhs}, {ins.rhs}"
    if isinstance(ins, UnaryOp):
        return f"{ins.result}: {ins.result.type} = {ins.op} {ins.operand}"
    if isinstance(ins, Cast):
        return f"{ins.result}: {ins.result.type} = cast {ins.operand}"
    if isinstance(ins, Select):
        return (f"{ins.result}: {ins.result.type} = select {ins.cond}, "
                f"{ins.if_true}, {ins.if_false}")
    if isinstance(ins, Special):
        suffix = f"({ins.dim})" if ins.kind == "launch_dim" or ins.dim != 0 else ""
        return f"{ins.result}: {ins.result.type} = {ins.kind}{suffix}"
    if isinstance(ins, ShapeOf):
        return f"{ins.result}: {ins.result.type} = shape {ins.array.name}[{ins.dim}]"
    if isinstance(ins, Load):
        op = "load.address" if ins.address_only else "load"
        return f"{ins.result}: {ins.result.type} = {op} {ins.array.name}[{_idx(ins)}]"
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


def format_block(b: Block, kernel_file: str | None = None) -> list[str]:
    """The block's lines; locations relative to `kernel_file` (see format_loc)."""
    lines = [f"{b.label}:"]
    for ins in (*b.phis, *b.instrs, b.terminator):
        lines.append(f"  {format_instr(ins)}{_loc(ins, kernel_file)}")
    return lines


def _invariant_site(k: Kernel, a: Assert) -> str:
    """`label#i`: the block and position (phis not counted) of invariant `a`."""
    for match in (lambda x: x is a, lambda x: x == a):
        for b in k.blocks:
            for i, ins in enumerate(b.instrs):
                if match(ins):
                    return f"{b.label}#{i}"
    raise ValueError(f"MIR of kernel {k.name!r}: the invariant at line {a.loc.line} "
                     "of a loop is not an instruction of the kernel")


def format_loop(k: Kernel, loop: LoopInfo) -> str:
    """One `loop` line of the kernel header (locations as format_loc)."""
    text = (f"loop {loop.header} body=[{', '.join(loop.body)}] "
            f"latches=[{', '.join(loop.latches)}] exit={loop.exit}")
    if loop.range is not None:
        r = loop.range
        text += f" range {r.counter} = {r.start} to {r.stop} step {r.step}"
    if loop.invariants:
        sites = ", ".join(_invariant_site(k, a) for a in loop.invariants)
        text += f" invariants=[{sites}]"
    return text + format_loc(loop.loc, k.loc.file)


def format_kernel(k: Kernel) -> str:
    params = []
    for p in k.params:
        if isinstance(p, ScalarParam):
            alias = f" name={p.name!r}" if p.name != p.value.name else ""
            params.append(f"{p.value}: {p.value.type}{alias}")
        else:
            params.append(f"{p.name}: {_array_type(p)}")
    attrs = [f"launch_ndim={k.launch_ndim}"]
    if k.block_dim is not None:
        attrs.append(f"block_dim={k.block_dim}")
    if k.fast_math:
        attrs.append("fast_math")
    if k.uses_block_features:
        attrs.append("uses_block_features")
    head = "" if k.loc == UNKNOWN_LOC else \
        f"  ; {quote_file(k.loc.file)}:{k.loc.line}:{k.loc.col}"
    lines = [f"kernel {k.name}({', '.join(params)}) [{', '.join(attrs)}] {{{head}"]
    for s in k.shared:
        lines.append(f"  {s.name} = {_array_type(s)}")
    for loop in k.loops:
        lines.append(f"  {format_loop(k, loop)}")
    for b in k.blocks:
        lines.extend(format_block(b, k.loc.file))
    lines.append("}")
    return "\n".join(lines) + "\n"
