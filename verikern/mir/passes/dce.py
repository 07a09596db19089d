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
from ..nodes import Block, Instr, Kernel, Phi, Value, result_of
from .base import rebuild, use_counts


def is_removable(ins) -> bool:
    """May `ins` go when its result is unused? The op table's purity fact
    (raises TypeError for an instruction class the table does not know)."""
    return removable_if_unused(ins)


class DeadCodeElimination:
    """Removes what is unused, by use counts and a worklist: removing a
    definition takes one use from each of its operands, and a removable
    definition whose count reaches zero goes next. The result is that of
    sweeping the kernel until no sweep removes anything (reference counting
    has one outcome whatever the order): a definition survives when some
    non-removable instruction, terminator or loop range reads it through a
    chain of uses, or when it reads itself through one (a phi cycle, which
    no sweep ever finds unused either). Linear in the kernel."""

    name = "dce"

    def run(self, kernel: Kernel) -> Kernel:
        counts = use_counts(kernel)
        candidates: dict[int, Instr | Phi] = {}     # value id -> its removable definition
        for b in kernel.blocks:
            for phi in b.phis:
                candidates[phi.result.id] = phi
            for ins in b.instrs:
                # (only instructions with results are ever removable)
                if is_removable(ins) and (r := result_of(ins)) is not None:
                    candidates[r.id] = ins
        work = [vid for vid in candidates if counts.get(vid, 0) == 0]
        dead: set[int] = set()
        while work:
            vid = work.pop()
            if vid in dead:
                continue
            dead.add(vid)
            for o in candidates[vid].operands():
                if isinstance(o, Value):
                    left = counts[o.id] = counts[o.id] - 1
                    if left == 0 and o.id in candidates:
                        work.append(o.id)
        if not dead:
            return kernel
        blocks = []
        for b in kernel.blocks:
            phis = tuple(p for p in b.phis if p.result.id not in dead)
            instrs = tuple(i for i in b.instrs
                           if (r := result_of(i)) is None or r.id not in dead)
            if len(phis) == len(b.phis) and len(instrs) == len(b.instrs):
                blocks.append(b)
            else:
                blocks.append(Block(b.label, phis, instrs, b.terminator))
        return rebuild(kernel, blocks)
