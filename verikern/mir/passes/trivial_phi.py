"""Trivial-phi removal (copy propagation through phis).

Invariant: a phi whose incoming operands are all one operand v (or the phi
itself) is replaced by v everywhere; range-loop counters named by LoopInfo
are kept, since consumers read the loop through them.
"""
from __future__ import annotations

from ..nodes import Block, Kernel
from .base import range_counters, rebuild, substitute


class TrivialPhiRemoval:
    name = "trivial-phi"

    def run(self, kernel: Kernel) -> Kernel:
        keep = range_counters(kernel)
        while True:
            mapping = {}
            for b in kernel.blocks:
                for phi in b.phis:
                    if phi.result.id in keep:
                        continue
                    others = {v for _, v in phi.incoming if v != phi.result}
                    if len(others) == 1:
                        mapping[phi.result.id] = next(iter(others))
            if not mapping:
                return kernel
            kernel = substitute(kernel, mapping)
            blocks = [Block(b.label, tuple(p for p in b.phis if p.result.id not in mapping),
                            b.instrs, b.terminator) for b in kernel.blocks]
            kernel = rebuild(kernel, blocks)


