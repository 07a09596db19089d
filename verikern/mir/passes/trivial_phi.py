"""Trivial-phi removal (copy propagation through phis).

Invariant: a phi whose incoming operands are all one operand v (or the phi
itself) is replaced by v everywhere; range-loop counters named by LoopInfo
are kept, since consumers read the loop through them.
"""
from __future__ import annotations

from ..nodes import Block, Kernel, Value
from .base import mentions, range_counters, rebuild, resolver, rewrite_instr, substitute


class TrivialPhiRemoval:
    """Removes trivial phis in rounds, as sweeping the kernel until none is
    left would: each round tries again the phis whose incoming operands the
    previous rounds replaced (every phi in the first), with those operands
    replaced; the replacements of every round go in by one substitution at
    the end. Linear in the kernel plus one retry per replaced operand."""

    name = "trivial-phi"

    def run(self, kernel: Kernel) -> Kernel:
        keep = range_counters(kernel)
        current = [phi for b in kernel.blocks for phi in b.phis]
        users: dict[int, list[int]] = {}        # value id -> positions in `current` reading it
        for pos, phi in enumerate(current):
            for o in phi.operands():
                if isinstance(o, Value):
                    users.setdefault(o.id, []).append(pos)
        mapping: dict[int, object] = {}
        retry = {pos for pos, phi in enumerate(current) if phi.result.id not in keep}
        while retry:
            resolve = resolver(mapping)
            trivial: dict[int, object] = {}
            for pos in sorted(retry):
                phi = current[pos]
                if mapping and mentions(phi, mapping):
                    phi = current[pos] = rewrite_instr(phi, resolve)
                others = {v for _, v in phi.incoming if v != phi.result}
                if len(others) == 1:
                    trivial[phi.result.id] = next(iter(others))
            mapping.update(trivial)
            retry = set()
            for vid, v in trivial.items():
                readers = users.get(vid, ())
                retry.update(readers)
                if isinstance(v, Value):                # its readers now read v
                    users.setdefault(v.id, []).extend(readers)
            retry = {pos for pos in retry if current[pos].result.id not in mapping
                     and current[pos].result.id not in keep}
        if not mapping:
            return kernel
        kernel = substitute(kernel, mapping)
        blocks = [b if not any(p.result.id in mapping for p in b.phis) else
                  Block(b.label, tuple(p for p in b.phis if p.result.id not in mapping),
                        b.instrs, b.terminator) for b in kernel.blocks]
        return rebuild(kernel, blocks)
