"""Dead-code elimination of pure instructions and unused phis.

Invariant: only instructions without effects and without obligations are
removed: BinOp (except integer div/floordiv/mod whose divisor is not a
non-zero constant), Compare, UnaryOp, Cast, Select, Special, ShapeOf, and
phis; never Load/Store/Atomic/Barrier/Assert/Requires/RequiresArray (every
access in the source is an obligation, used or not).
"""
from __future__ import annotations

from ..nodes import (
    INSTRUCTION_CLASSES, Assert, Atomic, Barrier, BinOp, Block, Cast, Compare, Const, Kernel,
    Load, Requires, RequiresArray, Select, ShapeOf, Special, Store, UnaryOp,
)
from .base import rebuild, used_value_ids


def _binop_removable(ins: BinOp) -> bool:
    if ins.op in ("div", "floordiv", "mod") and ins.result.type.is_int:
        return isinstance(ins.rhs, Const) and ins.rhs.value != 0  # else: div-zero obligation
    return True


def _always(ins) -> bool:
    return True


def _never(ins) -> bool:
    return False


# OPCODE -> "may this instruction go when its result is unused?"
REMOVABLE = {
    BinOp.OPCODE: _binop_removable, Compare.OPCODE: _always, UnaryOp.OPCODE: _always,
    Cast.OPCODE: _always, Select.OPCODE: _always, Special.OPCODE: _always,
    ShapeOf.OPCODE: _always,
    Load.OPCODE: _never, Store.OPCODE: _never, Atomic.OPCODE: _never, Barrier.OPCODE: _never,
    Assert.OPCODE: _never, Requires.OPCODE: _never, RequiresArray.OPCODE: _never,
}
assert set(REMOVABLE) == {c.OPCODE for c in INSTRUCTION_CLASSES}


def is_removable(ins) -> bool:
    rule = REMOVABLE.get(ins.OPCODE)
    if rule is None:
        raise TypeError(f"dce has no rule for MIR instruction {type(ins).__name__}")
    return rule(ins)


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
                # (only instructions with results are ever removable)
                changed |= len(phis) != len(b.phis) or len(instrs) != len(b.instrs)
                blocks.append(Block(b.label, phis, instrs, b.terminator))
            if not changed:
                return kernel
            kernel = rebuild(kernel, blocks)
