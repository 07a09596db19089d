"""Trivial-phi removal (copy propagation through phis).

Invariant: a phi whose incoming operands are all one operand v (or the phi
itself) is replaced by v everywhere; range-loop counters named by LoopInfo
are kept, since consumers read the loop through them.
"""
from __future__ import annotations

from ..nodes import Block, Kernel
from .base import range_counters, rebuild, replace_in_rounds, substitute


def _only_other_operand(phi):
    """The one operand a phi's incoming values are besides itself, or None."""
    others = {v for _, v in phi.incoming if v != phi.result}
    return next(iter(others)) if len(others) == 1 else None


class TrivialPhiRemoval:
    """Removes trivial phis in rounds, as sweeping the kernel until none is
    left would: each round tries again the phis whose incoming operands the
    previous rounds replaced (every phi in the first), with those operands
    replaced; the replacements of every round go in by one substitution at
    the end. Linear in the kernel plus one retry per replaced operand."""

    name = "trivial-phi"

    def run(self, kernel: Kernel) -> Kernel:
        keep = range_counters(kernel)
        phis = [phi for b in kernel.blocks for phi in b.phis]
        first = [pos for pos, phi in enumerate(phis) if phi.result.id not in keep]
        mapping = replace_in_rounds(
            phis, first, _only_other_operand,
            lambda phi, mapping: phi.result.id in mapping or phi.result.id in keep)
        if not mapping:
            return kernel
        kernel = substitute(kernel, mapping)
        blocks = [b if not any(p.result.id in mapping for p in b.phis) else
                  Block(b.label, tuple(p for p in b.phis if p.result.id not in mapping),
                        b.instrs, b.terminator) for b in kernel.blocks]
        return rebuild(kernel, blocks)
