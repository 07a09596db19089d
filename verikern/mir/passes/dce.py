"""Dead-code elimination of pure instructions and unused phis.

Invariant: only instructions without effects and without obligations are
removed (the op table's `pure` fact, verikern.mir.ops, and
verikern.mir.facts.may_trap): BinOp (except an integer div/floordiv/mod that
may fault: a divisor that is not a non-zero constant, or INT_MIN / -1),
Compare, UnaryOp, Cast, Select, Special, ShapeOf, and phis; never
Load/Store/Atomic/Barrier/Assert/Requires/RequiresArray (every access in the
source is an obligation, used or not).
"""
from __future__ import annotations

from ..facts import removable_if_unused
from ..nodes import Block, Kernel, result_of
from .base import rebuild, used_value_ids


def is_removable(ins) -> bool:
    """May `ins` go when its result is unused? The op table's purity fact
    (raises TypeError for an instruction class the table does not know)."""
    return removable_if_unused(ins)


class DeadCodeElimination:
    name = "dce"

    def run(self, kernel: Kernel) -> Kernel:
        while True:
            used = used_value_ids(kernel)
            changed = False
            blocks = []
            for b in kernel.blocks:
                phis = tuple(p for p in b.phis if p.result.id in used)
                instrs = tuple(i for i in b.instrs
                               if not (is_removable(i) and (r := result_of(i)) is not None
                                       and r.id not in used))
                # (only instructions with results are ever removable)
                changed |= len(phis) != len(b.phis) or len(instrs) != len(b.instrs)
                blocks.append(Block(b.label, phis, instrs, b.terminator))
            if not changed:
                return kernel
            kernel = rebuild(kernel, blocks)
