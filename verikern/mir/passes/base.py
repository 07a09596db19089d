"""The pass protocol and the rewriting helpers passes share.

Invariant: a pass takes a verified Kernel and returns a verified Kernel with
the same observable behaviour and the same obligations: it never removes a
Load, Store, Atomic, Barrier, Assert, Requires or RequiresArray, and never
an integer division whose divisor may be zero.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Mapping, Protocol

from ..nodes import Assert, Block, Const, Kernel, LoopInfo, Phi, Value


class Pass(Protocol):
    name: str

    def run(self, kernel: Kernel) -> Kernel: ...


def _map_operand(x, f):
    if isinstance(x, Value):
        return f(x)
    if isinstance(x, Const):
        return x
    if isinstance(x, tuple):
        return tuple(_map_operand(e, f) for e in x)
    return x


def rewrite_instr(ins, f: Callable[[Value], object]):
    """`ins` with every used Value v replaced by f(v) (its result untouched)."""
    changes = {}
    for fld in dataclasses.fields(ins):
        if fld.name in ("result", "loc", "array", "op", "kind", "message", "dim"):
            continue
        old = getattr(ins, fld.name)
        new = _map_operand(old, f)
        if new is not old and new != old:
            changes[fld.name] = new
    return dataclasses.replace(ins, **changes) if changes else ins


def rebuild(kernel: Kernel, blocks: list[Block], f: Callable[[Value], object] | None = None,
            renamed_asserts: dict | None = None) -> Kernel:
    """A new Kernel with `blocks`; loop info operands go through `f`; invariant
    Asserts are re-pointed at their rewritten instructions."""
    renamed = dict(renamed_asserts or {})
    f = f or (lambda v: v)
    loops = []
    for lp in kernel.loops:
        rng = lp.range
        if rng is not None:
            rng = dataclasses.replace(rng, start=_map_operand(rng.start, f),
                                      stop=_map_operand(rng.stop, f),
                                      step=_map_operand(rng.step, f))
        invs = tuple(renamed.get(id(a), a) for a in lp.invariants)
        loops.append(dataclasses.replace(lp, range=rng, invariants=invs))
    return dataclasses.replace(kernel, blocks=tuple(blocks), loops=tuple(loops))


def substitute(kernel: Kernel, mapping: Mapping[int, object]) -> Kernel:
    """Replace every use of value id k by mapping[k] (chains resolved)."""
    if not mapping:
        return kernel

    def f(v):
        seen = 0
        while isinstance(v, Value) and v.id in mapping and seen < 10_000:
            v = mapping[v.id]
            seen += 1
        return v

    renamed = {}
    blocks = []
    for b in kernel.blocks:
        phis = tuple(rewrite_instr(p, f) for p in b.phis)
        instrs = []
        for ins in b.instrs:
            new = rewrite_instr(ins, f)
            if isinstance(ins, Assert):
                renamed[id(ins)] = new
            instrs.append(new)
        blocks.append(Block(b.label, phis, tuple(instrs), rewrite_instr(b.terminator, f)))
    return rebuild(kernel, blocks, f, renamed)


def range_counters(kernel: Kernel) -> set[int]:
    return {lp.range.counter.id for lp in kernel.loops if lp.range is not None}


def used_value_ids(kernel: Kernel) -> set[int]:
    used: set[int] = set()
    for b in kernel.blocks:
        for ins in (*b.phis, *b.instrs, b.terminator):
            for o in ins.operands():
                if isinstance(o, Value):
                    used.add(o.id)
    for lp in kernel.loops:
        if lp.range is not None:
            for o in (lp.range.counter, lp.range.start, lp.range.stop, lp.range.step):
                if isinstance(o, Value):
                    used.add(o.id)
    return used


__all__ = ["Pass", "rewrite_instr", "rebuild", "substitute", "range_counters",
           "used_value_ids", "LoopInfo", "Phi"]
