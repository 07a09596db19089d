"""Dead-code elimination of pure instructions and unused phis.

Invariant: only instructions without effects and without obligations are
removed: BinOp (except integer div/floordiv/mod whose divisor is not a
non-zero constant), Compare, UnaryOp, Cast, Select, Special, ShapeOf, and
phis; never Load/Store/Atomic/Barrier/Assert/Requires/RequiresArray (every
access in the source is an obligation, used or not).
"""
from __future__ import annotations

from ..nodes import (
    BinOp, Block, Cast, Compare, Const, Kernel, Select, ShapeOf, Special, UnaryOp,
)
from .base import rebuild, used_value_ids

PURE_CLASSES = (BinOp, Compare, UnaryOp, Cast, Select, Special, ShapeOf)


def is_removable(ins) -> bool:
    if not isinstance(ins, PURE_CLASSES):
        return False
    if isinstance(ins, BinOp) and ins.op in ("div", "floordiv", "mod") \
            and ins.result.type.is_int:
        return isinstance(ins.rhs, Const) and ins.rhs.value != 0
    return True


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
                               if not (is_removable(i) and i.result.id not in used))
                changed |= len(phis) != len(b.phis) or len(instrs) != len(b.instrs)
                blocks.append(Block(b.label, phis, instrs, b.terminator))
            if not changed:
                return kernel
            kernel = rebuild(kernel, blocks)
